"""Kubernetes' Semver library (``semver()``, ``isSemver()`` and the Semver methods), as
apiserver's pkg/cel/library/semverlib.go."""

from __future__ import annotations

from typing import Any

from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.values import EvalError, SemverVal
from dractl.model.semver import SemverError, Version


def semver(s: Any, *norm: Any) -> SemverVal:
    if type(s) is not str or (norm and type(norm[0]) is not bool):
        raise _sig_err("semver", s, *norm)
    try:
        return SemverVal(Version.parse_normalized(s) if norm and norm[0] else Version.parse(s))
    except SemverError as e:
        raise EvalError(str(e)) from None


def is_semver(s: Any, *norm: Any) -> bool:
    if type(s) is not str or (norm and type(norm[0]) is not bool):
        raise _sig_err("isSemver", s, *norm)
    try:
        Version.parse_normalized(s) if norm and norm[0] else Version.parse(s)
    except SemverError:
        return False
    return True


def _v(v: Any, fn: str, *rest: Any) -> Version:
    if type(v) is not SemverVal:
        raise _sig_err(fn, v, *rest)
    return v.v


def s_compare(a: Any, b: Any) -> int:
    return _v(a, "compareTo", b).compare(_v(b, "compareTo", a))


def _int64(n: int) -> int:
    """Go's ``int64(x)`` of a uint64 version number: wraps past 2^63 - 1."""
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


def major(a: Any) -> int:
    return _int64(_v(a, "major").major)


def minor(a: Any) -> int:
    return _int64(_v(a, "minor").minor)


def patch(a: Any) -> int:
    return _int64(_v(a, "patch").patch)
