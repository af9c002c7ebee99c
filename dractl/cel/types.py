"""CEL types for the checker, printed the way cel-go prints them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Type:
    """``kind`` is a primitive name, ``list``, ``map``, ``type``, ``opaque`` (with ``name``),
    ``object`` (with ``name``), ``param`` (type parameter / variable, with ``name``), ``dyn``,
    ``any``, ``error``, ``null``, ``duration`` or ``timestamp``."""

    kind: str
    params: tuple[Type, ...] = ()
    name: str = ""

    def __str__(self) -> str:
        k = self.kind
        if k == "list":
            return f"list({self.params[0]})"
        if k == "map":
            return f"map({self.params[0]}, {self.params[1]})"
        if k == "type":
            return f"type({self.params[0]})" if self.params else "type"
        if k == "opaque":
            if self.params:
                return f"{self.name}({', '.join(str(p) for p in self.params)})"
            return self.name
        if k in ("object", "param"):
            return self.name
        if k == "duration":
            return "google.protobuf.Duration"
        if k == "timestamp":
            return "google.protobuf.Timestamp"
        if k == "error":
            return "!error!"
        return k


INT = Type("int")
UINT = Type("uint")
DOUBLE = Type("double")
BOOL = Type("bool")
STRING = Type("string")
BYTES = Type("bytes")
NULL = Type("null")
DYN = Type("dyn")
ANY = Type("any")
ERROR = Type("error")
DURATION = Type("duration")
TIMESTAMP = Type("timestamp")
QUANTITY = Type("opaque", (), "kubernetes.Quantity")
SEMVER = Type("opaque", (), "kubernetes.Semver")
URL = Type("opaque", (), "kubernetes.URL")
IP = Type("opaque", (), "net.IP")
CIDR = Type("opaque", (), "net.CIDR")
DEVICE = Type("object", (), "kubernetes.DRADevice")
NAMED_FORMAT = Type("opaque", (), "kubernetes.NamedFormat")


def list_of(t: Type) -> Type:
    return Type("list", (t,))


def map_of(k: Type, v: Type) -> Type:
    return Type("map", (k, v))


def optional_of(t: Type) -> Type:
    return Type("opaque", (t,), "optional_type")


def type_of(t: Type) -> Type:
    return Type("type", (t,))


def param(name: str) -> Type:
    return Type("param", (), name)


def is_optional(t: Type) -> bool:
    return t.kind == "opaque" and t.name == "optional_type"


_NAMED = {
    "int": INT,
    "uint": UINT,
    "double": DOUBLE,
    "bool": BOOL,
    "string": STRING,
    "bytes": BYTES,
    "null": NULL,
    "dyn": DYN,
    "any": ANY,
    "duration": DURATION,
    "timestamp": TIMESTAMP,
    "Quantity": QUANTITY,
    "NamedFormat": NAMED_FORMAT,
    "Semver": SEMVER,
    "URL": URL,
    "IP": IP,
    "CIDR": CIDR,
    "type": Type("type"),
}


def parse_sig(text: str) -> Type:
    """Mini type syntax used by the declarations: ``list(A)``, ``map(K,V)``, ``opt(A)``, ``type(A)``;
    a single upper-case letter is a type parameter."""
    text = text.strip()
    if "(" in text:
        head, inner = text.split("(", 1)
        inner = inner[:-1]
        parts = _split_args(inner)
        ps = tuple(parse_sig(p) for p in parts)
        if head == "list":
            return Type("list", ps)
        if head == "map":
            return Type("map", ps)
        if head == "opt":
            return optional_of(ps[0])
        if head == "type":
            return Type("type", ps)
        raise ValueError(text)
    if len(text) == 1 and text.isupper():
        return param(text)
    return _NAMED[text]


def _split_args(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    out.append(cur)
    return out
