"""Where a world comes from.

The engine only ever sees a :class:`~dractl.io.world.World`.  A source turns
some input into one: :class:`FileSource` (manifests, directories, ``-``) and
:class:`SnapshotSource` (a dractl snapshot) here; a live-cluster source lives with
the cluster layer and only has to implement :class:`WorldSource` — the engine
does not change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dractl.errors import InputError, SourcePos
from dractl.io.world import WORLD_KINDS, World, build_world
from dractl.model import objects as o


class WorldSource(Protocol):
    """Anything that can produce a world: files, a snapshot, a cluster."""

    def describe(self) -> str:
        """A short description for the report ("files: a.yaml, dir/", "snapshot: s.yaml")."""
        ...

    def load(self, default_namespace: str = "default") -> World:
        """Read the world.  Raises InputError (exit 2) or ClusterError (exit 3)."""
        ...


@dataclass(frozen=True, slots=True)
class FileSource:
    """Manifests: files, directories (recursive) and ``-`` for stdin."""

    paths: tuple[str, ...]

    def describe(self) -> str:
        return "files: " + ", ".join(self.paths)

    def load(self, default_namespace: str = "default") -> World:
        from dractl.io import load_paths

        result = load_paths(list(self.paths))
        raise_load_errors(result.errors)
        header = getattr(result, "snapshot_header", None)
        objects, skipped = objects_from_docs(result.docs)
        version, gates = header_facts(header)
        return build_world(
            objects,
            kube_version=version,
            kube_patch=header_patch(header),
            feature_gates=gates,
            sources=(self.describe(),),
            skipped=skipped,
            default_namespace=default_namespace,
        )


@dataclass(frozen=True, slots=True)
class SnapshotSource:
    """A dractl snapshot file (header document + objects)."""

    path: str

    def describe(self) -> str:
        return f"snapshot: {self.path}"

    def load(self, default_namespace: str = "default") -> World:
        from dractl.io.snapshot import read_snapshot

        result = read_snapshot(self.path)
        raise_load_errors(result.errors)
        objects, skipped = objects_from_docs(result.docs)
        version, gates = header_facts(result.snapshot_header)
        return build_world(
            objects,
            kube_version=version,
            kube_patch=header_patch(result.snapshot_header),
            feature_gates=gates,
            sources=(self.describe(),),
            skipped=skipped,
            default_namespace=default_namespace,
        )


def raise_load_errors(errors: Iterable[Any]) -> None:
    """The first load error as an InputError (exit 2); the loader already words them."""
    for err in errors:
        if isinstance(err, InputError):
            raise err
        if isinstance(err, Exception):
            raise InputError(str(err)) from err
        one_line = getattr(err, "one_line", None)
        raise InputError(one_line() if callable(one_line) else str(err))


def objects_from_docs(docs: Iterable[Any]) -> tuple[list[o.DRAObject], int]:
    """Model objects of the world kinds from loaded documents, and the count of skipped ones.

    Documents are anything with ``raw`` and ``origin`` (the loader's LoadedDoc).  An
    unparsable quantity is an InputError naming the file and document.
    """
    from dractl.model.build import build_object

    objects: list[o.DRAObject] = []
    skipped = 0
    for doc in docs:
        raw = doc.raw
        kind = raw.get("kind") if isinstance(raw, Mapping) else None
        if kind not in WORLD_KINDS:
            skipped += 1
            continue
        try:
            objects.append(build_object(raw, doc.origin))
        except (ValueError, KeyError) as e:
            origin = doc.origin
            path = bad_quantity_path(raw) or ""
            line, col = doc.position(path) if hasattr(doc, "position") else (None, None)
            raise InputError(
                f"{kind} {_name(raw)}: {e}", SourcePos(origin.file, origin.document, line, col), path or None
            ) from e
    return objects, skipped


def bad_quantity_path(raw: Any, path: str = "") -> str | None:
    """The field path of the first quantity that does not parse (under capacity, counters or
    consumedCapacity), e.g. ``spec.devices[0].capacity.memory.value``; None if none is found."""
    from dractl.model.quantity import Quantity

    if isinstance(raw, Mapping):
        items: Iterable[tuple[str, Any]] = ((f"{path}.{k}" if path else str(k), v) for k, v in raw.items())
    elif isinstance(raw, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(raw))
    else:
        if any(w in path for w in ("capacity", "ounters", "Capacity")) and isinstance(raw, str | int | float):
            try:
                Quantity.parse(raw)
            except ValueError:
                return path
        return None
    for sub, value in items:
        found = bad_quantity_path(value, sub)
        if found:
            return found
    return None


def header_patch(header: Any) -> int | None:
    """The patch release of a snapshot header's server version (``v1.37.1`` → 1), else None."""
    from dractl.io.snapshot_header import SnapshotHeader

    typed = SnapshotHeader.from_raw(header) if isinstance(header, Mapping) else None
    return typed.patch if typed is not None else None


def header_facts(header: Any) -> tuple[str | None, Mapping[str, bool] | None]:
    """Kubernetes minor and feature gates from a snapshot header (dict or object)."""
    if header is None:
        return None, None
    get = header.get if isinstance(header, Mapping) else (lambda k, d=None: getattr(header, k, d))
    version = get("serverVersion") or get("kubeVersion") or get("server_version")
    gates = get("featureGates") or get("feature_gates")
    minor = None
    if isinstance(version, str):
        parts = version.lstrip("v").split(".")
        minor = ".".join(parts[:2]) if len(parts) >= 2 else None
    gate_map = {str(k): bool(v) for k, v in gates.items()} if isinstance(gates, Mapping) else None
    return minor, gate_map


def _name(raw: Mapping[str, Any]) -> str:
    meta = raw.get("metadata")
    if isinstance(meta, Mapping):
        ns, name = meta.get("namespace"), meta.get("name")
        if isinstance(name, str):
            return f"{ns}/{name}" if isinstance(ns, str) and ns else name
    return "<unnamed>"
