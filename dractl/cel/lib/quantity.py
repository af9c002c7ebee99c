"""Kubernetes' Quantity library (``quantity()``, ``isQuantity()`` and the Quantity methods),
as apiserver's pkg/cel/library/quantity.go."""

from __future__ import annotations

from typing import Any

from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.values import EvalError, QuantityVal
from dractl.model.quantity import Quantity, QuantityError


def quantity(s: Any) -> QuantityVal:
    if type(s) is not str:
        raise _sig_err("quantity", s)
    try:
        return QuantityVal(Quantity.parse(s))
    except QuantityError as e:
        raise EvalError(str(e)) from None


def is_quantity(s: Any) -> bool:
    if type(s) is not str:
        raise _sig_err("isQuantity", s)
    try:
        Quantity.parse(s)
    except QuantityError:
        return False
    return True


def _q(v: Any, fn: str, *rest: Any) -> Quantity:
    if type(v) is not QuantityVal:
        raise _sig_err(fn, v, *rest)
    return v.q


def q_sign(v: Any) -> int:
    return _q(v, "sign").sign()


def q_compare(a: Any, b: Any) -> int:
    return _q(a, "compareTo", b).compare(_q(b, "compareTo", a))


def q_add(a: Any, b: Any) -> QuantityVal:
    q = _q(a, "add", b)
    if type(b) is int:
        return QuantityVal(q.add(Quantity.from_int(b, q.format)), True)
    return QuantityVal(q.add(_q(b, "add", a)), True)


def q_sub(a: Any, b: Any) -> QuantityVal:
    q = _q(a, "sub", b)
    if type(b) is int:
        return QuantityVal(q.sub(Quantity.from_int(b, q.format)), True)
    return QuantityVal(q.sub(_q(b, "sub", a)), True)


def q_as_integer(a: Any) -> int:
    v = _q(a, "asInteger").as_int64()
    if v is None:
        raise EvalError("cannot convert value to integer")
    return v


def q_is_integer(a: Any) -> bool:
    return _q(a, "isInteger").as_int64() is not None


def q_as_float(a: Any) -> float:
    return _q(a, "asApproximateFloat").as_approximate_float()
