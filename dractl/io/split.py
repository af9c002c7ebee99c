"""Turn parsed documents into objects: mapping documents, ``kind: List`` items, the snapshot header."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from dractl.errors import InputError, SourcePos
from dractl.io.documents import LoadedDoc, LoadResult
from dractl.io.positions import SourceText
from dractl.io.snapshot_header import SNAPSHOT_API_VERSION, SNAPSHOT_KIND, header_errors
from dractl.io.yamlparse import Document, Packed, unpacked
from dractl.model.origin import Origin

_TYPE_NAMES = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


def is_list(raw: dict[str, Any]) -> bool:
    """``kind: List`` (kubectl's output) or an API list (``ResourceSliceList``) with ``items``."""
    kind = raw.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in raw


class Splitter:
    """Adds the objects of each parsed input to one :class:`LoadResult`."""

    def __init__(self, result: LoadResult) -> None:
        self.result = result
        self.header_file: str | None = None
        self.non_empty = 0

    def add_documents(self, name: str, documents: Iterable[Document], source: SourceText) -> int:
        """Add every object of ``documents``; returns how many documents were not empty."""
        self.result.docs.extend(self.objects(name, documents, source))
        return self.non_empty

    def objects(self, name: str, documents: Iterable[Document], source: SourceText) -> Iterator[LoadedDoc]:
        """The objects of ``documents`` one at a time (problems go to the result's errors);
        ``non_empty`` counts the documents that were not empty, once the iteration is done."""
        self.non_empty = 0
        for index, doc in enumerate(documents):
            value = doc.value
            if value is None:
                self.result.empty_documents += 1
                continue
            self.non_empty += 1
            if type(value) is dict and not is_list(value):
                _unpack_items(value)  # a mapping with items that is not a List: whole again
            pos = SourcePos(name, index, doc.line)
            if not isinstance(value, dict):
                what = _TYPE_NAMES.get(type(value), type(value).__name__)
                self._error(f"document {index + 1} is {what}, not a Kubernetes object (a mapping)", pos)
            elif is_snapshot(value):
                self._header(name, index, self.non_empty, value, pos, source)
            elif is_list(value):
                yield from self._list_items(name, index, doc, source)
            else:
                yield LoadedDoc(value, Origin(name, index), tuple(doc.duplicate_keys), source)

    def _error(self, message: str, pos: SourcePos, fld: str | None = None) -> None:
        self.result.errors.append(InputError(message, pos, fld))

    def _header(
        self, name: str, index: int, ordinal: int, raw: dict[str, Any], pos: SourcePos, source: SourceText
    ) -> None:
        if ordinal != 1:
            self._error("a snapshot header must be the first document of its file", pos)
            return
        if self.header_file is not None:
            self._error(f"more than one snapshot (the first is {self.header_file})", pos)
            return
        problems = header_errors(raw)
        for fld, message in problems:
            line, col = source.position(index, None, fld)
            self._error(message, SourcePos(name, index, line, col), fld)
        if not problems:
            self.header_file = name
            self.result.snapshot_header = raw

    def _list_items(self, name: str, index: int, doc: Document, source: SourceText) -> Iterator[LoadedDoc]:
        items = doc.value.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            line, col = source.position(index, None, "items")
            self._error("expected a list of objects", SourcePos(name, index, line, col), "items")
            return
        for i, item in enumerate(items):
            item = unpacked(item)  # one at a time: a List is never unpacked whole (yamlparse.Packed)
            prefix = f"items[{i}]"
            if not isinstance(item, dict):
                line, col = source.position(index, i, "")
                what = _TYPE_NAMES.get(type(item), "null" if item is None else type(item).__name__)
                self._error(
                    f"list item is {what}, not a Kubernetes object (a mapping)",
                    SourcePos(name, index, line, col),
                    prefix,
                )
                continue
            dups = tuple(
                (path[len(prefix) :].lstrip("."), line, col)
                for path, line, col in doc.duplicate_keys
                if path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in (".", "[")
            )
            yield LoadedDoc(item, Origin(name, index, i), dups, source)


def _unpack_items(raw: dict[str, Any]) -> None:
    items = raw.get("items")
    if type(items) is list and any(type(i) is Packed for i in items):
        items[:] = [unpacked(i) for i in items]


def is_snapshot(raw: dict[str, Any]) -> bool:
    api = raw.get("apiVersion")
    return raw.get("kind") == SNAPSHOT_KIND and (
        api == SNAPSHOT_API_VERSION or (isinstance(api, str) and api.startswith("dractl/"))
    )
