"""What-if: derive the world an admin asks about from the real one.

Each flag is one pure function World -> World, so the answer under a what-if is
exactly the answer the matcher gives on the modified world (the tests check
that).  Feature gates are not part of the world: they go to the matcher as
:class:`~dractl.model.features.Features`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from dractl.io.world import World
from dractl.model import objects as o


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The what-if flags.  All off means "the world as it is"."""

    ignore_allocations: bool = False
    ignore_taints: bool = False
    without_nodes: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.ignore_allocations or self.ignore_taints or bool(self.without_nodes)

    def to_dict(self) -> dict[str, object]:
        return {
            "ignoreAllocations": self.ignore_allocations,
            "ignoreTaints": self.ignore_taints,
            "withoutNodes": list(self.without_nodes),
        }


def apply(world: World, whatif: WhatIf) -> World:
    """The world under ``whatif`` (the same object when nothing is asked)."""
    if whatif.ignore_allocations:
        world = without_allocations(world)
    if whatif.ignore_taints:
        world = without_taints(world)
    if whatif.without_nodes:
        world = without_nodes(world, whatif.without_nodes)
    return world


def without_allocations(world: World) -> World:
    """As if no claim held any device: allocations and reservations dropped."""
    claims = tuple(replace(c, allocation=None, reserved_for=()) if c.allocation else c for c in world.claims)
    return world.with_objects(claims=claims)


def without_taints(world: World) -> World:
    """No device taints: slice taints removed and no DeviceTaintRules."""
    slices = tuple(_untainted(s) for s in world.slices)
    return world.with_objects(slices=slices, taint_rules=())


def _untainted(s: o.ResourceSlice) -> o.ResourceSlice:
    if not any(d.taints for d in s.devices):
        return s
    return replace(s, devices=tuple(replace(d, taints=()) if d.taints else d for d in s.devices))


def without_nodes(world: World, names: Iterable[str]) -> World:
    """As if the nodes were gone: the Node objects, their node-local slices and
    devices pinned to them by name disappear.  Claims allocated there keep their
    allocation (they would until deallocated)."""
    gone = set(names)
    nodes = tuple(n for n in world.nodes if n.meta.name not in gone)
    slices = []
    for s in world.slices:
        if s.node_name in gone:
            continue
        if any(d.node_name in gone for d in s.devices):
            s = replace(s, devices=tuple(d for d in s.devices if d.node_name not in gone))
        slices.append(s)
    return world.with_objects(nodes=nodes, slices=tuple(slices))
