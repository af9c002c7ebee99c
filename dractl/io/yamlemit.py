"""A fast YAML emitter for plain JSON-like data (what the API server sends): block style,
keys in their order, one document per object.

PyYAML's emitter costs about 5 s per 1,000-node snapshot (its representers are Python);
this writes the same documents in a tenth of that.  Scalars that are printable ASCII are
written plain when YAML reads them back as the same string, else double-quoted with JSON's
escapes (a subset of YAML's).  Anything else — non-ASCII or control characters, non-finite
floats, types JSON doesn't have — goes through PyYAML for that one scalar, so the output
always reads back exactly as the input (tests/unit/io/test_yamlemit.py checks it).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import yaml

from dractl.model.memo import remember

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*\Z")
# Words YAML 1.1 (PyYAML) resolves to booleans or null: never plain.
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"})
_ASCII_PRINTABLE = re.compile(r"[ -~]*\Z")
_Dumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# The text of strings already written (keys and values repeat across a snapshot's objects).
# Bounded: cleared when full.
_STRINGS: dict[str, str] = {}
_STRINGS_MAX = 1 << 16


def _string(s: str) -> str:
    text = _STRINGS.get(s)
    if text is None:
        text = remember(_STRINGS, s, _string_text(s), _STRINGS_MAX)
    return text


def _string_text(s: str) -> str:
    if _PLAIN.match(s) and s.lower() not in _RESERVED:
        return s
    if _ASCII_PRINTABLE.match(s):
        return json.dumps(s)
    try:
        text: str = yaml.dump(s, Dumper=_Dumper, default_style='"', width=2**30, allow_unicode=True)
    except UnicodeEncodeError:  # a lone surrogate: escape every character (see _escaped)
        return _escaped(s)
    return text.removesuffix("\n").removesuffix("...").rstrip("\n")


def _escaped(s: str) -> str:
    """``s`` as an ASCII double-quoted YAML scalar: a character outside the BMP as one
    ``\\UXXXXXXXX`` (JSON's surrogate pairs would read back as two lone surrogates), every
    other non-printable or non-ASCII one, lone surrogates included, as ``\\uXXXX``."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        text = repr(value)  # YAML 1.1 reads "5e-324" as a string: its floats need a "."
        return text.replace("e", ".0e", 1) if "e" in text and "." not in text else text
    return (
        _string(str(value))
        if not isinstance(value, float)
        else (".nan" if value != value else ".inf" if value > 0 else "-.inf")
    )


def _emit(value: Any, indent: str, out: list[str]) -> None:
    """Append the lines of a mapping or sequence ``value`` at ``indent``."""
    strings = _STRINGS
    if isinstance(value, dict):
        for key, item in value.items():
            k = (strings.get(key) or _string(key)) if type(key) is str else None
            if k is None:
                k = _string(key) if isinstance(key, str) else _scalar(key)
            t = type(item)
            if t is str:  # the usual values: their text without the calls below
                out.append(f"{indent}{k}: {strings.get(item) or _string(item)}")
            elif t is int:  # not bool: type() is exact
                out.append(f"{indent}{k}: {item}")
            elif isinstance(item, dict) and item:
                out.append(f"{indent}{k}:")
                _emit(item, indent + "  ", out)
            elif isinstance(item, list) and item:
                out.append(f"{indent}{k}:")
                _emit(item, indent, out)  # block sequences under a key at the key's indent, as PyYAML
            else:
                out.append(f"{indent}{k}: {_inline(item)}")
        return
    for item in value:
        if type(item) is str:
            out.append(f"{indent}- {strings.get(item) or _string(item)}")
        elif isinstance(item, dict) and item:
            sub: list[str] = []
            _emit(item, indent + "  ", sub)
            out.append(f"{indent}- {sub[0][len(indent) + 2 :]}")
            out.extend(sub[1:])
        elif isinstance(item, list) and item:
            sub = []
            _emit(item, indent + "  ", sub)
            out.append(f"{indent}- {sub[0][len(indent) + 2 :]}")
            out.extend(sub[1:])
        else:
            out.append(f"{indent}- {_inline(item)}")


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def dump_all(docs: Iterable[Any]) -> str:
    """Documents as one YAML stream, each starting with ``---``."""
    out: list[str] = []
    for doc in docs:
        out.append("---")
        if isinstance(doc, dict | list) and doc:
            _emit(doc, "", out)
        else:
            out.append(_inline(doc))
    return "\n".join(out) + "\n"
