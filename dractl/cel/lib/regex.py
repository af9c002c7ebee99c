"""``matches``, ``find`` and ``findAll`` in linear time, with the syntax Go's ``regexp`` accepts.

cel-go and Kubernetes' regex library compile patterns with Go's ``regexp`` (RE2 syntax, Perl
flags).  dractl does the same in two steps:

1. :func:`translate` reads the pattern as Go's ``regexp/syntax`` parser does and either rejects
   it with Go's error (``missing closing ]: `[a```, ``invalid escape sequence: `\\Z```, …) or
   writes an equivalent pattern for RE2-C++.  This is where the two dialects differ: Go rejects
   ``\\C``; Go (1.25 and later) looks ``\\p{…}`` names up loosely (``\\p{latin}``,
   ``\\p{Letter}``, ``\\p{ASCII}``, ``\\p{Assigned}``, ``\\p{LC}``); and every literal is
   re-emitted as ``\\x{…}`` so escapes only Go knows (``\\_``, octal) cannot be misread.
2. The result is compiled with Google's RE2 (``google-re2``), whose matching time is linear in
   the input: no pattern can make a selector hang, which Python's backtracking ``re`` cannot
   promise (``(a+)+$`` on a long string of ``a``s followed by ``b`` runs for hours there).

``findAll`` follows Go's ``FindAllString`` (an empty match right after a match is skipped).
RE2 is imported on first use, so selectors without regexes never load it.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any

from dractl.cel.values import EvalError, no_overload

MAX_REPEAT = 1000  # Go's maxRepeat: any {n,m} and the product of nested counts
MAX_HEIGHT = 1000  # Go's maxHeight: nesting of the parse tree
# RE2's memory budget per pattern (program and DFA cache; a full DFA cache falls back to the NFA,
# still linear).  With at most _CACHED patterns kept, regexes hold at most 2 GiB even when every
# pattern is hostile; typical ones take kilobytes.  The price: a pattern whose UTF-8 program
# exceeds the budget (``\pL{1000}``) is "expression too large" where Go would compile it.
_RE2_MAX_MEM = 16 << 20
_CACHED = 128


class RegexError(Exception):
    """A pattern Go's regexp rejects; the message is Go's ``<code>: `<expr>```."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"{code}: `{expr}`")
        self.code = code
        self.expr = expr


# -- Unicode classes (Go 1.25+: loose names, categories, scripts, aliases and specials) -------
_RE2_NAME_TEXT = (
    "Adlam Ahom Anatolian_Hieroglyphs Any Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak "
    "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid C Canadian_Aboriginal Carian "
    "Caucasian_Albanian Cc Cf Chakma Cham Cherokee Chorasmian Co Common Coptic Cs Cuneiform Cypriot "
    "Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan "
    "Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han "
    "Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited "
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li "
    "Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi L Lao Latin Lepcha Limbu Linear_A Linear_B "
    "Lisu Ll Lm Lo Lt Lu Lycian Lydian M Mahajani Makasar Malayalam Mandaic Manichaean Marchen "
    "Masaram_Gondi Mc Me Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs "
    "Miao Mn Modi Mongolian Mro Multani Myanmar N Nabataean Nag_Mundari Nandinagari Nd New_Tai_Lue "
    "Newa Nko Nl No Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic "
    "Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur "
    "Oriya Osage Osmanya P Pahawh_Hmong Palmyrene Pau_Cin_Hau Pc Pd Pe Pf Phags_Pa Phoenician Pi Po "
    "Ps Psalter_Pahlavi Rejang Runic S Samaritan Saurashtra Sc Sharada Shavian Siddham SignWriting "
    "Sinhala Sk Sm So Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa "
    "Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta "
    "Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Z Zanabazar_Square Zl Zp Zs"
)
_RE2_NAMES = tuple(_RE2_NAME_TEXT.split())  # the \p{…} names RE2-C++ has tables for
# Unicode's long names for the general categories (PropertyValueAliases.txt), as Go accepts them
_CATEGORY_ALIASES = {
    "Other": "C",
    "Control": "Cc",
    "Cntrl": "Cc",
    "Format": "Cf",
    "Unassigned": "Cn",
    "Private_Use": "Co",
    "Surrogate": "Cs",
    "Letter": "L",
    "Cased_Letter": "LC",
    "Lowercase_Letter": "Ll",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Titlecase_Letter": "Lt",
    "Uppercase_Letter": "Lu",
    "Mark": "M",
    "Combining_Mark": "M",
    "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me",
    "Nonspacing_Mark": "Mn",
    "Number": "N",
    "Decimal_Number": "Nd",
    "Digit": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "Punct": "P",
    "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd",
    "Close_Punctuation": "Pe",
    "Final_Punctuation": "Pf",
    "Initial_Punctuation": "Pi",
    "Other_Punctuation": "Po",
    "Open_Punctuation": "Ps",
    "Symbol": "S",
    "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk",
    "Math_Symbol": "Sm",
    "Other_Symbol": "So",
    "Separator": "Z",
    "Line_Separator": "Zl",
    "Paragraph_Separator": "Zp",
    "Space_Separator": "Zs",
}
_ASSIGNED = ("L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Co", "Cs")  # every category but Cn


