"""``isGreaterThan``, ``isLessThan`` and ``compareTo``, which the Quantity and Semver libraries
both declare."""

from __future__ import annotations

from typing import Any

from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.lib.quantity import _q, q_compare
from dractl.cel.lib.semver import _v, s_compare
from dractl.cel.values import QuantityVal, SemverVal


def is_greater(a: Any, b: Any) -> bool:
    if type(a) is QuantityVal:
        return a.q.compare(_q(b, "isGreaterThan", a)) == 1
    if type(a) is SemverVal:
        return a.v.compare(_v(b, "isGreaterThan", a)) == 1
    raise _sig_err("isGreaterThan", a, b)


def is_less(a: Any, b: Any) -> bool:
    if type(a) is QuantityVal:
        return a.q.compare(_q(b, "isLessThan", a)) == -1
    if type(a) is SemverVal:
        return a.v.compare(_v(b, "isLessThan", a)) == -1
    raise _sig_err("isLessThan", a, b)


def compare_to(a: Any, b: Any) -> int:
    if type(a) is QuantityVal:
        if type(b) is QuantityVal:  # q_compare's answer, without its checks' calls
            return a.q.compare(b.q)
        return q_compare(a, b)
    if type(a) is SemverVal:
        return s_compare(a, b)
    raise _sig_err("compareTo", a, b)
