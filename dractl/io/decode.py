"""From bytes to parsed documents: encoding checks, JSON and YAML parsing, error wording.

Only UTF-8 text is accepted (a UTF-8 byte-order mark is dropped).  UTF-16/32,
binary data and control characters are refused with the line and column of
the first offending byte.  ``.json`` files are parsed by the json module
(exact JSON numbers and escapes); everything else by :mod:`dractl.io.yamlparse`.
"""

from __future__ import annotations

import codecs
import json
import re
from array import array
from collections.abc import Callable, Iterator
from typing import Any

from dractl.errors import InputError, SourcePos
from dractl.io.positions import SourceText
from dractl.io.scalars import format_path
from dractl.io.yamlparse import MAX_DEPTH, Document, ParseError, Stream, pack, stream_documents

scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

DEFAULT_MAX_INPUT_SIZE = 128 * 1024 * 1024  # the CLI default too (cli/options.py)

# Characters YAML 1.1 does not allow in a stream (c-printable's complement), and NUL.
_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def human_size(n: int) -> str:
    """``536870912`` -> ``"512 MB"`` (binary megabytes, as ``--max-input-size`` counts)."""
    if n < 1024 * 1024:
        return f"{n:,} bytes"
    return f"{n / (1024 * 1024):.1f}".removesuffix(".0") + " MB"


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def decode(data: bytes, name: str) -> str:
    """UTF-8 bytes to text; InputError for other encodings, binary data and control characters."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            raise InputError(
                f"not UTF-8: the input starts with a {encoding} byte-order mark "
                f"(convert it, e.g. iconv -f {encoding} -t UTF-8)",
                SourcePos(name, 0, 1, 1),
            )
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    nul = data.find(b"\0")
    if nul >= 0:
        line, col = _line_col(data.decode("latin-1"), nul)
        raise InputError(
            "binary data, not YAML or JSON text (NUL byte; UTF-16 without a byte-order mark?)",
            SourcePos(name, 0, line, col),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col(data[: e.start].decode("utf-8", "replace"), e.start)
        bad = data[e.start : e.start + 1].hex()
        raise InputError(
            f"not UTF-8: byte 0x{bad} is not valid UTF-8 (binary data, or another encoding such as Latin-1?)",
            SourcePos(name, 0, line, col),
        ) from None
    m = _BAD_CHAR.search(text)
    if m is not None:
        line, col = _line_col(text, m.start())
        raise InputError(
            f"control character U+{ord(m.group()):04X} is not allowed in YAML/JSON text (binary data?)",
            SourcePos(name, 0, line, col),
        )
    return text


def parse_text(
    text: str, name: str, is_json: bool, source: SourceText
) -> tuple[list[Document], InputError | None]:
    """Parse every document; the error (if any) is the first problem, as a one-line InputError.
    Documents before a YAML syntax error are still returned."""
    problems: list[InputError] = []
    documents = list(iter_text(text, name, is_json, source, problems))
    return documents, (problems[0] if problems else None)


def iter_text(
    text: str,
    name: str,
    is_json: bool,
    source: SourceText,
    problems: list[InputError],
    *,
    pack_items: bool = False,
) -> Iterator[Document]:
    """The documents of ``text`` one at a time (see :func:`parse_text`); the first problem is
    appended to ``problems`` when the stream ends.  ``source`` learns where each document starts
    and ends as it is read, so positions can be asked for before the whole text is parsed."""
    if not text.strip():
        return
    if is_json:
        yield from _parse_json(text, name, source, problems, pack_items=pack_items)
        return
    state = Stream([])
    source.starts, source.ends = state.starts, state.ends
    yield from stream_documents(text, state, pack_items=pack_items)
    if state.error is not None:
        problems.append(_input_error(state.error, text, name))


def _input_error(err: ParseError, text: str, name: str) -> InputError:
    template = _TEMPLATE.search(text)
    if template is not None:  # a template rarely parses; say why, not where libyaml gave up
        line, col = _line_col(text, template.start())
        return InputError(
            f"not YAML: looks like a Go template ({template.group()[:40]} at line {line}); render it first",
            SourcePos(name, err.document, line, col),
        )
    return InputError(err.message, SourcePos(name, err.document, err.line, err.column))


def _parse_json(
    text: str, name: str, source: SourceText, problems: list[InputError], *, pack_items: bool = False
) -> Iterator[Document]:
    """A JSON file: one value, or a stream of values (``jq -c`` output, a JSON snapshot), each
    a document.  Values before a syntax error are yielded; the error goes to ``problems``.

    ``pack_items``: a top-level object's ``items`` list (``kubectl get -o json``: a ``List``,
    whose ``kind`` comes after its items) is read one item at a time, each item checked (depth,
    duplicate keys) and kept as :class:`~dractl.io.yamlparse.Packed` with its span in the text
    (``source.item_spans``), so the List is never in memory whole and a position inside an item
    composes just that item.  Errors read exactly as the json module's."""
    dup_maps: dict[int, list[str]] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)  # first position, last value: as assigning one by one
        if len(out) != len(items):  # a key repeated: note each repetition
            seen: set[str] = set()
            for k, _ in items:
                if k in seen:
                    dup_maps.setdefault(id(out), []).append(k)
                seen.add(k)
        return out

    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=_no_constant)
    source.starts, source.ends = [], []
    index = _skip_space(text, 0)
    line, counted, n = 1, 0, 0
    while index < len(text):
        line += text.count("\n", counted, index)  # incremental: many small values stay linear
        counted = index
        col = index - (text.rfind("\n", 0, index) + 1) + 1
        source.starts.append((index, line - 1, col - 1))
        lister = (
            _ListReader(text, n, decoder, dup_maps, source) if pack_items and text[index] == "{" else None
        )
        try:
            if lister is not None:
                value, index = lister.read(index, pairs)
            else:
                value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as e:
            problems.append(InputError(f"invalid JSON: {e.msg}", SourcePos(name, n, e.lineno, e.colno)))
            return
        except RecursionError:
            problems.append(
                InputError(f"nesting deeper than {MAX_DEPTH} levels", SourcePos(name, n, line, col))
            )
            return
        except ValueError as e:
            problems.append(InputError(f"invalid JSON: {e}", SourcePos(name, n, line, col)))
            return
        except _TooDeep as e:
            problems.append(
                InputError(f"nesting deeper than {MAX_DEPTH} levels", SourcePos(name, n, *e.args))
            )
            return
        source.ends.append(index)
        deep = _too_deep(value)
        if deep is not None:
            dline, dcol = source.position(n, None, deep)
            if dline is None:  # the field can't be located: point at the document's start
                dline, dcol = line, col
            where = SourcePos(name, n, dline, dcol)
            problems.append(InputError(f"nesting deeper than {MAX_DEPTH} levels", where))
            return
        dups = _json_duplicates(value, n, dup_maps, source) if dup_maps else []
        if lister is not None and lister.dups:
            dups = sorted([*dups, *lister.dups], key=lambda d: (d[1], d[2]))
        dup_maps.clear()
        yield Document(value, line, dups)
        n += 1
        index = _skip_space(text, index)