def _canonical(name: str) -> str:
    """Go's ``canonicalName``: first letter upper, the rest lower, no ``_``, ``-`` or space."""
    out = []
    first = True
    for c in name:
        if c in "_- ":
            continue
        out.append(c.upper() if first else c.lower())
        first = False
    return "".join(out)


def _build_names() -> dict[str, str]:
    names = {_canonical(n): n for n in _RE2_NAMES}
    names.update({"Assigned": "Assigned", "Ascii": "ASCII", "Lc": "LC", "Cn": "Cn"})
    for alias, cat in _CATEGORY_ALIASES.items():
        names.setdefault(_canonical(alias), cat)
    return names


_NAMES = _build_names()


@lru_cache(maxsize=4)
def _ranges(name: str) -> str:
    """Explicit class ranges for the classes RE2 has no table for (Cn, Assigned, LC)."""

    def wanted(cp: int) -> bool:
        cat = unicodedata.category(chr(cp))
        if name == "Cn":
            return cat == "Cn"
        if name == "Assigned":
            return cat != "Cn"
        return cat in ("Lu", "Ll", "Lt")

    out: list[str] = []
    start = -1
    for cp in range(0x110001):
        inside = cp <= 0x10FFFF and wanted(cp)
        if inside and start < 0:
            start = cp
        elif not inside and start >= 0:
            out.append(_lit(start) if start == cp - 1 else f"{_lit(start)}-{_lit(cp - 1)}")
            start = -1
    return "".join(out)


def _unicode_class(name: str, negated: bool, in_class: bool) -> str:
    """RE2 text for ``\\p{name}`` (``negated``: ``\\P``); inside ``[...]`` when ``in_class``."""
    if name == "ASCII":
        body = r"\x00-\x7f"
    elif name in ("Cn", "Assigned", "LC"):
        if name == "LC" and not negated:
            body = r"\p{Lu}\p{Ll}\p{Lt}"
        elif name == "Assigned" and not negated:
            body = "".join(f"\\p{{{c}}}" for c in _ASSIGNED)
        elif name == "Cn" and negated:
            return _unicode_class("Assigned", False, in_class)
        elif name == "Assigned" and negated:
            return _unicode_class("Cn", False, in_class)
        else:
            body = _ranges(name)
            if negated:
                return f"[^{body}]" if not in_class else _ranges_negated(name)
    else:
        return f"\\{'P' if negated else 'p'}{{{name}}}"
    if negated:
        return f"[^{body}]" if not in_class else _ranges_negated(name)
    return body if in_class else f"[{body}]"


@lru_cache(maxsize=4)
def _ranges_negated(name: str) -> str:
    if name == "ASCII":
        return r"\x{80}-\x{10ffff}"
    inverse = {"LC": None, "Cn": "Assigned", "Assigned": "Cn"}[name]
    if inverse is not None:
        return _ranges(inverse)
    body = _ranges(name)  # LC: complement its ranges
    import re

    spans = [
        (int(a, 16), int(b or a, 16))
        for a, b in re.findall(r"\\x\{([0-9a-f]+)\}(?:-\\x\{([0-9a-f]+)\})?", body)
    ]
    out, nxt = [], 0
    for lo, hi in spans:
        if nxt <= lo - 1:
            out.append(f"{_lit(nxt)}-{_lit(lo - 1)}")
        nxt = hi + 1
    if nxt <= 0x10FFFF:
        out.append(f"{_lit(nxt)}-{_lit(0x10FFFF)}")
    return "".join(out)


