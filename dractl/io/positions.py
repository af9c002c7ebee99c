"""Line/column of a field path inside a parsed file, computed only when asked.

Loading keeps no positions (that is what keeps big inputs fast).  The first
time a finding needs one, the file is composed again with libyaml's composer,
which keeps a start mark on every node, and the node trees are cached on the
:class:`SourceText` for later questions about the same file.

Field paths are Kubernetes-style: ``spec.devices[0].attributes.model``.  Keys
that contain dots or slashes may be written ``[gpu.nvidia.com/model]``,
``["gpu.nvidia.com/model"]`` or simply appended
(``attributes.gpu.nvidia.com/model``): the longest run of dotted parts that
names an existing key is used.
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from dractl.errors import DractlError

_Composer: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Position = tuple[int | None, int | None]
_NOT_JSON_BREAKS = {0x85: " ", 0x2028: " ", 0x2029: " "}


class SourceText:
    """One input's text, re-read on demand, and the document roots composed so far.

    ``starts`` (set by the loader) says where each document's text begins: (character index,
    0-based line, 0-based column) — for YAML the start of the document's first line.  A lookup
    composes just that document's slice of the text, so asking for a position in a 6 MB
    snapshot costs one small document, not the file.
    """

    ROOTS_KEPT = 64  # composed documents cached per file (a node tree is far bigger than its text)

    def __init__(self, name: str, reader: Callable[[], str]) -> None:
        self.name = name
        self.starts: list[tuple[int, int, int]] = [(0, 0, 0)]
        self.ends: list[int] = []  # where each document read so far ends (when the loader knows)
        # per document whose List items were read one by one (a JSON List, decode._ListReader):
        # four numbers per item -- start, end, 0-based line and column of its start
        self.item_spans: dict[int, array[int]] = {}
        self._reader = reader
        self._text: str | None = None
        # documents whose item spans come from YAML events (their items are composed with their
        # first line padded to its column), and documents where none could be found
        self._padded: set[int] = set()
        self._no_spans: set[int] = set()
        self._roots: dict[int | tuple[int, int], Node | None] = {}

    def hold(self, text: str) -> None:
        """Use ``text`` (the loader's copy, while it parses) instead of reading the input again."""
        self._text = text

    def release(self) -> None:
        """Drop the text and the composed documents; a later question reads the input again."""
        self._text = None
        self._roots.clear()

    def root(self, document: int) -> tuple[Node, tuple[int, int]] | None:
        """The document's root node and the (line, column) its slice starts at (None if unknown)."""
        if document >= len(self.starts) or document < 0:
            return None
        if document not in self._roots:
            if len(self._roots) >= self.ROOTS_KEPT:  # bounded: the oldest composed document goes
                del self._roots[next(iter(self._roots))]
            self._roots[document] = self._compose(document)
        node = self._roots[document]
        return None if node is None else (node, self.starts[document][1:])

    def _compose(self, document: int) -> Node | None:
        try:
            if self._text is None:
                self._text = self._reader()
            start = self.starts[document][0]
            if document + 1 < len(self.starts):
                end = self.starts[document + 1][0]
            elif document < len(self.ends):  # the next document is not read yet (streaming)
                end = self.ends[document]
            else:
                end = len(self._text)
            return _compose_one(self._json_lines(self._text[start:end]))
        except (yaml.YAMLError, OSError, ValueError, RecursionError, DractlError):
            return None

    def _json_lines(self, text: str) -> str:
        """JSON text as libyaml should see it: YAML also breaks lines at U+0085, U+2028 and
        U+2029, JSON (and the json module's error positions) only at newlines; in JSON those
        characters can only be inside strings, so a space in their place moves nothing else."""
        if self.name.lower().endswith(".json") and ("\x85" in text or "\u2028" in text or "\u2029" in text):
            return text.translate(_NOT_JSON_BREAKS)
        return text

    def _item_root(self, document: int, item: int) -> tuple[Node, tuple[int, int]] | None:
        """A List item read by span: its own node, composed from just its text."""
        spans = self.item_spans[document]
        if 4 * item + 3 >= len(spans):
            return None
        start, end, line, col = spans[4 * item : 4 * item + 4]
        key = (document, item)
        if key not in self._roots:
            if len(self._roots) >= self.ROOTS_KEPT:
                del self._roots[next(iter(self._roots))]
            try:
                if self._text is None:
                    self._text = self._reader()
                text = self._text[start:end]
                if document in self._padded:  # a block item starts mid-line: keep its column
                    text = " " * col + text
                    line, col = line, 0
                self._roots[key] = _compose_one(self._json_lines(text))
            except (yaml.YAMLError, OSError, ValueError, RecursionError, DractlError):
                self._roots[key] = None
        node = self._roots[key]
        if document in self._padded:
            col = 0
        return None if node is None else (node, (line, col))

    def _yaml_item_spans(self, document: int) -> None:
        """Where each item of a ``kind: List`` document's ``items`` lies, from the parser's events
        alone (no node tree): a position inside one item then composes only that item's text,
        never the whole List (a 100 MB List's nodes would need gigabytes)."""
        self._no_spans.add(document)
        if self.name.lower().endswith(".json") or document >= len(self.starts) or document < 0:
            return
        try:
            if self._text is None:
                self._text = self._reader()
            start, line0, _ = self.starts[document]
            if document + 1 < len(self.starts):
                end = self.starts[document + 1][0]
            elif document < len(self.ends):
                end = self.ends[document]
            else:
                end = len(self._text)
            spans = _item_spans(self._text[start:end])
        except (yaml.YAMLError, OSError, ValueError, RecursionError, DractlError):
            return
        if spans is None:
            return
        out = array("q")
        for s0, s1, line, col in spans:
            out.extend((start + s0, start + s1, line0 + line, col))
        self.item_spans[document] = out
        self._padded.add(document)

    def position(self, document: int, item: int | None, path: str) -> Position:
        if item is not None and document not in self.item_spans and document not in self._no_spans:
            self._yaml_item_spans(document)
        if item is not None and document in self.item_spans:
            found = self._item_root(document, item)
            if found is not None:
                return _shift(locate(found[0], path), found[1])
            if document not in self._padded:
                return None, None
        found = self.root(document)
        if found is None:
            return None, None
        node, offset = found
        if item is not None:
            items = _child(node, "items")
            if items is None or not isinstance(items[1], SequenceNode) or item >= len(items[1].value):
                return _shift(_mark(node), offset)
            node = items[1].value[item]
        return _shift(locate(node, path), offset)


def _item_spans(text: str) -> list[tuple[int, int, int, int]] | None:
    """(start, end, 0-based line, column) of each item of the root mapping's ``items`` sequence,
    from parser events; None when the root is not a mapping with such a sequence."""
    events: Any = yaml.parse(text, Loader=_Composer)  # event marks are always set by the parser
    depth = 0
    in_items = False
    want_items = False
    key_turn = True  # at depth 1: the next scalar is a key
    spans: list[tuple[int, int, int, int]] = []
    open_item: tuple[int, int, int] | None = None
    item_depth = 0
    found = False
    for event in events:
        kind = type(event)
        starts = kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent)
        ends = kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent)
        if kind in (
            yaml.StreamStartEvent,
            yaml.DocumentStartEvent,
            yaml.DocumentEndEvent,
            yaml.StreamEndEvent,
        ):
            if kind is yaml.DocumentEndEvent:
                break
            continue
        if in_items:
            if depth == item_depth and ends:  # the items sequence closes
                return spans
            if depth == item_depth:  # an item begins
                mark = event.start_mark
                if starts:
                    open_item = (mark.index, mark.line, mark.column)
                    depth += 1
                else:  # a scalar or alias item
                    spans.append((mark.index, event.end_mark.index, mark.line, mark.column))
                continue
            if starts:
                depth += 1
            elif ends:
                depth -= 1
                if depth == item_depth and open_item is not None:
                    spans.append((open_item[0], event.end_mark.index, open_item[1], open_item[2]))
                    open_item = None
            continue
        if depth == 0:
            if kind is not yaml.MappingStartEvent:
                return None
            depth = 1
            continue
        if depth == 1:
            if ends:
                break
            if key_turn:
                want_items = kind is yaml.ScalarEvent and event.value == "items"
                key_turn = False
                if starts:  # a complex key: skip it
                    return None
                continue
            key_turn = True
            if want_items and kind is yaml.SequenceStartEvent:
                in_items, found, depth, item_depth, spans = True, True, 2, 2, []
                continue
            if starts:
                depth += 1
            continue
        if starts:
            depth += 1
        elif ends:
            depth -= 1
    return spans if found else None


