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
from collections.abc import Iterator
from typing import Any

from dractl.errors import InputError, SourcePos
from dractl.io.positions import SourceText
from dractl.io.scalars import format_path
from dractl.io.yamlparse import MAX_DEPTH, Document, ParseError, Stream, stream_documents

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
        yield from _parse_json(text, name, source, problems)
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


def _parse_json(text: str, name: str, source: SourceText, problems: list[InputError]) -> Iterator[Document]:
    """A JSON file: one value, or a stream of values (``jq -c`` output, a JSON snapshot), each
    a document.  Values before a syntax error are yielded; the error goes to ``problems``."""
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
        try:
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
        dup_maps.clear()
        yield Document(value, line, dups)
        n += 1
        index = _skip_space(text, index)


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


def _too_deep(value: Any) -> str | None:
    """The path of the first container nested MAX_DEPTH deep, or None.  Depths are counted
    without building paths (the usual answer is None); the path only when there is one."""
    stack = [(value, 0)]
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
        if len(path) >= MAX_DEPTH:
            return format_path(path)
    return None


def _json_duplicates(
    value: Any, document: int, dup_maps: dict[int, list[str]], source: SourceText
) -> list[tuple[str, int, int]]:
    out = []
    for path, node in _walk(value):
        for key in dup_maps.get(id(node), ()) if isinstance(node, dict) else ():
            field = format_path([*path, key])
            line, col = source.position(document, None, field)
            out.append((field, line or 0, col or 0))
    return out
