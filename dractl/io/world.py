"""The world an explanation runs in: every object the scheduler would look at.

A :class:`World` is plain data (model objects grouped by kind) plus where it came
from.  It is built by a :class:`~dractl.io.sources.WorldSource` (files, a
snapshot, later a live cluster) and never mutated: what-if flags derive a new
world (:mod:`dractl.explain.whatif`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dractl.model import objects as o

# The kinds a world is made of; anything else in the inputs is counted and skipped.
WORLD_KINDS = (
    "Node",
    "DeviceClass",
    "ResourceSlice",
    "DeviceTaintRule",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "Pod",
)


@dataclass(frozen=True, slots=True)
class World:
    """The objects of one cluster (or of files standing for one).

    ``kube_version`` (a minor) and ``feature_gates`` come from a snapshot header (None when
    the source does not say), ``kube_patch`` the patch release of its server version when it
    gave one; ``sources`` describes where the objects came from,
    for the report; ``skipped`` counts documents of other kinds.
    """

    nodes: tuple[o.Node, ...] = ()
    device_classes: tuple[o.DeviceClass, ...] = ()
    slices: tuple[o.ResourceSlice, ...] = ()
    taint_rules: tuple[o.DeviceTaintRule, ...] = ()
    claims: tuple[o.ResourceClaim, ...] = ()
    templates: tuple[o.ResourceClaimTemplate, ...] = ()
    pods: tuple[o.Pod, ...] = ()
    kube_version: str | None = None
    feature_gates: Mapping[str, bool] | None = None
    sources: tuple[str, ...] = ()
    skipped: int = 0
    kube_patch: int | None = None
    _index: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def empty(self) -> bool:
        """True when there is nothing to allocate from (no slices and no nodes)."""
        return not self.slices and not self.nodes

    def node(self, name: str) -> o.Node | None:
        return self._lookup("node", lambda: {n.meta.name: n for n in self.nodes}).get(name)

    def device_class(self, name: str) -> o.DeviceClass | None:
        return self._lookup("class", lambda: {c.meta.name: c for c in self.device_classes}).get(name)

    def claim(self, namespace: str, name: str) -> o.ResourceClaim | None:
        return self._lookup("claim", lambda: {(c.meta.namespace, c.meta.name): c for c in self.claims}).get(
            (namespace, name)
        )

    def template(self, namespace: str, name: str) -> o.ResourceClaimTemplate | None:
        return self._lookup(
            "template", lambda: {(t.meta.namespace, t.meta.name): t for t in self.templates}
        ).get((namespace, name))

    def pod(self, namespace: str, name: str) -> o.Pod | None:
        return self._lookup("pod", lambda: {(p.meta.namespace, p.meta.name): p for p in self.pods}).get(
            (namespace, name)
        )

    def _lookup(self, key: str, build: Any) -> dict[Any, Any]:
        # The index is a cache filled on first use; the world itself stays immutable.
        if key not in self._index:
            self._index[key] = build()
        table: dict[Any, Any] = self._index[key]
        return table

    def node_names(self) -> list[str]:
        """Node names, sorted.  Without Node objects: the nodes the slices name."""
        if self.nodes:
            return sorted(n.meta.name for n in self.nodes)
        names = {s.node_name for s in self.slices if s.node_name}
        for s in self.slices:
            names.update(d.node_name for d in s.devices if d.node_name)
        return sorted(names)

    def with_objects(self, **changes: Any) -> World:
        """A copy with some kinds replaced (the index is rebuilt lazily)."""
        values = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "_index"}
        values.update(changes)
        return World(**values)


def build_world(
    objects: Iterable[o.DRAObject],
    *,
    kube_version: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    sources: Iterable[str] = (),
    skipped: int = 0,
    default_namespace: str = "default",
    kube_patch: int | None = None,
) -> World:
    """Group model objects by kind.  Namespaced objects without a namespace get
    ``default_namespace`` (as ``kubectl apply`` would)."""
    groups: dict[str, list[Any]] = {k: [] for k in WORLD_KINDS}
    for obj in objects:
        if obj.kind in ("ResourceClaim", "ResourceClaimTemplate", "Pod") and not obj.meta.namespace:
            obj = with_namespace(obj, default_namespace)
        groups[obj.kind].append(obj)
    return World(
        nodes=tuple(groups["Node"]),
        device_classes=tuple(groups["DeviceClass"]),
        slices=tuple(groups["ResourceSlice"]),
        taint_rules=tuple(groups["DeviceTaintRule"]),
        claims=tuple(groups["ResourceClaim"]),
        templates=tuple(groups["ResourceClaimTemplate"]),
        pods=tuple(groups["Pod"]),
        kube_version=kube_version,
        feature_gates=feature_gates,
        sources=tuple(sources),
        skipped=skipped,
        kube_patch=kube_patch,
    )


def with_namespace(obj: Any, namespace: str) -> Any:
    """A copy of a namespaced object placed into ``namespace``."""
    from dataclasses import replace

    return replace(obj, meta=replace(obj.meta, namespace=namespace))
