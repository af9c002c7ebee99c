"""CEL selectors built from flags, the way a careful admin would write them by hand.

* attribute and capacity names are fully qualified (``gpu.nvidia.com/memory``), looked up as
  ``device.attributes['gpu.nvidia.com'].memory`` behind a ``has()`` guard, so a device without
  the attribute is simply not matched (instead of failing allocation with "no such key");
* quantities compare with ``compareTo(quantity('40Gi'))`` (never as strings), versions with
  ``compareTo(semver('1.2.3'))``;
* string values are CEL literals with every quote, backslash and control character escaped.

Every expression is compiled with dractl's CEL engine (:func:`check`) before it is returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dractl.errors import UsageError
from dractl.model.features import Features

_DOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")
_SEMVER = re.compile(r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
_INT = re.compile(r"^-?\d+$")
# longest first, so ">=" is not read as ">" followed by "=..."
_OPS = ("~=", ">=", "<=", "!=", "==", ">", "<", "=")
_CEL_OPS = {"=": "==", "==": "==", "!=": "!=", ">": ">", ">=": ">=", "<": "<", "<=": "<="}
RESERVED = frozenset(
    {
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
        "true",
        "false",
        "null",
    }
)


def literal(text: str) -> str:
    """A single-quoted CEL string literal for ``text`` (quotes, backslashes, controls escaped)."""
    out = []
    for ch in text:
        if ch in ("\\", "'"):
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0x80 <= ord(ch) < 0xA0:
            out.append(f"\\x{ord(ch):02x}")
        elif ch in ("\u2028", "\u2029") or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


@dataclass(frozen=True, slots=True)
class QualifiedName:
    """``domain/id`` of an attribute or capacity."""

    domain: str
    id: str

    def __str__(self) -> str:
        return f"{self.domain}/{self.id}"


def qualify(name: str, default_domain: str | None, flag: str) -> QualifiedName:
    """``gpu.nvidia.com/memory`` as is; a bare ``memory`` gets ``default_domain`` (the driver).
    Raises UsageError for names that are not ``[DOMAIN/]IDENTIFIER``."""
    domain, sep, ident = name.strip().rpartition("/")
    if not sep:
        if not default_domain:
            raise UsageError(
                f"{flag}: {name!r} is not fully qualified; write DOMAIN/{name} "
                "(e.g. gpu.nvidia.com/{name}) or give --driver"
            )
        domain = default_domain
    if not _DOMAIN.match(domain) or len(domain) > 63:
        raise UsageError(f"{flag}: {domain!r} in {name!r} is not a DNS subdomain (e.g. gpu.nvidia.com)")
    if not _IDENT.match(ident):
        raise UsageError(f"{flag}: {ident!r} in {name!r} is not a C identifier of at most 32 characters")
    return QualifiedName(domain, ident)


def _field(map_name: str, q: QualifiedName) -> str:
    # CEL reserves some words as field names; index those instead of selecting them.
    base = f"device.{map_name}[{literal(q.domain)}]"
    return f"{base}[{literal(q.id)}]" if q.id in RESERVED else f"{base}.{q.id}"


def _guard(map_name: str, q: QualifiedName) -> str:
    if q.id in RESERVED:
        return f"{literal(q.id)} in device.{map_name}[{literal(q.domain)}]"
    return f"has({_field(map_name, q)})"


def min_capacity(spec: str, default_domain: str | None, flag: str = "--min-capacity") -> str:
    """``memory=40Gi`` → ``has(...) && device.capacity['d'].memory.compareTo(quantity('40Gi')) >= 0``."""
    from dractl.model.quantity import Quantity, QuantityError

    name, sep, value = spec.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UsageError(f"{flag}: expected NAME=QUANTITY (e.g. memory=40Gi), got {spec!r}")
    try:
        Quantity.parse(value.strip())
    except QuantityError:
        raise UsageError(f"{flag}: {value.strip()!r} is not a quantity (e.g. 40Gi, 500m, 8)") from None
    q = qualify(name, default_domain, flag)
    fld = _field("capacity", q)
    return f"{_guard('capacity', q)} && {fld}.compareTo(quantity({literal(value.strip())})) >= 0"


def attribute(spec: str, default_domain: str | None, flag: str = "--attr") -> str:
    """``NAME OP VALUE`` → a guarded comparison.  OP: ``=``/``==``, ``!=``, ``<``, ``<=``, ``>``,
    ``>=``, ``~=`` (RE2 regular expression).  VALUE: ``'quoted'`` or ``"quoted"`` is a string,
    ``true``/``false`` a bool, an integer an int, ``1.2.3`` (or ``v1.2.3``) a version; anything else
    a string.  A bare ``NAME`` means "has this attribute"."""
    op, at = _split_op(spec)
    if at < 0:
        return _guard("attributes", qualify(spec, default_domain, flag))
    name, value = spec[:at], spec[at + len(op) :]
    if not name.strip():
        raise UsageError(f"{flag}: expected NAME{op}VALUE, got {spec!r}")
    q = qualify(name, default_domain, flag)
    fld, guard = _field("attributes", q), _guard("attributes", q)
    value = value.strip()
    if op == "~=":
        return f"{guard} && {fld}.matches({literal(_unquote(value))})"
    cel_op = _CEL_OPS[op]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return f"{guard} && {fld} {cel_op} {literal(value[1:-1])}"
    if value in ("true", "false"):
        if cel_op not in ("==", "!="):
            raise UsageError(f"{flag}: {op} does not apply to a bool ({spec!r})")
        return f"{guard} && {fld} {cel_op} {value}"
    if _INT.match(value):
        if not -(2**63) <= int(value) < 2**63:
            raise UsageError(f"{flag}: {value} does not fit a 64-bit integer ({spec!r})")
        return f"{guard} && {fld} {cel_op} {int(value)}"
    if _SEMVER.match(value):
        return f"{guard} && {fld}.compareTo(semver({literal(value.removeprefix('v'))})) {cel_op} 0"
    if cel_op not in ("==", "!="):
        raise UsageError(
            f"{flag}: {op} needs a number or a version; quote a string to compare it "
            f"('{name.strip()}{op}\"{value}\"')"
        )
    return f"{guard} && {fld} {cel_op} {literal(value)}"


def _split_op(spec: str) -> tuple[str, int]:
    """The leftmost operator of ``spec`` (the longest one at that position), or ``("", -1)``."""
    for i in range(len(spec)):
        for op in _OPS:
            if spec.startswith(op, i):
                return op, i
    return "", -1


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def driver_is(driver: str) -> str:
    return f"device.driver == {literal(driver)}"


def check(expression: str, features: Features, flag: str) -> str:
    """``expression`` when the API server would accept it in a new object; else UsageError
    with the compiler's first line (dractl's own CEL engine, the API server's limits)."""
    from dractl.cel import validate_selector

    problem = validate_selector(expression, features=features)
    if problem is not None:
        first = problem.splitlines()[0] if problem.strip() else problem
        raise UsageError(f"{flag}: CEL {first.removeprefix('compilation failed: ')}: {expression}")
    return expression
