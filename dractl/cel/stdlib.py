"""Runtime implementations of CEL's standard functions: arithmetic, conversions, time, size."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from dractl.cel.lib.net import opaque_to_string
from dractl.cel.values import (
    Duration,
    EvalError,
    OptionalVal,
    Timestamp,
    TypeVal,
    UInt,
    equals,
    map_find,
    no_overload,
    type_name,
)

INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
_INT_RE = re.compile(r"[+-]?[0-9]+")
_UINT_RE = re.compile(r"\+?[0-9]+")
_FLOAT_RE = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)
_BOOLS = {
    "1": True,
    "t": True,
    "T": True,
    "TRUE": True,
    "true": True,
    "True": True,
    "0": False,
    "f": False,
    "F": False,
    "FALSE": False,
    "false": False,
    "False": False,
}
MIN_TS = -62135596800 * 10**9  # 0001-01-01T00:00:00Z
MAX_TS = 253402300799 * 10**9 + 999_999_999  # 9999-12-31T23:59:59.999999999Z
MAX_DUR = INT64_MAX


def _int(v: int) -> int:
    if not INT64_MIN <= v <= INT64_MAX:
        raise EvalError("integer overflow")
    return v


def _uint(v: int) -> UInt:
    if not 0 <= v <= UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(v)


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a + b)
    if ta is UInt and tb is UInt:
        return _uint(a + b)
    if ta is float and tb is float:
        return a + b
    if (ta is str and tb is str) or (ta is bytes and tb is bytes):
        return a + b
    if ta is list and tb is list:
        return a + b
    if (ta is Timestamp and tb is Duration) or (ta is Duration and tb is Timestamp):
        return _ts(a.nanos + b.nanos)
    if ta is Duration and tb is Duration:
        return _dur(a.nanos + b.nanos)
    raise no_overload("_+_")


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a - b)
    if ta is UInt and tb is UInt:
        return _uint(a - b)
    if ta is float and tb is float:
        return a - b
    if ta is Timestamp and tb is Timestamp:
        return _dur(a.nanos - b.nanos)
    if ta is Timestamp and tb is Duration:
        return _ts(a.nanos - b.nanos)
    if ta is Duration and tb is Duration:
        return _dur(a.nanos - b.nanos)
    raise no_overload("_-_")


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a * b)
    if ta is UInt and tb is UInt:
        return _uint(a * b)
    if ta is float and tb is float:
        return a * b
    raise no_overload("_*_")


def div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is UInt and tb is UInt):
        if b == 0:
            raise EvalError("division by zero")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return _int(q) if ta is int else UInt(q)
    if ta is float and tb is float:
        if b == 0:
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise no_overload("_/_")


def mod(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is UInt and tb is UInt):
        if b == 0:
            raise EvalError("modulus by zero")
        if ta is int and a == INT64_MIN and b == -1:
            raise EvalError("integer overflow")
        r = abs(a) % abs(b)
        r = r if a >= 0 else -r
        return r if ta is int else UInt(r)
    raise no_overload("_%_")


def neg(a: Any) -> Any:
    if type(a) is int:
        return _int(-a)
    if type(a) is float:
        return -a
    raise no_overload("-_")


def _ts(n: int) -> Timestamp:
    if not MIN_TS <= n <= MAX_TS:
        raise EvalError("timestamp overflow")
    return Timestamp(n)


def _dur(n: int) -> Duration:
    if not INT64_MIN <= n <= INT64_MAX:
        raise EvalError("duration overflow")
    return Duration(n)


def size(v: Any) -> int:
    t = type(v)
    if t is str or t is list or t is bytes or isinstance(v, dict):
        return len(v)
    raise no_overload("size")


def contains_in(elem: Any, coll: Any) -> bool:
    if type(coll) is list:
        return any(equals(elem, x) is True for x in coll)
    if isinstance(coll, dict):
        return map_find(coll, elem)[0]
    raise no_overload("@in")


# -- conversions ---------------------------------------------------------------------------------
def to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        return _int(int(v))
    if t is float:
        if not (-9.2233720368547758e18 <= v < 9.2233720368547758e18) or math.isnan(v):
            raise EvalError("integer overflow")
        return int(v)
    if t is str:
        if not _INT_RE.fullmatch(v):
            raise EvalError("type conversion error from 'string' to 'int'")
        return _int(int(v))
    if t is Timestamp:
        return v.nanos // 10**9
    if t is Duration:
        return int(v.nanos / 10**9) if v.nanos >= 0 else -((-v.nanos) // 10**9)
    raise no_overload("int")


def to_uint(v: Any) -> UInt:
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        return _uint(v)
    if t is float:
        if not (0 <= v < 1.8446744073709552e19) or math.isnan(v):
            raise EvalError("unsigned integer overflow")
        return UInt(int(v))
    if t is str:
        if not _UINT_RE.fullmatch(v):
            raise EvalError("type conversion error from 'string' to 'uint'")
        return _uint(int(v))
    raise no_overload("uint")


def to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        if not _FLOAT_RE.fullmatch(v):
            raise EvalError("type conversion error from 'string' to 'double'")
        f = float(v)
        if math.isinf(f) and not v.lstrip("+-").lower().startswith("inf"):
            raise EvalError("type conversion error from 'string' to 'double'")  # ParseFloat: out of range
        return f
    raise no_overload("double")


def format_double(f: float) -> str:
    """Go's ``strconv.FormatFloat(f, 'g', -1, 64)``."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    r = repr(abs(f))
    mant, _, exp_s = r.partition("e")
    exp = int(exp_s) if exp_s else 0
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    point = len(ip) + exp  # position of the decimal point relative to the digits of ip+fp
    lead = len(ip + fp) - len((ip + fp).lstrip("0"))
    point -= lead
    digits = digits.rstrip("0") or "0"
    x = point - 1
    sign = "-" if f < 0 else ""
    if x < -4 or x >= 6:
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{m}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if t is Timestamp:
        return format_timestamp(v.nanos)
    if t is Duration:
        return format_duration(v.nanos)
    return opaque_to_string(v)