# -- Go's parser, as a translator ----------------------------------------------------------------
_PERL_CLASSES = frozenset("dDsSwW")
_POSIX = frozenset(
    [
        "alnum",
        "alpha",
        "ascii",
        "blank",
        "cntrl",
        "digit",
        "graph",
        "lower",
        "print",
        "punct",
        "space",
        "upper",
        "word",
        "xdigit",
    ]
)


def _lit(cp: int) -> str:
    return f"\\x{{{cp:x}}}"


class _Item:
    """One node on the parse stack: its tree height and the product of nested repeat counts."""

    __slots__ = ("height", "weight")

    def __init__(self, height: int = 1, weight: int = 1) -> None:
        self.height = height
        self.weight = weight


class _Frame:
    """An open group: the items of its current alternative and what earlier ones contributed."""

    __slots__ = ("alts", "capture", "items", "start")

    def __init__(self, capture: bool, start: int) -> None:
        self.capture = capture
        self.start = start
        self.items: list[_Item] = []
        self.alts: list[_Item] = []

    def concat(self) -> _Item:
        if not self.items:
            return _Item()
        if len(self.items) == 1:
            return self.items[0]
        return _Item(1 + max(i.height for i in self.items), max(i.weight for i in self.items))

    def close(self) -> _Item:
        alts = [*self.alts, self.concat()]
        if len(alts) == 1:
            return alts[0]
        return _Item(1 + max(a.height for a in alts), max(a.weight for a in alts))