def _shift(pos: Position, offset: tuple[int, int]) -> Position:
    """From slice-relative to file positions (the column shifts only on the slice's first line)."""
    line, col = pos
    if line is None:
        return None, col
    if line == 1 and col is not None:
        col += offset[1]
    return line + offset[0], col


def _compose_one(text: str) -> Node | None:
    enabled = gc.isenabled()
    gc.disable()
    loader = _Composer(text)
    try:
        return loader.get_node() if loader.check_node() else None
    finally:
        loader.dispose()
        if enabled:
            gc.enable()


def _mark(node: Node) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


def parse_path(path: str) -> list[tuple[str, bool]]:
    """Split a field path into ``(text, bracketed)`` parts: ``a.b[0]["x.y"]`` ->
    ``[("a", False), ("b", False), ("0", True), ("x.y", True)]``."""
    parts: list[tuple[str, bool]] = []
    buf = ""
    i, n = 0, len(path)
    while i < n:
        c = path[i]
        if c == ".":
            if buf:
                parts.append((buf, False))
            buf = ""
            i += 1
        elif c == "[":
            if buf:
                parts.append((buf, False))
            buf = ""
            i = _bracket(path, i + 1, parts)
        else:
            buf += c
            i += 1
    if buf:
        parts.append((buf, False))
    return parts


