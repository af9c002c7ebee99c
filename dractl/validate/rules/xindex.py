"""The object index the cross-object lint works on (inputs plus context objects)."""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dractl.validate.rules.ctx import as_list, as_map, as_str
from dractl.validate.rules.internal import to_internal


class Located(Protocol):
    """Where an object was read: its origin and the position of a field path."""

    @property
    def origin(self) -> Any: ...

    def position(self, path: str = "") -> tuple[int | None, int | None]: ...


class DocLike(Located, Protocol):
    """What lint needs of a loaded document (``dractl.io.LoadedDoc``)."""

    @property
    def raw(self) -> dict[str, Any]: ...


class Entry:
    """One object: where it was read (``doc``), its internal (v1-shaped) form (``obj``), and
    whether it was an input.  A *packed* entry keeps ``obj`` as compressed bytes and unpacks it
    when a rule asks (a few recently used ones stay unpacked): that is what lets the
    cross-object checks run over inputs far bigger than their Python objects would be."""

    __slots__ = ("_cache", "_obj", "_packed", "doc", "is_input", "kind", "name", "namespace")

    def __init__(self, doc: Located, obj: Mapping[str, Any], is_input: bool) -> None:
        self.doc = doc
        self.is_input = is_input
        self._obj: Mapping[str, Any] | None = obj
        self._packed: bytes | None = None
        self._cache: _Unpacked | None = None
        meta = as_map(obj.get("metadata"))
        self.kind = as_str(obj.get("kind"))
        self.name = as_str(meta.get("name"))
        self.namespace = as_str(meta.get("namespace"))

    @classmethod
    def packed(cls, doc: Located, obj: Mapping[str, Any], is_input: bool, cache: _Unpacked) -> Entry:
        entry = cls(doc, obj, is_input)
        try:
            entry._packed = zlib.compress(marshal.dumps(obj), 1)  # type: ignore[arg-type]
        except ValueError:  # not plain data (marshal refuses): keep it as it is
            return entry
        entry._obj, entry._cache = None, cache
        return entry

    @property
    def obj(self) -> Mapping[str, Any]:
        if self._obj is not None:
            return self._obj
        assert self._cache is not None and self._packed is not None
        return self._cache.get(self, self._packed)

    @property
    def spec(self) -> Mapping[str, Any]:
        return as_map(self.obj.get("spec"))


class _Unpacked:
    """The last few unpacked objects of packed entries (a rule looks at one entry many times
    in a row, and at all of them once per rule)."""

    KEEP = 32

    def __init__(self) -> None:
        self._objs: dict[int, Mapping[str, Any]] = {}

    def get(self, entry: Entry, packed: bytes) -> Mapping[str, Any]:
        key = id(entry)
        obj = self._objs.get(key)
        if obj is None:
            obj = marshal.loads(zlib.decompress(packed))
            if len(self._objs) >= self.KEEP:
                del self._objs[next(iter(self._objs))]
            self._objs[key] = obj
        return obj


@dataclass
class Index:
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def build(cls, docs: Sequence[DocLike], context: Sequence[DocLike]) -> Index:
        out = cls()
        for is_input, group in ((True, docs), (False, context)):
            for doc in group:
                entry = entry_of(doc, is_input)
                if entry is not None:
                    out.entries.append(entry)
        return out

    def of(self, *kinds: str) -> Iterator[Entry]:
        return (e for e in self.entries if e.kind in kinds)

    def slices(self) -> list[Entry]:
        return list(self.of("ResourceSlice"))

    def devices_from(self) -> str:
        """Where the slices' devices came from, for messages: "in the inputs", "in the
        cluster context" (``--cluster``, ``--snapshot``) or both."""
        origins = {e.is_input for e in self.of("ResourceSlice")}
        if origins == {False}:
            return "in the cluster context"
        if origins == {True, False}:
            return "in the inputs and the cluster context"
        return "in the inputs"

    def classes(self) -> dict[str, Entry]:
        return {e.name: e for e in self.of("DeviceClass") if e.name}

    def claim_specs(self) -> Iterator[tuple[Entry, Mapping[str, Any], str]]:
        """(entry, claim spec, path of the spec) of every input claim and template."""
        for e in self.of("ResourceClaim", "ResourceClaimTemplate"):
            if not e.is_input:
                continue
            if e.kind == "ResourceClaim":
                yield e, e.spec, "spec"
            else:
                yield e, as_map(e.spec.get("spec")), "spec.spec"


def entry_of(
    doc: DocLike, is_input: bool, *, where: Located | None = None, cache: _Unpacked | None = None
) -> Entry | None:
    """The index entry of a loaded document (None when it has no kind); ``where`` replaces the
    document as the entry's origin (so that the document itself need not be kept) and ``cache``
    packs the entry (see :class:`Entry`)."""
    raw = doc.raw
    if not isinstance(raw, Mapping) or not isinstance(raw.get("kind"), str):
        return None
    obj = to_internal(raw)
    if cache is None:
        return Entry(where or doc, obj, is_input)
    return Entry.packed(where or doc, obj, is_input, cache)


def new_cache() -> _Unpacked:
    """The unpacking cache packed entries of one index share."""
    return _Unpacked()


def devices_of(spec: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """(index, device) of a slice spec's devices that are objects: a placeholder such as ``- ...``
    (a string) is a schema error of its own and is not counted as a device by any lint rule."""
    for i, dev in enumerate(as_list(spec.get("devices"))):
        if isinstance(dev, Mapping):
            yield i, dev


def requests_of(spec: Mapping[str, Any], path: str) -> Iterator[tuple[Mapping[str, Any], str, str]]:
    """(exact request or subrequest, its path, its reference name) of a claim spec."""
    for i, req in enumerate(as_list(as_map(spec.get("devices")).get("requests"))):
        req = as_map(req)
        rpath = f"{path}.devices.requests[{i}]"
        name = as_str(req.get("name"))
        if isinstance(req.get("exactly"), Mapping):
            yield req["exactly"], f"{rpath}.exactly", name
        for j, sub in enumerate(as_list(req.get("firstAvailable"))):
            sub = as_map(sub)
            yield sub, f"{rpath}.firstAvailable[{j}]", f"{name}/{as_str(sub.get('name'))}"


def selector_exprs(obj: Mapping[str, Any], path: str) -> Iterator[tuple[str, str]]:
    for k, sel in enumerate(as_list(obj.get("selectors"))):
        expr = as_map(as_map(sel).get("cel")).get("expression")
        if isinstance(expr, str) and expr:
            yield expr, f"{path}.selectors[{k}].cel.expression"
