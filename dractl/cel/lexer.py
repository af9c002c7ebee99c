"""CEL tokenizer (the token set of the CEL grammar, positions in code points)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PUNCT = (
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "<",
    ">",
    "!",
    "?",
    ":",
    ".",
    ",",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    "%",
    "=",
)
KEYWORDS = {"true", "false", "null", "in"}
_DIGITS = "0123456789"
_HEX = "0123456789abcdefABCDEF"
_IDSTART = "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_IDCHARS = _IDSTART + _DIGITS
_WS = " \t\r\n\f"
_SIMPLE_ESC = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}


@dataclass(slots=True)
class Token:
    kind: str  # IDENT, ESCIDENT, INT, UINT, DOUBLE, STRING, BYTES, EOF, a keyword or punctuation
    text: str
    offset: int
    value: Any = None


class LexError(Exception):
    def __init__(self, offset: int, text: str) -> None:
        super().__init__(text)
        self.offset = offset
        self.text = text


def tokenize(src: str) -> tuple[list[Token], list[tuple[int, str]]]:
    """Tokens and recognition errors ``(offset, message)``."""
    toks: list[Token] = []
    errors: list[tuple[int, str]] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in _WS:
            i += 1
            continue
        if src.startswith("//", i):
            while i < n and src[i] not in "\r\n":
                i += 1
            continue
        start = i
        if c in _IDSTART:
            # string/bytes prefixes
            j = i
            while j < n and src[j] in "rRbB" and j - i < 2:
                j += 1
            prefix = src[i:j]
            if prefix and j < n and src[j] in "\"'" and _valid_prefix(prefix):
                i = _string(src, i, j, prefix, toks, errors)
                continue
            while i < n and src[i] in _IDCHARS:
                i += 1
            word = src[start:i]
            toks.append(Token(word if word in KEYWORDS else "IDENT", word, start))
            continue
        if c in "\"'":
            i = _string(src, i, i, "", toks, errors)
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and src[i + 1] in _DIGITS):
            i = _number(src, i, toks)
            continue
        if c == "`":
            j = i + 1
            while j < n and (src[j] in _IDCHARS or src[j] in "./- "):
                j += 1
            if j < n and src[j] == "`" and j > i + 1:
                toks.append(Token("ESCIDENT", src[i : j + 1], i, src[i + 1 : j]))
                i = j + 1
                continue
            errors.append((i, f"token recognition error at: '{c}'"))
            i += 1
            continue
        for p in PUNCT:
            if src.startswith(p, i):
                if p == "=":
                    break
                toks.append(Token(p, p, i))
                i += len(p)
                break
        else:
            errors.append((i, f"token recognition error at: '{c}'"))
            i += 1
            continue
        if p == "=":
            errors.append((i, f"token recognition error at: '{src[i : i + 2]}'"))
            i += 2 if i + 1 < n else 1
    toks.append(Token("EOF", "<EOF>", n))
    return toks, errors


def _valid_prefix(p: str) -> bool:
    low = p.lower()
    return low in ("r", "b", "rb", "br")


def _number(src: str, i: int, toks: list[Token]) -> int:
    n = len(src)
    start = i
    if src.startswith("0x", i) and i + 2 < n and src[i + 2] in _HEX:  # only lower-case x in CEL
        i += 2
        while i < n and src[i] in _HEX:
            i += 1
        text = src[start:i]
        if i < n and src[i] in "uU":
            toks.append(Token("UINT", src[start : i + 1], start, int(text, 16)))
            return i + 1
        toks.append(Token("INT", text, start, int(text, 16)))
        return i
    while i < n and src[i] in _DIGITS:
        i += 1
    is_float = False
    if i + 1 < n and src[i] == "." and src[i + 1] in _DIGITS:
        i += 1
        while i < n and src[i] in _DIGITS:
            i += 1
        is_float = True
    if i < n and src[i] in "eE":
        j = i + 1
        if j < n and src[j] in "+-":
            j += 1
        if j < n and src[j] in _DIGITS:
            while j < n and src[j] in _DIGITS:
                j += 1
            i = j
            is_float = True
    text = src[start:i]
    if is_float:
        toks.append(Token("DOUBLE", text, start, float(text)))
        return i
    if i < n and src[i] in "uU":
        toks.append(Token("UINT", src[start : i + 1], start, int(text)))
        return i + 1
    toks.append(Token("INT", text, start, int(text)))
    return i


def _string(
    src: str, start: int, q: int, prefix: str, toks: list[Token], errors: list[tuple[int, str]]
) -> int:
    """Lex a (raw/bytes/triple-quoted) literal starting at ``start`` whose quote is at ``q``."""
    n = len(src)
    raw = "r" in prefix.lower()
    is_bytes = "b" in prefix.lower()
    quote = src[q]
    triple = src.startswith(quote * 3, q)
    delim = quote * 3 if triple else quote
    i = q + len(delim)
    out: list[str | int] = []  # an int is a raw byte from a \x or octal escape in a bytes literal
    bad_escape = False
    while True:
        if i >= n:
            errors.append((start, f"token recognition error at: '{src[start:]}'"))
            return n
        if src.startswith(delim, i):
            i += len(delim)
            break
        c = src[i]
        if not triple and c in "\r\n":
            errors.append((start, f"token recognition error at: '{src[start : i + 1]}'"))
            return i + 1
        if c == "\\":
            if raw:
                out.append(c)
                if i + 1 < n:
                    out.append(src[i + 1])
                i += 2
                continue
            try:
                text, i, is_u = _escape(src, i, is_bytes)
            except LexError as e:
                end = min(e.offset, len(src) - 1)
                errors.append((start, f"token recognition error at: '{src[start : end + 1]}'"))
                return end + 1
            if is_u and is_bytes:
                bad_escape = True
            out.append(text)
            continue
        out.append(c)
        i += 1
    text = src[start:i]
    if is_bytes:
        value: Any = None if bad_escape else _to_bytes(out)
        toks.append(Token("BYTES", text, start, value))
    else:
        toks.append(Token("STRING", text, start, "".join(map(str, out))))
    return i


def _to_bytes(parts: list[str | int]) -> bytes:
    """Raw bytes for escapes, UTF-8 for everything else (as cel-go unescapes bytes literals)."""
    out = bytearray()
    for part in parts:
        if isinstance(part, int):
            out.append(part)
        else:
            out += part.encode("utf-8", "surrogatepass")
    return bytes(out)


def _first_bad(src: str, j: int, width: int) -> int:
    """Offset of the first non-hex character of an escape (where ANTLR stops)."""
    for k in range(j, min(j + width, len(src))):
        if src[k] not in _HEX:
            return k
    return min(j + width, len(src)) - 1


def _escape(src: str, i: int, is_bytes: bool) -> tuple[str | int, int, bool]:
    n = len(src)
    if i + 1 >= n:
        raise LexError(i, "bad escape")
    c = src[i + 1]
    if c in _SIMPLE_ESC:
        return _SIMPLE_ESC[c], i + 2, False
    if c in "xX":
        h = src[i + 2 : i + 4]
        if len(h) == 2 and all(x in _HEX for x in h):
            v = int(h, 16)
            return (v if is_bytes else chr(v)), i + 4, False
        raise LexError(_first_bad(src, i + 2, 2), "bad escape")
    if c in "uU":
        width = 4 if c == "u" else 8
        h = src[i + 2 : i + 2 + width]
        if len(h) == width and all(x in _HEX for x in h):
            v = int(h, 16)
            if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                raise LexError(i + 1 + width, "bad escape")
            return chr(v), i + 2 + width, True
        raise LexError(_first_bad(src, i + 2, width), "bad escape")
    if c in "0123":
        o = src[i + 1 : i + 4]
        if len(o) == 3 and all(x in "01234567" for x in o):
            v = int(o, 8)
            return (v if is_bytes else chr(v)), i + 4, False
    raise LexError(i + 1, "bad escape")
