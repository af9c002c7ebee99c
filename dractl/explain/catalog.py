"""Look-ups over a world that explanations need: devices by id, who holds them,
what they publish.  Built once per explanation, lazily, from immutable data."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from dractl.io.world import World
from dractl.model import objects as o


@dataclass
class Catalog:
    """Indexes over one world.  ``holders`` maps ``driver/pool/device`` to the claims
    (``ns/name``) whose allocation uses it."""

    world: World
    devices: dict[str, tuple[o.Device, o.ResourceSlice]] = field(default_factory=dict)
    holders: dict[str, list[str]] = field(default_factory=dict)
    pools: dict[str, list[o.ResourceSlice]] = field(default_factory=dict)
    by_node: dict[str, list[o.Device]] = field(default_factory=dict)

    @classmethod
    def of(cls, world: World) -> Catalog:
        cat = cls(world)
        for s in world.slices:
            cat.pools.setdefault(f"{s.driver}/{s.pool.name}", []).append(s)
            for d in s.devices:
                cat.devices[d.id] = (d, s)
                node = s.node_name or d.node_name
                if node:
                    cat.by_node.setdefault(node, []).append(d)
        holders: dict[str, list[str]] = defaultdict(list)
        for c in world.claims:
            for r in c.allocation.results if c.allocation else ():
                holders[r.device_id].append(c.meta.key)
        cat.holders = dict(holders)
        return cat

    def device(self, device_id: str) -> o.Device | None:
        entry = self.devices.get(device_id)
        return entry[0] if entry else None

    def node_devices(self, node: str | None) -> list[o.Device]:
        """Devices of slices that name this node (node-local ones only)."""
        return list(self.by_node.get(node, ())) if node else []

    def counter_set_users(self, pool_id: str, counter_set: str) -> list[str]:
        """Ids of the pool's devices that consume from ``counter_set``."""
        out = []
        for s in self.pools.get(pool_id, ()):
            for d in s.devices:
                if any(c.counter_set == counter_set for c in d.consumes_counters):
                    out.append(d.id)
        return out

    def pool_slices(self, pool_id: str) -> tuple[int, int]:
        """(slices seen at the newest generation, resourceSliceCount they declare)."""
        members = self.pools.get(pool_id, [])
        if not members:
            return 0, 0
        newest = max(s.pool.generation for s in members)
        current = [s for s in members if s.pool.generation == newest]
        return len(current), max(s.pool.resource_slice_count for s in current)


def qualified_names(devices: list[o.Device], kind: str) -> Counter[str]:
    """``domain/name`` of every attribute (``kind="attributes"``) or capacity the
    devices publish, with how many devices publish it.  Unqualified names belong to
    the device's driver domain, as CEL sees them."""
    counts: Counter[str] = Counter()
    for d in devices:
        names = d.attributes if kind == "attributes" else d.capacity
        for name in names:
            counts[name if "/" in name else f"{d.driver}/{name}"] += 1
    return counts


def attribute_value(device: o.Device, qualified: str) -> object | None:
    """The value of a qualified attribute on a device (None when absent)."""
    domain, _, name = qualified.rpartition("/")
    attr = device.attributes.get(qualified)
    if attr is None and domain == device.driver:
        attr = device.attributes.get(name)
    return attr.value if attr is not None else None
