"""The object index the cross-object lint works on (inputs plus context objects)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dractl.validate.rules.ctx import as_list, as_map, as_str
from dractl.validate.rules.internal import to_internal


class DocLike(Protocol):
    """What lint needs of a loaded document (``dractl.io.LoadedDoc``)."""

    @property
    def raw(self) -> dict[str, Any]: ...

    @property
    def origin(self) -> Any: ...

    def position(self, path: str = "") -> tuple[int | None, int | None]: ...


@dataclass
class Entry:
    """One object: its document, its internal (v1-shaped) form, and whether it was an input."""

    doc: DocLike
    obj: Mapping[str, Any]
    is_input: bool

    @property
    def kind(self) -> str:
        return as_str(self.obj.get("kind"))

    @property
    def name(self) -> str:
        return as_str(as_map(self.obj.get("metadata")).get("name"))

    @property
    def namespace(self) -> str:
        return as_str(as_map(self.obj.get("metadata")).get("namespace"))

    @property
    def spec(self) -> Mapping[str, Any]:
        return as_map(self.obj.get("spec"))


@dataclass
class Index:
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def build(cls, docs: Sequence[DocLike], context: Sequence[DocLike]) -> Index:
        out = cls()
        for is_input, group in ((True, docs), (False, context)):
            for doc in group:
                raw = doc.raw
                if isinstance(raw, Mapping) and isinstance(raw.get("kind"), str):
                    out.entries.append(Entry(doc, to_internal(raw), is_input))
        return out

    def of(self, *kinds: str) -> Iterator[Entry]:
        return (e for e in self.entries if e.kind in kinds)

    def slices(self) -> list[Entry]:
        return list(self.of("ResourceSlice"))

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