class _Translator:
    def __init__(self, pattern: str) -> None:
        self.s = pattern
        self.out: list[str] = []
        self.frames = [_Frame(False, 0)]
        self.nodes = 0

    def push(self, item: _Item) -> None:
        self.nodes += 1
        self.frames[-1].items.append(item)
        if self.nodes >= MAX_HEIGHT and item.height > MAX_HEIGHT:
            raise RegexError("expression nests too deeply", self.s)

    def run(self) -> str:
        s = self.s
        i = 0
        n = len(s)
        last_repeat = -1  # where the previous token, if a repetition operator, started
        while i < n:
            c = s[i]
            repeat_at = -1
            if c == "(":
                i = self.open_group(i)
            elif c == "|":
                f = self.frames[-1]
                f.alts.append(f.concat())
                f.items = []
                self.out.append("|")
                i += 1
            elif c == ")":
                if len(self.frames) == 1:
                    raise RegexError("unexpected )", s)
                f = self.frames.pop()
                item = f.close()
                if f.capture:
                    item = _Item(item.height + 1, item.weight)
                self.push(item)
                self.out.append(")")
                i += 1
            elif c in "^$.":
                self.push(_Item())
                self.out.append(c)
                i += 1
            elif c == "[":
                i = self.char_class(i)
            elif c in "*+?":
                repeat_at = i
                i = self.repeat(i, i + 1, 0, 0, last_repeat, c)
            elif c == "{":
                parsed = _parse_repeat(s, i)
                if parsed is None:
                    self.push(_Item())
                    self.out.append(r"\{")
                    i += 1
                else:
                    lo, hi, end = parsed
                    if lo < 0 or lo > MAX_REPEAT or hi > MAX_REPEAT or (hi >= 0 and lo > hi):
                        raise RegexError("invalid repeat count", s[i:end])
                    repeat_at = i
                    i = self.repeat(i, end, lo, hi, last_repeat, s[i:end])
            elif c == "\\":
                i = self.escape(i)
            else:
                self.push(_Item())
                self.out.append(_lit(ord(c)) if not (c.isalnum() or ord(c) > 127) else c)
                i += 1
            last_repeat = repeat_at
        if len(self.frames) != 1:
            raise RegexError("missing closing )", s)
        return "".join(self.out)

    def open_group(self, i: int) -> int:
        s = self.s
        if not s.startswith("(?", i):
            self.frames.append(_Frame(True, i))
            self.out.append("(")
            return i + 1
        named = s.startswith("(?P<", i) and len(s) - i > 4
        if named or (s.startswith("(?<", i) and len(s) - i > 3):
            end = s.find(">", i)
            if end < 0:
                raise RegexError("invalid named capture", s[i:])
            name = s[i + (4 if named else 3) : end]
            if not name or not all(ch == "_" or (ch.isascii() and ch.isalnum()) for ch in name):
                raise RegexError("invalid named capture", s[i : end + 1])
            self.frames.append(_Frame(True, i))
            self.out.append("(")
            return end + 1
        j = i + 2
        sign = 1
        saw_flag = False
        while j < len(s):
            c = s[j]
            j += 1
            if c in "imsU":
                saw_flag = True
                continue
            if c == "-":
                if sign < 0:
                    break
                sign = -1
                saw_flag = False
                continue
            if c in ":)":
                if sign < 0 and not saw_flag:
                    break
                flags = s[i + 2 : j - 1]
                if c == ":":
                    self.frames.append(_Frame(False, i))
                    self.out.append(f"(?{flags}:" if flags else "(?:")
                elif flags:
                    self.out.append(f"(?{flags})")
                return j
            break
        raise RegexError("invalid or unsupported Perl syntax", s[i:j])

    def repeat(self, start: int, after: int, lo: int, hi: int, last_repeat: int, op: str) -> int:
        s = self.s
        if after < len(s) and s[after] == "?":
            after += 1
        if last_repeat >= 0:
            raise RegexError("invalid nested repetition operator", s[last_repeat:after])
        f = self.frames[-1]
        if not f.items:
            raise RegexError("missing argument to repetition operator", s[start:after])
        sub = f.items.pop()
        if op in "*+?":
            item = _Item(sub.height + 1, sub.weight)
        else:
            m = hi if hi >= 0 else lo
            weight = sub.weight if hi == 0 else max(m, 1) * sub.weight
            if (lo >= 2 or hi >= 2) and hi != 0 and weight > MAX_REPEAT:
                raise RegexError("invalid repeat count", s[start:after])
            item = _Item(sub.height + 1, 1 if hi == 0 else weight)
        self.nodes -= 1
        self.push(item)
        self.out.append(s[start:after])
        return after

    def escape(self, i: int) -> int:
        s = self.s
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt in ("A", "b", "B", "z"):
            self.push(_Item())
            self.out.append("\\" + nxt)
            return i + 2
        if nxt == "C":
            raise RegexError("invalid escape sequence", r"\C")
        if nxt == "Q":
            end = s.find(r"\E", i + 2)
            lit = s[i + 2 :] if end < 0 else s[i + 2 : end]
            for ch in lit:
                self.push(_Item())
                self.out.append(_lit(ord(ch)))
            return len(s) if end < 0 else end + 2
        if nxt in ("p", "P"):
            text, j = self.unicode_class(i, in_class=False)
            self.push(_Item())
            self.out.append(text)
            return j
        if nxt and nxt in _PERL_CLASSES:
            self.push(_Item())
            self.out.append("\\" + nxt)
            return i + 2
        cp, j = self.char_escape(i)
        self.push(_Item())
        self.out.append(_lit(cp))
        return j

    def char_escape(self, i: int) -> tuple[int, int]:
        """Go's ``parseEscape``: (code point, index after the escape)."""
        s = self.s
        if i + 1 >= len(s):
            raise RegexError("trailing backslash at end of expression", "")
        c = s[i + 1]
        j = i + 2
        if c.isascii() and not c.isalnum():
            return ord(c), j
        if c in "1234567" and (j >= len(s) or not "0" <= s[j] <= "7"):
            raise RegexError("invalid escape sequence", s[i:j])
        if c in "01234567":
            v = int(c)
            for _ in range(2):
                if j < len(s) and "0" <= s[j] <= "7":
                    v = v * 8 + int(s[j])
                    j += 1
            return v, j
        if c == "x":
            if j >= len(s):
                raise RegexError("invalid escape sequence", s[i:j])
            if s[j] == "{":
                k = j + 1
                v = 0
                digits = 0
                while k < len(s) and s[k] != "}":
                    h = _unhex(s[k])
                    k += 1
                    if h < 0:
                        raise RegexError("invalid escape sequence", s[i:k])
                    v = v * 16 + h
                    if v > 0x10FFFF:
                        raise RegexError("invalid escape sequence", s[i:k])
                    digits += 1
                if k >= len(s) or digits == 0:
                    raise RegexError("invalid escape sequence", s[i : min(k + 1, len(s))])
                return v, k + 1
            x = _unhex(s[j])
            y = _unhex(s[j + 1]) if j + 1 < len(s) else -1
            end = min(j + 2, len(s))
            if x < 0 or y < 0:
                raise RegexError("invalid escape sequence", s[i:end])
            return x * 16 + y, end
        simple = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
        if c in simple:
            return simple[c], j
        raise RegexError("invalid escape sequence", s[i:j])

    def unicode_class(self, i: int, in_class: bool) -> tuple[str, int]:
        s = self.s
        negated = s[i + 1] == "P"
        if i + 2 >= len(s):
            raise RegexError("invalid character class range", s[i:])
        if s[i + 2] != "{":
            seq, name, j = s[i : i + 3], s[i + 2], i + 3
        else:
            end = s.find("}", i)
            if end < 0:
                raise RegexError("invalid character class range", s[i:])
            seq, name, j = s[i : end + 1], s[i + 3 : end], end + 1
        if name.startswith("^"):
            negated = not negated
            name = name[1:]
        real = _NAMES.get(_canonical(name))
        if real is None:
            raise RegexError("invalid character class range", seq)
        return _unicode_class(real, negated, in_class), j

    def char_class(self, i: int) -> int:
        s = self.s
        whole = s[i:]
        j = i + 1
        out = ["["]
        if j < len(s) and s[j] == "^":
            out.append("^")
            j += 1
        first = True
        while j >= len(s) or s[j] != "]" or first:
            if j >= len(s):
                raise RegexError("missing closing ]", whole)
            first = False
            if s.startswith("[:", j):
                end = s.find(":]", j + 2)
                if end >= 0:
                    name = s[j : end + 2]
                    if name[2:-2].removeprefix("^") not in _POSIX:
                        raise RegexError("invalid character class range", name)
                    out.append(name)
                    j = end + 2
                    continue
            if s[j] == "\\" and j + 1 < len(s) and s[j + 1] in "pP":
                text, j = self.unicode_class(j, in_class=True)
                out.append(text)
                continue
            if s[j] == "\\" and j + 1 < len(s) and s[j + 1] in _PERL_CLASSES:
                out.append(s[j : j + 2])
                j += 2
                continue
            start = j
            lo, j = self.class_char(j, whole)
            hi = lo
            if j + 1 < len(s) and s[j] == "-" and s[j + 1] != "]":
                hi, j = self.class_char(j + 1, whole)
                if hi < lo:
                    raise RegexError("invalid character class range", s[start:j])
            out.append(_lit(lo) if lo == hi else f"{_lit(lo)}-{_lit(hi)}")
        out.append("]")
        self.push(_Item())
        self.out.append("".join(out))
        return j + 1

    def class_char(self, j: int, whole: str) -> tuple[int, int]:
        if j >= len(self.s):
            raise RegexError("missing closing ]", whole)
        if self.s[j] == "\\":
            return self.char_escape(j)
        return ord(self.s[j]), j + 1


