"""Safe, fast YAML parsing straight from libyaml's event stream.

Why events and not ``yaml.load``: building plain Python values from the event
stream is about twice as fast as PyYAML's constructor, and one pass gives
every safety check we need without a second walk:

* only the standard scalar/collection tags (anything else is an error: no
  arbitrary objects, no ``!Ref``-style custom tags);
* duplicate mapping keys are recorded with their field path and position;
* alias expansion is counted (an anchored node's expanded size is known when it
  closes), so a "billion laughs" document fails after a few aliases, and an
  alias to a still-open node (a recursive structure) is refused;
* nesting depth is bounded, so nothing downstream recurses into a pathological
  document (libyaml itself parses iteratively) -- also through aliases: an alias to
  an anchored node of height h, placed at depth d, is refused when d + h passes the
  limit (a chain of anchors could otherwise nest a document arbitrarily deep).

Scalars follow PyYAML's YAML 1.1 resolution (``yes`` is a bool, ``0x1f`` an
int) except timestamps, which stay strings as Kubernetes treats them.  Keys are
always strings (``1:`` becomes ``"1"``), as after Kubernetes' YAML-to-JSON step.
"""

from __future__ import annotations

import gc
import marshal
import re
import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml import events as ev

from dractl.io.scalars import MERGE, SCALARS, UnknownTag, format_path, key_text, show_tag

MAX_DEPTH = 100
ALIAS_BASE = 100_000  # expanded nodes always allowed through aliases, per document
ALIAS_RATIO = 10  # ...and beyond that, at most this many times the document's own nodes

_Parser: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# libyaml refuses a double-quoted escape of a UTF-16 surrogate ("\ud800"), which PyYAML's own
# parser reads (as a lone surrogate, as JSON's decoder does): a file that may hold one is
# parsed by the pure-Python parser, so such a string reads the same from YAML as from JSON.
_SURROGATE_ESCAPE = re.compile(r"\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")
_MAP_TAGS = frozenset({None, "!", "tag:yaml.org,2002:map"})
_SEQ_TAGS = frozenset({None, "!", "tag:yaml.org,2002:seq"})