class _TooDeep(Exception):
    """A List item nests past MAX_DEPTH: args are the 1-based (line, column) to report."""


_WS = " \t\n\r"


class _ListReader:
    """One top-level JSON object read as the json module reads it (same steps, same error
    messages and offsets), except that the items of its ``items`` array are read one at a
    time: each is checked (depth, duplicate keys, with exact positions), packed, and its span
    recorded in ``source.item_spans[document]`` (start, end, 0-based line, 0-based column)."""

    def __init__(
        self,
        text: str,
        document: int,
        decoder: json.JSONDecoder,
        dup_maps: dict[int, list[str]],
        source: SourceText,
    ) -> None:
        self.text = text
        self.document = document
        self.scan: Callable[[str, int], tuple[Any, int]] = decoder.scan_once  # type: ignore[attr-defined]
        self.dup_maps = dup_maps
        self.source = source
        self.dups: list[tuple[str, int, int]] = []
        self.line = 1  # 1-based line of ``counted``
        self.counted = 0

    def _value(self, end: int) -> tuple[Any, int]:
        try:
            return self.scan(self.text, end)
        except StopIteration as err:
            raise json.JSONDecodeError("Expecting value", self.text, err.value) from None

    def read(self, end: int, pairs: Any) -> tuple[Any, int]:
        """The object starting at ``text[end] == "{"``; returns (value, index after it)."""
        s, skip = self.text, _skip_space
        end += 1
        found: list[tuple[str, Any]] = []
        nextchar = s[end : end + 1]
        if nextchar != '"':
            if nextchar in _WS:
                end = skip(s, end)
                nextchar = s[end : end + 1]
            if nextchar == "}":
                return pairs(found), end + 1
            if nextchar != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", s, end)
        end += 1
        while True:
            key, end = scanstring(s, end, True)
            if s[end : end + 1] != ":":
                end = skip(s, end)
                if s[end : end + 1] != ":":
                    raise json.JSONDecodeError("Expecting ':' delimiter", s, end)
            end = skip(s, end + 1)
            if key == "items" and s[end : end + 1] == "[":
                value, end = self._items(end)
            else:
                value, end = self._value(end)
            found.append((key, value))
            end = skip(s, end)
            nextchar = s[end : end + 1]
            end += 1
            if nextchar == "}":
                break
            if nextchar != ",":
                raise json.JSONDecodeError("Expecting ',' delimiter", s, end - 1)
            end = skip(s, end)
            nextchar = s[end : end + 1]
            end += 1
            if nextchar != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", s, end - 1)
        return pairs(found), end

    def _items(self, end: int) -> tuple[list[Any], int]:
        """The array at ``text[end] == "["``, its items packed one by one."""
        s, skip = self.text, _skip_space
        spans = array("q")
        self.source.item_spans[self.document] = spans  # a repeated "items" key: the last one wins
        self.dups = [d for d in self.dups if not d[0].startswith("items[")]
        items: list[Any] = []
        end = skip(s, end + 1)
        if s[end : end + 1] == "]":
            return items, end + 1
        outer = dict(self.dup_maps)  # the maps of the enclosing object, kept apart from the items'
        while True:
            start = end
            self.dup_maps.clear()
            item, end = self._value(end)
            line, col = self._line_col(start)
            spans.extend((start, end, line - 1, col - 1))
            i = len(items)
            deep = _too_deep(item, 2)
            if deep is not None:
                dline, dcol = self.source.position(self.document, i, deep)
                raise _TooDeep(*((dline, dcol) if dline is not None else (line, col)))
            if self.dup_maps:
                self.dups += _json_duplicates(item, self.document, self.dup_maps, self.source, i)
            items.append(pack(item) if type(item) is dict or type(item) is list else item)
            del item
            nextchar = s[end : end + 1]
            if nextchar in _WS:
                end = skip(s, end + 1)
                nextchar = s[end : end + 1]
            end += 1
            if nextchar == "]":
                break
            if nextchar != ",":
                raise json.JSONDecodeError("Expecting ',' delimiter", s, end - 1)
            end = skip(s, end)
        self.dup_maps.clear()
        self.dup_maps.update(outer)
        return items, end

    def _line_col(self, index: int) -> tuple[int, int]:
        s = self.text
        self.line += s.count("\n", self.counted, index)
        self.counted = index
        return self.line, index - (s.rfind("\n", 0, index) + 1) + 1