def _unhex(c: str) -> int:
    return int(c, 16) if c in "0123456789abcdefABCDEF" else -1


def _parse_int(s: str, i: int) -> tuple[int, int] | None:
    """Go's ``parseInt``: (value or -1 when too big, end) or None."""
    if i >= len(s) or not "0" <= s[i] <= "9":
        return None
    if s[i] == "0" and i + 1 < len(s) and "0" <= s[i + 1] <= "9":
        return None
    j = i
    while j < len(s) and "0" <= s[j] <= "9":
        j += 1
    digits = s[i:j]
    return (int(digits) if len(digits) <= 8 else -1), j


def _parse_repeat(s: str, i: int) -> tuple[int, int, int] | None:
    """Go's ``parseRepeat`` at ``s[i] == '{'``: (min, max (-1: none), end) or None (a literal)."""
    first = _parse_int(s, i + 1)
    if first is None:
        return None
    lo, j = first
    if j >= len(s):
        return None
    if s[j] != ",":
        hi = lo
    else:
        j += 1
        if j >= len(s):
            return None
        if s[j] == "}":
            hi = -1
        else:
            second = _parse_int(s, j)
            if second is None:
                return None
            hi, j = second
            if hi < 0:
                lo = -1
    if j >= len(s) or s[j] != "}":
        return None
    return lo, hi, j + 1