def to_bytes(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise no_overload("bytes")


def to_bool(v: Any) -> bool:
    if type(v) is bool:
        return v
    if type(v) is str:
        if v not in _BOOLS:
            raise EvalError("type conversion error from 'string' to 'bool'")
        return _BOOLS[v]
    raise no_overload("bool")


def type_of(v: Any) -> TypeVal:
    return TypeVal(type_name(v))


# -- durations and timestamps --------------------------------------------------------------------
_DUR_UNITS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "μs": 10**3,
    "ms": 10**6,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_DUR_RE = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(s: str) -> Duration:
    orig = s
    sign = 1
    if s[:1] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return Duration(0)
    if not s:
        raise EvalError(f'time: invalid duration "{orig}"')
    total = 0
    pos = 0
    from fractions import Fraction

    while pos < len(s):
        m = _DUR_RE.match(s, pos)
        if not m or m.group(1) in ("", "."):
            raise EvalError(f'time: invalid duration "{orig}"')
        total += int(
            Fraction(m.group(1) if not m.group(1).endswith(".") else m.group(1) + "0")
            * _DUR_UNITS[m.group(2)]
        )
        pos = m.end()
    if total > INT64_MAX + (sign < 0):
        raise EvalError(f'time: invalid duration "{orig}"')
    return Duration(sign * total)


def to_duration(v: Any) -> Duration:
    if type(v) is Duration:
        return v
    if type(v) is str:
        return parse_duration(v)
    raise no_overload("duration")


_TS_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def parse_timestamp(s: str) -> Timestamp:
    m = _TS_RE.fullmatch(s)
    if not m:
        raise EvalError(f'parsing time "{s}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    try:
        dt = datetime(y, mo, d, h, mi, sec, tzinfo=UTC)
    except ValueError as e:
        raise EvalError(f'parsing time "{s}": {e}') from None
    frac = m.group(7) or ""
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    tz = m.group(8)
    offset = 0
    if tz not in ("Z", "z"):
        offset = (int(tz[1:3]) * 60 + int(tz[4:6])) * 60 * (1 if tz[0] == "+" else -1)
    secs = int((dt - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds()) - offset
    return _ts(secs * 10**9 + nanos)


def to_timestamp(v: Any) -> Timestamp:
    if type(v) is Timestamp:
        return v
    if type(v) is str:
        return parse_timestamp(v)
    if type(v) is int:
        return _ts(v * 10**9)
    raise no_overload("timestamp")


def format_timestamp(n: int) -> str:
    secs, nanos = divmod(n, 10**9)
    dt = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=secs)
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        base += "." + f"{nanos:09d}".rstrip("0")
    return base + "Z"


def format_duration(n: int) -> str:
    sign = "-" if n < 0 else ""
    n = abs(n)
    secs, nanos = divmod(n, 10**9)
    if nanos:
        return f"{sign}{secs}.{f'{nanos:09d}'.rstrip('0')}s"
    return f"{sign}{secs}s"


def _tz_offset(tz: str) -> int:
    m = re.fullmatch(r"([+-]?)(\d{1,2}):(\d{2})", tz)
    if m:
        return (int(m.group(2)) * 60 + int(m.group(3))) * 60 * (-1 if m.group(1) == "-" else 1)
    if tz in ("UTC", "Z", ""):
        return 0
    try:
        from zoneinfo import ZoneInfo

        return 0 if ZoneInfo(tz) is None else -1_000_000_000
    except Exception:
        raise EvalError(f"unknown time zone {tz}") from None


def time_part(fn: str, v: Any, tz: str | None = None) -> int:
    if type(v) is Duration:
        n = v.nanos
        div_ = {
            "getHours": 3600 * 10**9,
            "getMinutes": 60 * 10**9,
            "getSeconds": 10**9,
            "getMilliseconds": 10**6,
        }[fn]
        q = abs(n) // div_
        return q if n >= 0 else -q
    if type(v) is not Timestamp:
        raise no_overload(fn)
    secs, nanos = divmod(v.nanos, 10**9)
    if tz is not None:
        off = _tz_offset(tz)
        if off == -1_000_000_000:
            from zoneinfo import ZoneInfo

            dt = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=secs)).astimezone(ZoneInfo(tz))
        else:
            dt = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=secs + off)
    else:
        dt = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=secs)
    if fn == "getFullYear":
        return dt.year
    if fn == "getMonth":
        return dt.month - 1
    if fn == "getDayOfYear":
        return dt.timetuple().tm_yday - 1
    if fn == "getDayOfMonth":
        return dt.day - 1
    if fn == "getDate":
        return dt.day
    if fn == "getDayOfWeek":
        return (dt.weekday() + 1) % 7
    if fn == "getHours":
        return dt.hour
    if fn == "getMinutes":
        return dt.minute
    if fn == "getSeconds":
        return dt.second
    return nanos // 10**6


def optional_value(o: Any) -> Any:
    if type(o) is not OptionalVal:
        raise no_overload("value")
    if not o.has:
        raise EvalError("optional.none() dereference")
    return o.value