def _skip_space(text: str, index: int) -> int:
    m = _JSON_SPACE.match(text, index)
    return m.end() if m is not None else index


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _walk(value: Any) -> Any:
    """Yield (path segments, container) for every dict/list, iteratively."""
    stack: list[tuple[list[Any], Any]] = [([], value)]
    while stack:
        path, node = stack.pop()
        yield path, node
        if isinstance(node, dict):
            stack.extend(([*path, k], v) for k, v in node.items() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(([*path, i], v) for i, v in enumerate(node) if isinstance(v, dict | list))


def _too_deep(value: Any, base: int = 0) -> str | None:
    """The path of the first container nested MAX_DEPTH deep, or None.  Depths are counted
    without building paths (the usual answer is None); the path only when there is one.
    ``base``: the depth of ``value`` itself (2 for a List's item); the path is from ``value``."""
    stack = [(value, base)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth >= MAX_DEPTH:
            break
        t = type(node)
        if t is dict:
            for v in node.values():
                if type(v) is dict or type(v) is list:
                    push((v, depth + 1))
        elif t is list:
            for v in node:
                if type(v) is dict or type(v) is list:
                    push((v, depth + 1))
    else:
        return None
    for path, _ in _walk(value):
        if len(path) + base >= MAX_DEPTH:
            return format_path(path)
    return None


def _json_duplicates(
    value: Any,
    document: int,
    dup_maps: dict[int, list[str]],
    source: SourceText,
    item: int | None = None,
) -> list[tuple[str, int, int]]:
    """(field path, line, column) of each repeated key in ``value``: the document, or its
    List item ``item`` (then the paths start with ``items[item]``)."""
    out = []
    prefix: list[Any] = [] if item is None else ["items", item]
    for path, node in _walk(value):
        for key in dup_maps.get(id(node), ()) if isinstance(node, dict) else ():
            line, col = source.position(document, item, format_path([*path, key]))
            out.append((format_path([*prefix, *path, key]), line or 0, col or 0))
    return out