def translate(pattern: str) -> str:
    """The RE2 pattern equivalent to ``pattern`` read as Go reads it; RegexError if Go rejects."""
    return _Translator(pattern).run()


# -- RE2 -------------------------------------------------------------------------------------------
class Regex:
    """A compiled pattern: an RE2 program, matched on the UTF-8 bytes of the text."""

    __slots__ = ("_anchor", "_match", "pattern")

    def __init__(self, pattern: str, compiled: Any, unanchored: Any) -> None:
        self.pattern = pattern
        self._match = compiled._regexp.Match  # (anchor, bytes, pos, endpos) -> [(lo, hi)]
        self._anchor = unanchored

    def search(self, text: str) -> bool:
        b = text.encode("utf-8", "surrogatepass")
        return self._match(self._anchor, b, 0, len(b))[0][0] >= 0

    def find(self, text: str) -> str:
        b = text.encode("utf-8", "surrogatepass")
        lo, hi = self._match(self._anchor, b, 0, len(b))[0]
        return b[lo:hi].decode("utf-8", "surrogatepass") if lo >= 0 else ""

    def find_all(self, text: str, limit: int = -1) -> list[str]:
        """Go's ``FindAllString(text, limit)``: an empty match abutting the previous one is skipped."""
        b = text.encode("utf-8", "surrogatepass")
        out: list[str] = []
        pos, end, prev_end = 0, len(b), -1
        while pos <= end and (limit < 0 or len(out) < limit):
            lo, hi = self._match(self._anchor, b, pos, end)[0]
            if lo < 0:
                break
            accept = True
            if hi == lo:
                if lo == prev_end:
                    accept = False
                pos = lo + _width(b, lo) if lo < end else end + 1
            else:
                pos = hi
            prev_end = hi
            if accept:
                out.append(b[lo:hi].decode("utf-8", "surrogatepass"))
        return out


def _width(b: bytes, i: int) -> int:
    c = b[i]
    n = 1 if c < 0xC0 else 2 if c < 0xE0 else 3 if c < 0xF0 else 4
    return min(n, len(b) - i)


_RE2_CODES = {"pattern too large - compile failed": "expression too large"}


@lru_cache(maxsize=_CACHED)
def compile_regex(pattern: str) -> Regex:
    """Compile as Go's ``regexp.Compile`` (syntax) on RE2 (linear-time matching)."""
    import re2

    translated = translate(pattern)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in pattern):
        raise RegexError("invalid UTF-8", pattern)
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    options.max_mem = _RE2_MAX_MEM
    try:
        compiled = re2.compile(translated, options)
    except re2.error as e:  # Go accepted it; RE2-C++'s limits are the only other reason
        msg = e.args[0].decode() if e.args and isinstance(e.args[0], bytes) else str(e)
        raise RegexError(_RE2_CODES.get(msg.split(":")[0], "expression too large"), pattern) from None
    return Regex(pattern, compiled, re2._Anchor.UNANCHORED)


def _regex(p: str) -> Regex:
    try:
        return compile_regex(p)
    except RegexError as e:
        raise EvalError(f"error parsing regexp: {e}") from None


def matches(s: Any, p: Any) -> bool:
    if type(s) is not str or type(p) is not str:
        raise no_overload("matches")
    return _regex(p).search(s)


def find(s: Any, p: Any) -> str:
    if type(s) is not str or type(p) is not str:
        raise no_overload("find")
    return _regex(p).find(s)


def find_all(s: Any, p: Any, *n: Any) -> list[str]:
    if type(s) is not str or type(p) is not str or (n and type(n[0]) is not int):
        raise no_overload("findAll")
    limit = n[0] if n else -1
    if limit == 0:
        return []
    return _regex(p).find_all(s, limit if limit > 0 else -1)
