"""Indexing, field selection, presence tests and optional access on run-time values
(with the DRA rule that a missing domain of ``device.attributes``/``capacity`` is an empty map)."""

from __future__ import annotations

from typing import Any

from dractl.cel.values import NONE, DefaultMap, EvalError, OptionalVal, UInt, map_find, no_overload

_EMPTY: dict[str, Any] = {}


def _index(c: Any, k: Any) -> Any:
    t = type(c)
    if t is list:
        tk = type(k)
        if tk is float:
            if k != int(k):
                raise EvalError(f"unsupported index value {k} in list")
            k = int(k)
        elif tk is not int and tk is not UInt:
            raise no_overload("_[_]")
        if not 0 <= k < len(c):
            raise EvalError(f"index out of bounds: {k}")
        return c[k]
    if t is DefaultMap:
        found, v = map_find(c, k)
        return v if found else _EMPTY
    if t is dict:
        found, v = map_find(c, k)
        if not found:
            raise EvalError(f"no such key: {_key_text(k)}")
        return v
    if t is OptionalVal:
        if not c.has:
            return NONE
        try:
            return OptionalVal(True, _index(c.value, k))
        except EvalError:
            return NONE
    raise no_overload("_[_]")


def _key_text(k: Any) -> str:
    if type(k) is bool:
        return "true" if k else "false"
    return str(k)


def _opt_index(c: Any, k: Any) -> OptionalVal:
    t = type(c)
    if t is OptionalVal:
        return _opt_index(c.value, k) if c.has else NONE
    if t is list:
        if type(k) not in (int, UInt, float):
            raise no_overload("_[?_]")
        ik = int(k)
        return OptionalVal(True, c[ik]) if 0 <= ik < len(c) and ik == k else NONE
    if t is DefaultMap:
        found, v = map_find(c, k)
        return OptionalVal(True, v if found else _EMPTY)
    if t is dict:
        found, v = map_find(c, k)
        return OptionalVal(True, v) if found else NONE
    raise no_overload("_[?_]")


def _select(v: Any, name: str) -> Any:
    t = type(v)
    if t is dict:
        if name in v:
            return v[name]
        raise EvalError(f"no such key: {name}")
    if t is DefaultMap:
        return v.get(name, _EMPTY)
    if t is OptionalVal:
        if not v.has:
            return NONE
        inner = v.value
        if isinstance(inner, dict) and name not in inner and type(inner) is not DefaultMap:
            return NONE
        return OptionalVal(True, _select(inner, name))
    raise EvalError(f"no such key: {name}")


def _has(v: Any, name: str) -> bool:
    if type(v) is DefaultMap:
        return True
    if isinstance(v, dict):
        return name in v
    if type(v) is OptionalVal:
        return v.has and _has(v.value, name)
    return False


def _opt_select(v: Any, name: str) -> OptionalVal:
    t = type(v)
    if t is OptionalVal:
        return _opt_select(v.value, name) if v.has else NONE
    if t is DefaultMap:
        return OptionalVal(True, v.get(name, _EMPTY))
    if t is dict:
        return OptionalVal(True, v[name]) if name in v else NONE
    return NONE
