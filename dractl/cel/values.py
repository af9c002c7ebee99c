"""Runtime values of the evaluator and cel-go's equality, ordering and type names.

Python types stand for CEL ones: ``bool``, ``int``, :class:`UInt`, ``float``, ``str``, ``bytes``,
``None`` (null), ``list``, ``dict``.  Kubernetes and extension types get small classes.
"""

from __future__ import annotations

import math
from typing import Any

from dractl.model.quantity import Quantity
from dractl.model.semver import Version


class EvalError(Exception):
    """A CEL runtime error (``.message`` in cel-go's words)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CostExceeded(EvalError):
    def __init__(self) -> None:
        super().__init__("operation cancelled: actual cost limit exceeded")


def no_overload(fn: str = "") -> EvalError:
    """cel-go's dispatch failure; operators report it without a name."""
    if not fn or fn[0] in "_@!-":
        return EvalError("no such overload")
    return EvalError(f"no such overload: {fn}")


class UInt(int):
    __slots__ = ()


class QuantityVal:
    """A Quantity; ``derived`` marks results of add()/sub() (a pointer value in Kubernetes, whose
    equality behaves differently)."""

    __slots__ = ("derived", "q")

    def __init__(self, q: Quantity, derived: bool = False) -> None:
        self.q = q
        self.derived = derived


class SemverVal:
    __slots__ = ("v",)

    def __init__(self, v: Version) -> None:
        self.v = v


class OptionalVal:
    __slots__ = ("has", "value")

    def __init__(self, has: bool, value: Any = None) -> None:
        self.has = has
        self.value = value


NONE = OptionalVal(False)


class TypeVal:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeVal) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class Opaque:
    """URL, IP, CIDR, NamedFormat values: ``kind`` plus a Python payload."""

    __slots__ = ("kind", "payload")

    def __init__(self, kind: str, payload: Any) -> None:
        self.kind = kind
        self.payload = payload


class Duration:
    __slots__ = ("nanos",)

    def __init__(self, nanos: int) -> None:
        self.nanos = nanos


class Timestamp:
    __slots__ = ("nanos",)

    def __init__(self, nanos: int) -> None:
        self.nanos = nanos


class DefaultMap(dict[str, Any]):
    """The top-level device maps: a missing domain reads as an empty map."""

    __slots__ = ()


def type_name(v: Any) -> str:
    t = type(v)
    if t is bool:
        return "bool"
    if t is UInt:
        return "uint"
    if t is int:
        return "int"
    if t is float:
        return "double"
    if t is str:
        return "string"
    if t is bytes:
        return "bytes"
    if v is None:
        return "null_type"
    if t is list:
        return "list"
    if t is dict or t is DefaultMap:
        return "map"
    if t is QuantityVal:
        return "kubernetes.Quantity"
    if t is SemverVal:
        return "kubernetes.Semver"
    if t is OptionalVal:
        return "optional_type"
    if t is TypeVal:
        return "type"
    if t is Duration:
        return "google.protobuf.Duration"
    if t is Timestamp:
        return "google.protobuf.Timestamp"
    if t is Opaque:
        return str(v.kind)
    return t.__name__


_NUMS = (int, UInt, float)


def is_num(v: Any) -> bool:
    t = type(v)
    return t is int or t is UInt or t is float


def equals(a: Any, b: Any) -> bool | None:
    """cel-go ``lhs.Equal(rhs)``: True/False, or None for "no such overload" (an error)."""
    ta, tb = type(a), type(b)
    if a is None or b is None:
        return a is None and b is None
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in _NUMS:
        if tb not in _NUMS:
            return False
        if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):
            return False
        if ta is float or tb is float:
            return float(a) == float(b)
        return bool(a == b)
    if ta is str or ta is bytes:
        return ta is tb and a == b
    if ta is list:
        if tb is not list or len(a) != len(b):
            return False
        return all(equals(x, y) is not False for x, y in zip(a, b, strict=True))
    if ta is dict or ta is DefaultMap:
        if not (tb is dict or tb is DefaultMap) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_find(b, k)
            if not found or equals(v, other) is False:
                return False
        return True
    if ta is QuantityVal:
        if tb is not QuantityVal or b.derived:
            return None
        return a.q.compare(b.q) == 0
    if ta is SemverVal:
        if tb is not SemverVal:
            return None
        return a.v.compare(b.v) == 0
    if ta is OptionalVal:
        if tb is not OptionalVal:
            return False
        if not a.has or not b.has:
            return a.has == b.has
        return equals(a.value, b.value) is True
    if ta is TypeVal:
        return tb is TypeVal and a.name == b.name
    if ta is Duration or ta is Timestamp:
        return ta is tb and a.nanos == b.nanos
    if ta is Opaque:
        if tb is not Opaque or a.kind != b.kind:
            return None
        return bool(a.payload == b.payload)
    return None


_ABSENT = object()


def map_find(m: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    """Lookup with CEL's numeric key equivalence (1 == 1u == 1.0)."""
    tk = type(key)
    if tk is str:  # only a string key equals a string: one lookup (device maps, by domain and name)
        v = m.get(key, _ABSENT)
        return (False, None) if v is _ABSENT else (True, v)
    if tk is float:
        if key != key or key != int(key):
            return False, None
        key = int(key)
        tk = int
    if tk is bool:
        for k, v in m.items():
            if type(k) is bool and k == key:
                return True, v
        return False, None
    if tk in (list, dict, DefaultMap, OptionalVal, QuantityVal, SemverVal, Opaque):
        return False, None
    if key in m:
        for k, v in m.items():
            if k == key and (type(k) is bool) == (tk is bool):
                return True, v
    return False, None


def compare(a: Any, b: Any, fn: str) -> int:
    """Ordering for ``<``/``<=``/``>``/``>=``; EvalError for unsupported operand types."""
    ta, tb = type(a), type(b)
    if ta in _NUMS and tb in _NUMS and ta is not bool and tb is not bool:
        if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):
            raise _NaN()
        if ta is float or tb is float:
            a, b = float(a), float(b)
        return (a > b) - (a < b)
    if ta is tb and ta in (str, bytes, bool):
        return (a > b) - (a < b)
    if ta is tb and ta in (Duration, Timestamp):
        return (a.nanos > b.nanos) - (a.nanos < b.nanos)
    raise no_overload(fn) if fn else no_overload()


class _NaN(Exception):
    """NaN compares false both ways (caught by the comparison operators)."""
