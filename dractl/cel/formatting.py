"""``string.format(list)`` of ext.Strings: run-time formatting and the compile-time check of a
literal format string against literal arguments."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from dractl.cel.values import Duration, EvalError, Timestamp, TypeVal, UInt, type_name

if TYPE_CHECKING:
    from dractl.cel.ast import Expr
    from dractl.cel.checker import CheckResult

_VERB = re.compile(r"%(?:\.(\d+))?([a-zA-Z%])?")
_STRING_OK = (
    "string",
    "bool",
    "bytes",
    "int",
    "uint",
    "double",
    "map",
    "list",
    "type",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "null_type",
)
_RULES = {
    "d": (("int", "uint"), "decimal clause can only be used on integers"),
    "f": (("double",), "fixed-point clause can only be used on doubles"),
    "e": (("double",), "scientific clause can only be used on doubles"),
    "b": (("int", "uint", "bool"), "only integers and bools can be formatted as binary"),
    "o": (("int", "uint"), "octal clause can only be used on integers"),
    "x": (
        ("int", "uint", "string", "bytes"),
        "only integers, byte buffers, and strings can be formatted as hex",
    ),
    "X": (
        ("int", "uint", "string", "bytes"),
        "only integers, byte buffers, and strings can be formatted as hex",
    ),
}


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _static_name(t: Any) -> str:
    s = str(t)
    return {"null": "null_type"}.get(s, s.split("(")[0])


# %f/%e also take the strings "NaN", "Infinity" and "-Infinity" (cel-go converts them), so a
# string argument is only rejected at run time
_FLOAT_STRINGS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _check_verb(verb: str, tname: str, static: bool = False) -> str | None:
    if static and verb in ("f", "e") and tname == "string":
        return None
    if verb == "s":
        if tname not in _STRING_OK:
            return (
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
                f"lists, types, durations, and timestamps, was given {tname}"
            )
        return None
    rule = _RULES.get(verb)
    if rule is None:
        return f'could not parse formatting clause: unrecognized formatting clause "{verb}"'
    allowed, msg = rule
    if tname not in allowed:
        return f"{msg}, was given {tname}"
    return None


def _verbs(fmt: str) -> list[tuple[str, int | None]]:
    out = []
    i = 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        m = _VERB.match(fmt, i)
        assert m is not None
        verb = m.group(2) or ""
        if verb != "%":
            out.append((verb, int(m.group(1)) if m.group(1) else None))
        i = m.end()
    return out


def validate_format_call(fmt: str, arg: Expr, checked: CheckResult, call_id: int) -> tuple[int, str] | None:
    """(node id, ``error during formatting: …``) for a literal call that would fail, or None."""
    from dractl.cel.ast import CreateList

    if not isinstance(arg, CreateList):
        return None
    verbs = _verbs(fmt)
    for i, (verb, _) in enumerate(verbs):
        if i >= len(arg.elements):
            return arg.id, f"error during formatting: index {i} out of range"
        t = checked.types.get(arg.elements[i].id)
        if t is None or t.kind in ("dyn", "error"):
            continue
        msg = _check_verb(verb, "google.protobuf.Any" if t.kind == "any" else _static_name(t), static=True)
        if msg:
            return arg.elements[i].id, f"error during formatting: {msg}"
    if len(verbs) < len(arg.elements):
        return call_id, (
            f"too many arguments supplied to string.format (expected {len(verbs)}, got {len(arg.elements)})"
        )
    return None


def format_string(fmt: Any, args: Any) -> str:
    if type(fmt) is not str or type(args) is not list:
        raise EvalError("no such overload: format")
    out: list[str] = []
    i = n = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        m = _VERB.match(fmt, i)
        assert m is not None
        i = m.end()
        verb = m.group(2) or ""
        if verb == "%":
            out.append("%")
            continue
        if n >= len(args):
            raise EvalError(f"error during formatting: index {n} out of range")
        v = args[n]
        n += 1
        if verb in ("f", "e") and type(v) is str and v in _FLOAT_STRINGS:
            v = _FLOAT_STRINGS[v]
        msg = _check_verb(verb, type_name(v))
        if msg:
            raise EvalError(f"error during formatting: {msg}")
        out.append(_render(verb, int(m.group(1)) if m.group(1) else None, v))
    return "".join(out)


def _render(verb: str, prec: int | None, v: Any) -> str:
    if verb == "s":
        return to_display(v)
    if verb == "d":
        return str(int(v))
    if verb in ("f", "e") and (math.isnan(v) or math.isinf(v)):
        # golang.org/x/text's printer (cel-go formats %f/%e for a locale): CLDR's symbols
        return "NaN" if math.isnan(v) else ("-∞" if v < 0 else "∞")
    if verb == "f":  # the en-US locale groups the integer digits in threes
        return f"{v:,.{6 if prec is None else prec}f}"
    if verb == "e":
        text = f"{v:.{6 if prec is None else prec}e}"
        mant, _, exp = text.partition("e")
        sup = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
        return f"{mant}×10{exp.lstrip('+').translate(sup)}"
    if verb == "b":
        return ("1" if v else "0") if type(v) is bool else format(int(v), "b")
    if verb == "o":
        return format(int(v), "o")
    data = v.encode() if type(v) is str else v
    if type(data) is bytes:
        h = data.hex()
    else:
        h = format(int(v), "x")
    return h.upper() if verb == "X" else h


def to_display(v: Any, nested: bool = False) -> str:
    from dractl.cel.stdlib import format_double, format_duration, format_timestamp

    t = type(v)
    if t is str:
        return _quote(v) if nested else v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:  # cel-go: the bytes -> string conversion fails, and %s with it
            raise EvalError(
                'error during formatting: could not convert argument "invalid UTF-8 in '
                'bytes, cannot convert to string" to string'
            ) from None
    if v is None:
        return "null"
    if t is list:
        return "[" + ", ".join(to_display(x, True) for x in v) + "]"
    if isinstance(v, dict):
        items = sorted((to_display(k, True), to_display(x, True)) for k, x in v.items())
        return "{" + ", ".join(f"{k}:{x}" for k, x in items) + "}"
    if t is TypeVal:
        return str(v.name)
    if t is Duration:
        return format_duration(v.nanos)
    if t is Timestamp:
        return format_timestamp(v.nanos)
    return type_name(v)
