"""The run-time function table: CEL function name → Python implementation, plus the
argument-dependent run-time costs cel-go and Kubernetes charge for some of them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dractl.cel import extlib as X
from dractl.cel import formatting as F
from dractl.cel import stdlib as S
from dractl.cel.decls import TIME_ACCESSORS
from dractl.cel.lib import format as LF
from dractl.cel.lib import net as LN
from dractl.cel.lib import ordering as LO
from dractl.cel.lib import quantity as LQ
from dractl.cel.lib import regex as LR
from dractl.cel.lib import semver as LS
from dractl.cel.lib import url as LU
from dractl.cel.values import NONE, DefaultMap, OptionalVal, UInt, no_overload

_CONVERSIONS: dict[str, Callable[..., Any]] = {
    "int": S.to_int,
    "uint": S.to_uint,
    "double": S.to_double,
    "string": S.to_string,
    "bytes": S.to_bytes,
    "bool": S.to_bool,
    "dyn": lambda v: v,
    "type": S.type_of,
}

_FUNCS: dict[str, Callable[..., Any]] = {
    "_+_": S.add,
    "_-_": S.sub,
    "_*_": S.mul,
    "_/_": S.div,
    "_%_": S.mod,
    "-_": S.neg,
    "size": S.size,
    "@in": S.contains_in,
    "duration": S.to_duration,
    "timestamp": S.to_timestamp,
    "contains": X.contains,
    "startsWith": X.starts_with,
    "endsWith": X.ends_with,
    "matches": LR.matches,
    "charAt": X.char_at,
    "indexOf": X.index_of,
    "lastIndexOf": X.last_index_of,
    "lowerAscii": X.lower_ascii,
    "upperAscii": X.upper_ascii,
    "replace": X.replace,
    "split": X.split,
    "substring": X.substring,
    "trim": X.trim,
    "join": X.join,
    "strings.quote": X.quote,
    "sets.contains": X.sets_contains,
    "sets.equivalent": X.sets_equivalent,
    "sets.intersects": X.sets_intersects,
    "slice": X.list_slice,
    "flatten": X.flatten,
    "lists.range": X.lists_range,
    "distinct": X.distinct,
    "reverse": X.reverse,
    "sort": X.sort,
    "lists.@sortByAssociatedKeys": X.sort_by_keys,
    "first": X.first,
    "last": X.last,
    "isSorted": X.is_sorted,
    "sum": X.list_sum,
    "min": X.list_min,
    "max": X.list_max,
    "cel.@mapInsert": X.map_insert,
    "find": LR.find,
    "findAll": LR.find_all,
    "quantity": LQ.quantity,
    "isQuantity": LQ.is_quantity,
    "sign": LQ.q_sign,
    "add": LQ.q_add,
    "sub": LQ.q_sub,
    "asInteger": LQ.q_as_integer,
    "isInteger": LQ.q_is_integer,
    "asApproximateFloat": LQ.q_as_float,
    "semver": LS.semver,
    "isSemver": LS.is_semver,
    "isGreaterThan": LO.is_greater,
    "isLessThan": LO.is_less,
    "compareTo": LO.compare_to,
    "major": LS.major,
    "minor": LS.minor,
    "patch": LS.patch,
    "url": LU.url,
    "isURL": LU.is_url,
    "ip": LN.ip,
    "isIP": LN.is_ip,
    "ip.isCanonical": LN.ip_is_canonical,
    "cidr": LN.cidr,
    "isCIDR": LN.is_cidr,
    "containsIP": LN.cidr_contains_ip,
    "containsCIDR": LN.cidr_contains_cidr,
    "format.named": LF.format_named,
    "validate": LF.format_validate,
    "value": S.optional_value,
    "format": F.format_string,
    "optional.of": lambda v: OptionalVal(True, v),
    "optional.none": lambda: NONE,
    "optional.ofNonZeroValue": lambda v: OptionalVal(True, v) if _non_zero(v) else NONE,
    "hasValue": lambda o: _opt(o, "hasValue").has,
    "or": lambda o, p: o if _opt(o, "or").has else _opt(p, "or"),
    "orValue": lambda o, v: o.value if _opt(o, "orValue").has else v,
    "optional.unwrap": lambda lst: [o.value for o in lst if _opt(o, "optional.unwrap").has],
    "unwrapOpt": lambda lst: [o.value for o in lst if _opt(o, "unwrapOpt").has],
}
for _fn in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery"):
    _FUNCS[_fn] = (lambda f: lambda v: LU.url_part(f, v))(_fn)
for _fn in (
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
):
    _FUNCS[_fn] = (lambda f: lambda v: LN.ip_prop(f, v))(_fn)
for _fn in ("masked", "prefixLength"):
    _FUNCS[_fn] = (lambda f: lambda v: LN.cidr_prop(f, v))(_fn)
for _fn in TIME_ACCESSORS:
    _FUNCS[_fn] = (lambda f: lambda v, *tz: S.time_part(f, v, *tz))(_fn)
for _fn in LF.FORMAT_NAMES:
    _FUNCS[f"format.{_fn}"] = (lambda f: lambda: LF.named_format(f))(_fn)


def _opt(o: Any, fn: str) -> OptionalVal:
    if type(o) is not OptionalVal:
        raise no_overload(fn)
    return o


def _non_zero(v: Any) -> bool:
    if v is None or v is False:
        return False
    if type(v) in (int, UInt, float, str, bytes, list, dict):
        return bool(v)
    return True


# functions of constants whose (immutable) result may be computed once when the program is built
_PURE = frozenset(
    {"quantity", "isQuantity", "semver", "isSemver", "url", "isURL", "ip", "isIP", "cidr", "isCIDR"}
)


def _size(v: Any) -> int:
    return len(v) if type(v) in _SIZED else 1


# the types of value whose run-time size is their length (anything else is of size 1)
_SIZED = frozenset({str, bytes, list, dict, DefaultMap})


def _tenth(v: Any, factor: float = 0.1, plus: int = 0) -> int:
    return math.ceil((_size(v) + plus) * factor)


# cel-go's and Kubernetes' run-time costs for functions whose cost depends on their arguments
# (the value returned is added instead of the default 1).
_SIZED_COST: dict[str, Callable[[list[Any]], int]] = {
    "startsWith": lambda v: _tenth(v[1]),
    "endsWith": lambda v: _tenth(v[1]),
    "contains": lambda v: _tenth(v[0]) * _tenth(v[1]),
    "matches": lambda v: _tenth(v[0], plus=1) * _tenth(v[1], 0.25),
    "find": lambda v: _tenth(v[0], plus=1) * _tenth(v[1], 0.25),
    "findAll": lambda v: _tenth(v[0], plus=1) * _tenth(v[1], 0.25),
    "lowerAscii": lambda v: _tenth(v[0]),
    "upperAscii": lambda v: _tenth(v[0]),
    "substring": lambda v: _tenth(v[0]),
    "trim": lambda v: _tenth(v[0]),
    "url": lambda v: _tenth(v[0]),
    "replace": lambda v: _tenth(v[0], 0.2),
    "split": lambda v: _tenth(v[0], 0.2),
    "quantity": lambda v: _tenth(v[0]),
    "isQuantity": lambda v: _tenth(v[0]),
    "semver": lambda v: _tenth(v[0]),
    "isSemver": lambda v: _tenth(v[0]),
    "cidr": lambda v: _tenth(v[0]),
    "isIP": lambda v: _tenth(v[0]),
    "isCIDR": lambda v: _tenth(v[0]),
    "ip": lambda v: _tenth(v[0]) if type(v[0]) is str else 1,
    "ip.isCanonical": lambda v: _tenth(v[0], 0.2),
    "@in": lambda v: _size(v[1]) if type(v[1]) is list else 1,
}
_TYPE_NAMES = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "null_type", "list", "map", "type", "dyn"}
)
