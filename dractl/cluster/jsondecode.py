"""``json.loads``, sooner: msgspec's decoder where it gives the same value, ``json.loads`` wherever
it does not.

A 5,000-node cluster is ~66 MB of JSON: ``json.loads`` takes 0.70 s of it, msgspec's decoder
0.45 s.  The two agree on every document that both accept (the same dicts, lists, strings, ints
of any size, floats correctly rounded; the last of duplicate keys wins), and msgspec refuses
everything on which they could differ, so a refusal is answered by ``json.loads`` itself (its
value, or its error): NaN and Infinity, numbers beyond a float's range (inf), lone surrogates
(escaped, or as UTF-8 bytes), a UTF-8 byte-order mark, UTF-16/32 bodies, invalid UTF-8,
control characters in strings, trailing data, malformed JSON.  A refused body is read twice;
an API server's never is.

Nesting: both decoders stop at the interpreter's recursion limit, counted from where they are
called.  msgspec is called :data:`_MARGIN` levels deeper than ``json.loads`` starts its own
decoding (each level a call the interpreter counts, in every Python), so it refuses a body
before ``json.loads`` would, and ``json.loads`` decides (tests/unit/cluster pin it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_MARGIN = 8  # levels; json.loads itself uses 4 (Python 3.11: three frames and the scanner's call)


class _Deeper:
    """``inner(body)``, one level deeper on the recursion counter: a call through ``tp_call``
    (which the interpreter counts in every version) into a Python frame."""

    __slots__ = ("inner",)

    def __init__(self, inner: Callable[[bytes | str], Any]) -> None:
        self.inner = inner

    def __call__(self, body: bytes | str) -> Any:
        return self.inner(body)


def _fast_decoder() -> Callable[[bytes | str], Any] | None:
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a declared dependency; json.loads answers alone
        return None
    decode: Callable[[bytes | str], Any] = msgspec.json.Decoder().decode
    for _ in range(_MARGIN):
        decode = _Deeper(decode)
    return decode


_FAST = _fast_decoder()
REFUSED: Any = object()  # what :func:`fast` returns for a body msgspec does not take


def fast(body: bytes | str) -> Any:
    """msgspec's value of ``body``, or :data:`REFUSED` (then ``json.loads`` must answer: call it
    from the caller's own frame, where ``json.loads`` was called before, so that nesting is
    refused at the same depth as ever)."""
    if _FAST is not None:
        try:
            return _FAST(body)
        except Exception:  # DecodeError, ValidationError, RecursionError, ...: json.loads decides
            pass
    return REFUSED


def typed_decoder(schema: Any) -> Callable[[bytes], Any] | None:
    """msgspec's decoder for ``schema`` (TypedDicts of ``Any`` fields: plain dicts holding only
    the keys named), called as :func:`fast` calls its own; None without msgspec."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    decode: Callable[[bytes | str], Any] = msgspec.json.Decoder(schema).decode
    for _ in range(_MARGIN):
        decode = _Deeper(decode)
    return decode


def fast_typed(body: bytes, decode: Callable[[bytes], Any] | None) -> Any:
    """What ``decode`` (a :func:`typed_decoder`) makes of ``body``, or :data:`REFUSED`.

    Where it answers, its value is :func:`loads`'s with every field the schema does not name
    left out: the fields it reads are decoded as :func:`fast` decodes them (and refused where
    ``fast`` would refuse them), and it refuses what the schema does not describe (an item that
    is not an object).  The fields it skips are still parsed (malformed JSON, control
    characters and bad escapes in them are refused) but not decoded: invalid UTF-8 there would
    pass, so a body that is not ASCII is answered only when it is valid UTF-8 (``json.loads``
    refuses the rest)."""
    if decode is None:
        return REFUSED
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return REFUSED
    try:
        return decode(body)
    except Exception:  # DecodeError, ValidationError, RecursionError, ...: the full decode decides
        return REFUSED


def loads(body: bytes | str) -> Any:
    """``json.loads(body)``: the same value, or the same exception."""
    value = fast(body)
    return json.loads(body) if value is REFUSED else value