def _bracket(path: str, i: int, parts: list[tuple[str, bool]]) -> int:
    """Read ``[...]`` starting after the ``[``; returns the index after the ``]``."""
    if i < len(path) and path[i] in "\"'":
        quote = path[i]
        end = path.find(quote, i + 1)
        if end < 0:
            end = len(path)
        parts.append((path[i + 1 : end], True))
        close = path.find("]", end)
        return len(path) if close < 0 else close + 1
    close = path.find("]", i)
    if close < 0:
        close = len(path)
    parts.append((path[i:close], True))
    return close + 1


def _child(node: Node, key: str) -> tuple[Node, Node] | None:
    """The (key node, value node) of ``key`` in a mapping node (the last one if duplicated),
    looking into ``<<`` merges when the key isn't written in the mapping itself."""
    if not isinstance(node, MappingNode):
        return None
    found = None
    merges: list[Node] = []
    for k, v in node.value:
        if isinstance(k, ScalarNode):
            if k.value == key and k.tag != "tag:yaml.org,2002:merge":
                found = (k, v)
            elif k.tag == "tag:yaml.org,2002:merge":
                merges.extend(v.value if isinstance(v, SequenceNode) else [v])
    if found is not None:
        return found
    for m in merges:
        hit = _child(m, key)
        if hit is not None:
            return hit
    return None


def locate(node: Node, path: str) -> Position:
    """Position of ``path`` below ``node``: the key for a mapping field, the item for a list
    element, ``node`` itself for ""; the nearest existing ancestor when the path doesn't exist."""
    parts = parse_path(path)
    best = _mark(node)
    i = 0
    while i < len(parts):
        text = parts[i][0]
        if isinstance(node, SequenceNode):
            if not text.isdigit() or int(text) >= len(node.value):
                return best
            node = node.value[int(text)]
            best = _mark(node)
            i += 1
            continue
        hit, used = _mapping_step(node, parts, i)
        if hit is None:
            return best
        best = _mark(hit[0])
        node = hit[1]
        i += used
    return best


def _mapping_step(node: Node, parts: list[tuple[str, bool]], i: int) -> tuple[tuple[Node, Node] | None, int]:
    """Match parts[i:] against a key of ``node``: a bracketed part alone, else the shortest run of
    unbracketed parts joined by dots that names an existing key."""
    text, bracketed = parts[i]
    if bracketed:
        return _child(node, text), 1
    key = ""
    for j in range(i, len(parts)):
        part, br = parts[j]
        if br:
            break
        key = f"{key}.{part}" if key else part
        hit = _child(node, key)
        if hit is not None:
            return hit, j - i + 1
    return None, 1