class ParseError(Exception):
    """A YAML problem at a 1-based line/column of 0-based ``document``."""

    def __init__(self, message: str, line: int | None, column: int | None, document: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.document = document


@dataclass
class Document:
    """One parsed document: its value and the duplicate keys found in it."""

    value: Any
    line: int  # 1-based line where the document's content starts
    duplicate_keys: list[tuple[str, int, int]] = field(default_factory=list)


@dataclass
class Stream:
    """Every document parsed before the end (or before ``error``).  While
    :func:`stream_documents` runs, ``starts``/``ends`` grow one entry per document and
    ``documents`` stays empty (the documents are yielded, not kept)."""

    documents: list[Document]
    error: ParseError | None = None
    starts: list[tuple[int, int, int]] = field(default_factory=list)  # per document: (index, line, column)
    ends: list[int] = field(default_factory=list)  # per finished document: character index of its end


def parse_stream(text: str) -> Stream:
    """Parse every document of ``text``; stops at the first syntax or safety error."""
    state = Stream([])
    state.documents = list(stream_documents(text, state))
    return state


def stream_documents(text: str, state: Stream, *, pack_items: bool = False) -> Iterator[Document]:
    """The documents of ``text`` one at a time, each as soon as it is closed: only the document
    being built is in memory (plus what the caller keeps).  ``state`` receives the document
    starts and ends as they are read and, at the end, the first syntax or safety error (if any:
    the documents before it have been yielded).  ``pack_items``: the objects of a top-level
    ``items`` list (a ``kind: List``) are kept as :class:`Packed` while the rest is read (a List
    is one document: unpacked, it would be in memory whole); the caller unpacks them."""
    builder = _Builder(text, pack_items)
    builder.starts, builder.ends = state.starts, state.ends
    events = builder.documents()
    try:
        while True:
            enabled = gc.isenabled()
            gc.disable()  # hundreds of thousands of fresh containers: the cyclic GC only slows this down
            try:
                doc = next(events, None)
            finally:
                if enabled:
                    gc.enable()
            if doc is None:
                break
            yield doc
    finally:
        events.close()
        state.error = builder.error


class _Builder:
    # per-document state (set by _start_document)
    root: Any
    doc_line: int
    dups: list[tuple[str, int, int]]
    cur: Any  # the open container
    key: Any  # (key, key event) while a mapping waits for the value
    stack: list[tuple[Any, Any, Any]]  # (container, pending key, anchor info)
    anchors: dict[str, tuple[Any, int]]  # name -> (value, expanded size)
    heights: dict[str, int]  # anchor name -> nesting height of its value (0 for a scalar)
    height_memo: dict[int, int]  # id of a container inside an anchored value -> its height
    open_anchors: set[str]
    merges: dict[int, list[Any]]
    nodes: int
    expanded: int

    def __init__(self, text: str, pack: bool = False) -> None:
        self.pack = pack
        self.pack_into: list[Any] | None = None
        parser = yaml.SafeLoader if _SURROGATE_ESCAPE.search(text) else _Parser
        self.parser = parser(text)
        self.text = text
        self.starts: list[tuple[int, int, int]] = []
        self.ends: list[int] = []
        self.error: ParseError | None = None
        self.doc_index = 0

    def documents(self) -> Generator[Document, None, None]:
        """Every document, as it closes; a problem ends the stream and is kept in ``error``."""
        try:
            yield from self._events()
        except ParseError as e:
            self.error = e
        except yaml.MarkedYAMLError as e:
            self.error = self._yaml_error(e)
        except yaml.YAMLError as e:  # ReaderError and friends: no mark
            self.error = ParseError(_one_line(str(e)), None, None, self.doc_index)
        finally:
            dispose = getattr(self.parser, "dispose", None)
            if dispose is not None:
                dispose()

    def _yaml_error(self, e: yaml.MarkedYAMLError) -> ParseError:
        mark = e.problem_mark or e.context_mark
        problem = e.problem or "syntax error"
        if e.context:
            ctx_mark = e.context_mark
            where = f" started at line {ctx_mark.line + 1}" if ctx_mark is not None else ""
            problem = f"{problem} ({e.context}{where})"
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        if mark is not None and _char_at(self.text, mark.line, mark.column) == "\t":
            problem = "a tab character where YAML allows only spaces (indent with spaces)"
        return ParseError(f"invalid YAML: {_one_line(problem)}", line, col, self.doc_index)

    def _fail(self, event: Any, message: str) -> ParseError:
        mark = event.start_mark
        return ParseError(message, mark.line + 1, mark.column + 1, self.doc_index)

    def _events(self) -> Generator[Document, None, None]:
        """The event loop.  The common events (untagged, unanchored scalars and collections in
        an open mapping or sequence) are handled inline -- this loop runs once per YAML node,
        ~700,000 times for a 1,000-node snapshot; everything else goes through the methods."""
        get = self.parser.get_event
        scalar_ev, map_ev, seq_ev = ev.ScalarEvent, ev.MappingStartEvent, ev.SequenceStartEvent
        map_end, seq_end, alias_ev = ev.MappingEndEvent, ev.SequenceEndEvent, ev.AliasEvent
        doc_start, doc_end, stream_end = ev.DocumentStartEvent, ev.DocumentEndEvent, ev.StreamEndEvent
        plain, cache, merge, text_of = SCALARS.plain, SCALARS.cache, MERGE, key_text
        while True:
            event = get()
            kind = type(event)
            if kind is scalar_ev:
                if event.anchor is None and event.tag is None:
                    text = event.value
                    if event.implicit[0]:
                        value = cache.get(text, cache)
                        if value is cache:
                            value = plain(text)
                    else:
                        value = text
                    cur = self.cur
                    if type(cur) is list:
                        self.nodes += 1
                        cur.append(value)
                        continue
                    if type(cur) is dict:
                        pending = self.key
                        if pending is None:  # a scalar key
                            self.nodes += 1
                            if type(value) is not str and value is not merge:
                                value = text_of(value, text)
                            self.key = (value, event)
                            continue
                        key = pending[0]
                        if key is not merge:
                            self.nodes += 1
                            self.key = None
                            if key in cur:
                                self._duplicate(key, pending[1])
                            cur[key] = value
                            continue
                else:
                    value = self._scalar(event)
                self._add(value, event)
            elif kind is map_ev or kind is seq_ev:
                cur = self.cur
                if (
                    event.anchor is None
                    and event.tag is None
                    and type(cur) is not dict
                    and self.stack
                    and len(self.stack) < MAX_DEPTH
                ):
                    self.stack.append((cur, self.key, None))  # only inside a sequence: no key pending
                    self.cur = {} if kind is map_ev else []
                    self.key = None
                elif (
                    event.anchor is None
                    and event.tag is None
                    and type(cur) is dict
                    and self.key is not None
                    and len(self.stack) < MAX_DEPTH
                ):
                    self.stack.append((cur, self.key, None))
                    if len(self.stack) == 2 and self.pack and kind is seq_ev and self.key[0] == "items":
                        self.cur = self.pack_into = []  # a kind: List's items: packed as they close
                    else:
                        self.cur = {} if kind is map_ev else []
                    self.key = None
                else:
                    self._open(event, kind is map_ev)
            elif kind is map_end or kind is seq_end:
                stack = self.stack
                top = stack[-1] if len(stack) > 1 else None  # not the root, whose parent is None
                if top is not None and top[2] is None and not self.merges:
                    parent, pending = top[0], top[1]
                    if type(parent) is list:
                        stack.pop()
                        parent.append(pack(self.cur) if parent is self.pack_into else self.cur)
                        self.cur = parent
                        self.nodes += 1
                        continue
                    if type(parent) is dict and pending is not None and pending[0] is not merge:
                        stack.pop()
                        done, self.cur, self.key = self.cur, parent, None
                        self.nodes += 1
                        key = pending[0]
                        if key in parent:
                            self._duplicate(key, pending[1])
                        parent[key] = done
                        continue
                self._close(event)
            elif kind is alias_ev:
                self._alias(event)
            elif kind is doc_start:
                self._start_document(event)
            elif kind is doc_end:
                self.ends.append(event.end_mark.index)
                self.doc_index += 1
                yield Document(self.root, self.doc_line, self.dups)
                self.root = None
            elif kind is stream_end:
                return

    # -- document state -----------------------------------------------------------------

    def _start_document(self, event: Any) -> None:
        mark = event.start_mark
        self.starts.append((mark.index - mark.column, mark.line, 0))  # where positions.py re-reads it
        self.root = None
        self.doc_line = event.end_mark.line + 1
        self.dups = []
        self.cur = None
        self.key = None
        self.stack = []
        self.anchors = {}
        self.heights = {}
        self.height_memo = {}
        self.open_anchors = set()
        self.merges = {}
        self.nodes = 0
        self.expanded = 0
        self.pack_into = None

    def _scalar(self, event: Any) -> Any:
        tag = event.tag
        if tag is None:
            value = SCALARS.plain(event.value) if event.implicit[0] else event.value
        elif tag == "!":
            value = event.value
        else:
            try:
                value = SCALARS.tagged(tag, event.value)
            except UnknownTag:
                raise self._fail(
                    event,
                    f"unsupported YAML tag {show_tag(tag)}: dractl reads plain YAML "
                    "(strings, numbers, booleans, null, mappings, sequences)",
                ) from None
            except (ValueError, KeyError, yaml.YAMLError):
                raise self._fail(event, f"invalid value {event.value!r} for tag {show_tag(tag)}") from None
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        return value

    def _add(self, value: Any, event: Any) -> None:
        """Place a finished value into the open container (or make it the document root)."""
        self.nodes += 1
        cur = self.cur
        if type(cur) is list:
            cur.append(value)
        elif cur is None:
            self.root = value
            if type(value) is not dict and type(value) is not list:
                self.doc_line = event.start_mark.line + 1
        elif self.key is None:
            if isinstance(value, dict | list):
                raise self._fail(event, "a mapping key must be a scalar, not a mapping or sequence")
            key = value if value is MERGE else key_text(value, getattr(event, "value", ""))
            self.key = (key, event)
        else:
            key, key_event = self.key
            self.key = None
            if key is MERGE:
                self._merge_value(value, key_event)
            else:
                if key in cur:
                    self._duplicate(key, key_event)
                cur[key] = value

    def _open(self, event: Any, mapping: bool) -> None:
        if event.tag not in (_MAP_TAGS if mapping else _SEQ_TAGS):
            raise self._fail(
                event,
                f"unsupported YAML tag {show_tag(event.tag)}: dractl reads plain YAML "
                "(strings, numbers, booleans, null, mappings, sequences)",
            )
        if self.cur is not None and type(self.cur) is dict and self.key is None:
            raise self._fail(event, "a mapping key must be a scalar, not a mapping or sequence")
        if not self.stack:
            self.doc_line = event.start_mark.line + 1
        if len(self.stack) >= MAX_DEPTH:
            raise self._fail(event, f"nesting deeper than {MAX_DEPTH} levels")
        anchor = None
        if event.anchor is not None:
            anchor = (event.anchor, self.nodes, self.expanded)
            self.open_anchors.add(event.anchor)
        self.stack.append((self.cur, self.key, anchor))
        self.cur = {} if mapping else []
        self.key = None
        if anchor is not None:
            self.anchors[event.anchor] = (self.cur, 0)

    def _close(self, event: Any) -> None:
        done = self.cur
        if type(done) is dict and self.merges:
            self._apply_merges(done)
        self.cur, self.key, anchor = self.stack.pop()
        self._add(done, event)
        if anchor is not None:
            name, nodes0, expanded0 = anchor
            self.anchors[name] = (done, (self.nodes - nodes0) + (self.expanded - expanded0))
            self.heights[name] = _height(done, self.height_memo)
            self.open_anchors.discard(name)

    def _alias(self, event: Any) -> None:
        name = event.anchor
        if name in self.open_anchors:
            raise self._fail(event, f"alias *{name} refers to a node that contains it (recursive structure)")
        if name not in self.anchors:
            raise self._fail(event, f"alias *{name} refers to an undefined anchor")
        value, size = self.anchors[name]
        if len(self.stack) + self.heights.get(name, 0) > MAX_DEPTH:
            raise self._fail(event, f"nesting deeper than {MAX_DEPTH} levels (through alias *{name})")
        self.expanded += size
        if self.expanded > ALIAS_BASE and self.expanded > ALIAS_RATIO * self.nodes:
            raise self._fail(
                event,
                f"aliases expand to more than {self.expanded:,} nodes "
                "(a 'billion laughs' document?); refusing to expand",
            )
        self._add(value, event)
        self.nodes -= 1  # the alias itself was counted in expanded

    # -- duplicate keys and merges ------------------------------------------------------------

    def _segments(self) -> list[Any]:
        """Path segments of the container now open (``self.cur``) from the document root."""
        segments: list[Any] = []
        for parent, pending, _ in self.stack[1:]:
            if type(parent) is list:
                segments.append(len(parent))
            else:
                segments.append(pending[0] if pending is not None else "?")
        return segments

    def _duplicate(self, key: str, key_event: Any) -> None:
        mark = key_event.start_mark
        self.dups.append((format_path([*self._segments(), key]), mark.line + 1, mark.column + 1))

    def _merge_value(self, value: Any, key_event: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(s, dict) for s in sources):
            raise self._fail(key_event, "the merge key << needs a mapping or a list of mappings")
        self.merges.setdefault(id(self.cur), []).extend(sources)

    def _apply_merges(self, mapping: dict[str, Any]) -> None:
        sources = self.merges.pop(id(mapping), None)
        if not sources:
            return
        for source in sources:  # earlier sources win, explicit keys win over all
            for k, v in source.items():
                mapping.setdefault(k, v)


class Packed:
    """A finished mapping or list, compressed (marshal + zlib: about a seventh of its text)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def unpack(self) -> Any:
        return marshal.loads(zlib.decompress(self.data))


def pack(value: Any) -> Any:
    """``value`` as :class:`Packed` (itself when it is not plain data)."""
    try:
        return Packed(zlib.compress(marshal.dumps(value), 1))
    except ValueError:
        return value


def unpacked(value: Any) -> Any:
    return value.unpack() if type(value) is Packed else value


def _height(value: Any, memo: dict[int, int]) -> int:
    """Nesting height of a value (0 for a scalar, 1 for a flat mapping or list), bottom-up and
    iteratively; ``memo`` (id -> height) makes subtrees shared through aliases count once."""
    if type(value) is not dict and type(value) is not list:
        return 0
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in memo:
            continue
        children = [
            c for c in (node.values() if type(node) is dict else node) if type(c) is dict or type(c) is list
        ]
        if expanded:
            memo[id(node)] = 1 + max((memo[id(c)] for c in children), default=0)
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
    return memo[id(value)]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _char_at(text: str, line: int, column: int) -> str:
    """The character at 0-based ``line``/``column`` (libyaml counts characters), or ""."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    return text[start + column : start + column + 1]
