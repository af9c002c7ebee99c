"""``dractl availability``: what is published, allocated, free, tainted and unhealthy.

Rows are pools, grouped by node (network-attached pools under no node) — or, with
``by="class"``, one row per (DeviceClass, node).  Each pool carries two sets of counts:

* KEP-5677's ``ResourcePoolStatusRequest`` definitions, so dractl agrees with that API
  where a cluster serves it: ``total`` devices of the newest generation, ``allocated``
  (distinct devices held by non-admin-access results), ``unavailable`` (not allocated,
  with a NoSchedule/NoExecute taint from the slice or a DeviceTaintRule), ``available`` =
  total − allocated − unavailable.  An incomplete pool has no counts there (a
  ``validationError``); dractl still counts what was published and flags the pool.
* ``free``: devices the allocator would give to a new request that tolerates no taint,
  right now — computed by :meth:`Inventory.blocked` from the matcher's own state, so a full
  GPU whose MIG partition is in use is not free (its shared counters are taken), a
  multi-allocatable device is free while its consumable capacity lasts, and devices of
  incomplete or invalid pools are never free (the allocator skips those pools).

Partitionable pools also report their shared counters left per counter set
(``gpu-0: 4 of 8 memory slices free``), multi-allocatable devices their capacity used.
A summary per DeviceClass ends the report ("gpu.nvidia.com: 3 of 6 free on 2 nodes;
largest free block on one node: 2").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from dractl.errors import UsageError, bounded, bounded_all
from dractl.inventory.core import Inventory, PoolGroup
from dractl.inventory.health import HEALTHY, device_health_states
from dractl.inventory.labels import LabelSelector
from dractl.inventory.report import envelope
from dractl.io.world import World
from dractl.matcher import pools as pool_mod
from dractl.matcher.selection import SelectorFailureAt
from dractl.model import objects as o
from dractl.model.fastinit import fast_init
from dractl.model.features import Features
from dractl.model.quantity import Quantity

EFFECTS = ("NoSchedule", "NoExecute", "None")
_EFFECT_SET = frozenset(EFFECTS)
_BLOCKING = frozenset({"NoSchedule", "NoExecute"})
_FREE_STATES = ("free", "shared")


@dataclass(frozen=True, slots=True)
class DeviceState:
    """One device: ``state`` is ``free``, ``allocated``, ``shared`` (a multi-allocatable device
    with allocations and capacity left), or why it is not free (``in-use``, ``tainted``,
    ``counters-exhausted``, ``capacity-insufficient``, ``feature-disabled``,
    ``binding-conditions-disabled``, ``pool-incomplete``, ``pool-invalid``)."""

    id: str  # driver/pool/device
    name: str
    state: str
    classes: tuple[str, ...]
    allocated: bool = False
    taints: tuple[str, ...] = ()
    effects: frozenset[str] = frozenset()
    health: str | None = None
    capacity: tuple[CapacityUse, ...] = ()
    claims: tuple[str, ...] = ()

    @property
    def free(self) -> bool:
        return self.state in _FREE_STATES

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "classes": list(self.classes),
            "allocated": self.allocated,
            "taints": bounded_all(self.taints),  # "key=value:Effect" text (the taints view has the data)
            "health": self.health,
            "capacity": [c.to_dict() for c in self.capacity],
            "claims": list(self.claims),
        }


_DeviceState = fast_init(DeviceState)  # the same objects, without a setattr per field
_NO_EFFECTS: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class CapacityUse:
    """Consumable capacity of a multi-allocatable device: used of total."""

    name: str
    used: str
    total: str
    used_value: Fraction
    total_value: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "used": self.used, "total": self.total}


@dataclass(frozen=True, slots=True)
class CounterGroup:
    """Counters of one counter set that are left (after committed allocations) of the total.
    Counters named ``<stem>-<n>`` with a total of 1 each (NVIDIA's ``memory-slice-0`` …) are
    one group: ``left``/``total`` count them."""

    counter_set: str
    counter: str
    left: str
    total: str
    grouped: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "counterSet": self.counter_set,
            "counter": self.counter,
            "left": self.left,
            "total": self.total,
            "grouped": self.grouped,
        }


@dataclass(frozen=True, slots=True)
class Counts:
    """KEP-5677 counts plus dractl's ``free``, ``tainted`` (by effect) and ``unhealthy``."""

    total: int = 0
    allocated: int = 0
    available: int = 0
    unavailable: int = 0
    free: int = 0
    tainted: Mapping[str, int] = field(default_factory=dict)
    unhealthy: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "allocated": self.allocated,
            "available": self.available,
            "unavailable": self.unavailable,
            "free": self.free,
            "tainted": {e: self.tainted.get(e, 0) for e in EFFECTS},
            "unhealthy": self.unhealthy,
        }


_Counts = fast_init(Counts)  # the same objects, without a setattr per field (one per pool)


@dataclass(frozen=True, slots=True)
class PoolAvailability:
    """One pool (or, by class, one class on one node: then ``driver``/``pool`` are empty)."""

    node: str | None
    driver: str
    pool: str
    device_class: str | None
    status: str  # ok | incomplete | invalid | unreachable
    problem: str
    slices: int
    expected_slices: int
    generation: int
    reachable_nodes: int  # nodes that can use the pool (1 for a node-local one)
    counts: Counts
    counters: tuple[CounterGroup, ...] = ()
    devices: tuple[DeviceState, ...] = ()
    reach: tuple[str, ...] = ()  # the selected nodes that can use it (not in the document: can be huge)

    def to_dict(self, table: bool = False) -> dict[str, Any]:
        """``table``: devices only where they report consumable capacity (what a table prints)."""
        devices = [d for d in self.devices if d.capacity] if table else self.devices
        return {
            "node": self.node,
            "driver": self.driver,
            "pool": self.pool,
            "deviceClass": self.device_class,
            "status": self.status,
            "problem": bounded(self.problem),
            "slices": self.slices,
            "expectedSlices": self.expected_slices,
            "generation": self.generation,
            "reachableNodes": self.reachable_nodes,
            **self.counts.to_dict(),
            "counters": [c.to_dict() for c in self.counters],
            "devices": [d.to_dict() for d in devices],
        }


_PoolAvailability = fast_init(PoolAvailability)  # the same objects (one per pool)


@dataclass(frozen=True, slots=True)
class ClassSummary:
    name: str
    total: int
    free: int
    allocated: int
    nodes: int
    largest_free_block: int
    largest_free_node: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "deviceClass": self.name,
            "total": self.total,
            "free": self.free,
            "allocated": self.allocated,
            "nodes": self.nodes,
            "largestFreeBlock": self.largest_free_block,
            "largestFreeNode": self.largest_free_node,
        }

    def line(self) -> str:
        nodes = f"{self.nodes} node" + ("" if self.nodes == 1 else "s")
        text = f"{self.name}: {self.free} of {self.total} free on {nodes}"
        if self.nodes:
            text += f"; largest free block on one node: {self.largest_free_block}"
        return text


@dataclass(frozen=True)
class AvailabilityOptions:
    features: Features
    by: str = "node"  # node | class
    device_class: str | None = None
    node: str | None = None
    selector: LabelSelector | None = None
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AvailabilityReport:
    report_type: ClassVar[str] = "availability"

    by: str
    items: tuple[PoolAvailability, ...]
    totals: Counts
    classes: tuple[ClassSummary, ...]
    nodes: int
    flagged: tuple[str, ...]
    context: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0

    def to_dict(self, table: bool = False) -> dict[str, Any]:
        """The document (``table``: the one the text tables print from, without the devices that
        report no consumable capacity: at 5,000 nodes 40,000 device entries no table shows)."""
        summary = {
            "by": self.by,
            "nodes": self.nodes,
            "pools": sum(1 for i in self.items if i.pool),
            **self.totals.to_dict(),
            "classes": [c.to_dict() for c in self.classes],
            "flagged": list(self.flagged),
        }
        return envelope(
            "AvailabilityReport", self.context, [i.to_dict(table) for i in self.items], summary, self.warnings
        )


# ----------------------------------------------------------------------------- engine


def availability(world: World, opts: AvailabilityOptions) -> AvailabilityReport:
    """Availability per pool (see the module docstring).  Raises UsageError for an unknown
    ``--class`` or ``--node``; never mutates ``world``."""
    inv = Inventory(world, opts.features)
    _check_names(inv, opts)
    nodes = inv.selected_nodes(opts.node, opts.selector)
    selected = frozenset(nodes)  # "is the pool's node selected": 5,000 pools × 5,000 nodes as a list
    membership = _ClassMembership(inv, world.device_classes)
    health = device_health_states(inv)
    pools = [
        p
        for g in inv.pool_groups()
        if (p := _pool(inv, g, nodes, selected, membership, health, opts)) is not None
    ]
    pools.sort(key=lambda p: (p.node is None, p.node or "", p.driver, p.pool))
    if opts.device_class is not None:
        pools = [q for p in pools if (q := _only_class(p, opts.device_class)).devices]
    classes = _class_summaries(pools, [c.meta.name for c in world.device_classes], opts.device_class)
    items = _by_class(pools, classes) if opts.by == "class" else pools
    flagged = tuple(
        f"pool {p.driver}/{p.pool}: {p.problem}" for p in pools if p.status in ("incomplete", "invalid")
    )
    return AvailabilityReport(
        opts.by,
        tuple(items),
        _sum(p.counts for p in pools),
        tuple(classes),
        len(nodes),
        flagged,
        dict(opts.context),
        tuple(inv.gate_warnings() + membership.warnings),
    )


def _check_names(inv: Inventory, opts: AvailabilityOptions) -> None:
    if opts.device_class is not None and inv.world.device_class(opts.device_class) is None:
        known = ", ".join(sorted(c.meta.name for c in inv.world.device_classes)) or "none"
        raise UsageError(f"--class {opts.device_class}: no such DeviceClass (known: {known})", "availability")
    if opts.node is not None and opts.node not in inv.node_names():
        raise UsageError(f"--node {opts.node}: no such node ({len(inv.node_names())} known)", "availability")


class _ClassMembership:
    """Which DeviceClasses select a device (the class's CEL selectors, cached like the
    allocator's).  A selector that fails on a device does not select it (warned once)."""

    def __init__(self, inv: Inventory, classes: tuple[o.DeviceClass, ...]) -> None:
        self.inv = inv
        self.classes = sorted(classes, key=lambda c: c.meta.name)
        self.warnings: list[str] = []

    def of(self, device: o.Device) -> tuple[str, ...]:
        out = []
        # its selectors in turn, in one call; each device is asked about once
        first_false = self.inv.allocator.selectors.first_false_once
        for cls in self.classes:
            try:
                if first_false(cls.selectors, device) < 0:
                    out.append(cls.meta.name)
            except SelectorFailureAt as at:
                msg = f"class {cls.meta.name}: selector fails on device {device.id}: {at.failure.message}"
                if len(self.warnings) < 20 and msg not in self.warnings:
                    self.warnings.append(msg)
        return tuple(out)


def _pool(
    inv: Inventory,
    group: PoolGroup,
    nodes: list[str],
    selected: frozenset[str],
    membership: _ClassMembership,
    health: Mapping[str, str],
    opts: AvailabilityOptions,
) -> PoolAvailability | None:
    """The pool's row, or None when no selected node can use it (``selected``: ``nodes``)."""
    if group.node is not None:
        if group.node not in selected:
            return None
        reach = [group.node]
        pool = inv.gather(group, group.node)
    else:
        gathered = [(n, inv.gather(group, n)) for n in nodes]
        reach = [n for n, p in gathered if p is not None]
        pool = next((p for _, p in gathered if p is not None), None)
        if pool is None and not reach and opts.node is None and opts.selector is None:
            pool = inv.gather(group, None)  # e.g. allNodes pools in a world without nodes
        if pool is None and (opts.node is not None or opts.selector is not None):
            return None
    status, problem = _status(group, pool)
    left = inv.counters_left(pool) if status == "ok" and pool is not None else {}
    usable = {id(s) for s in pool.slices} if status == "ok" and pool is not None else set()
    devices = []
    ok = status == "ok"
    not_ok_state = f"pool-{status}" if status != "unreachable" else "unreachable"
    taints_of, blocked_by, allocated_ids = inv.taints_of, inv.blocked, inv.is_allocated
    claims_of, classes_of, health_of = inv.claims_of_device, membership.of, health.get
    for sl in group.slices:
        prefix = f"{sl.driver}/{sl.pool.name}/"
        reachable = id(sl) in usable
        for d in sl.devices:
            device_id = prefix + d.name
            taints = taints_of(d)
            allocated = allocated_ids(device_id)
            if not ok:
                state = not_ok_state
            elif not reachable:
                state = "unreachable"  # a slice with devices (counters-only slices have none here)
            else:
                blocked = blocked_by(d, device_id, left, taints)
                if blocked is None:
                    state = "shared" if allocated else "free"
                else:
                    state = "allocated" if blocked == "in-use" else blocked
            holders = claims_of(device_id)
            devices.append(
                _DeviceState(
                    device_id,
                    d.name,
                    state,
                    classes_of(d),
                    allocated,
                    tuple(t.describe() for t in taints) if taints else (),
                    frozenset(t.taint.effect for t in taints) if taints else _NO_EFFECTS,
                    health_of(device_id),
                    # only multi-allocatable devices report capacity (most devices are not)
                    _capacity(inv, d, device_id) if d.allow_multiple_allocations is True else (),
                    _holders(holders) if holders else (),
                )
            )
    counts = _counts(devices)
    counters = _counter_groups(pool, left) if pool is not None and status == "ok" else ()
    return _PoolAvailability(
        group.node,
        group.driver,
        group.name,
        None,
        status,
        problem,
        len(group.slices),
        group.expected_slices,
        group.generation,
        len(reach),
        counts,
        counters,
        tuple(devices),
        tuple(reach),
    )


def _holders(holders: list[tuple[o.ResourceClaim, o.DeviceRequestAllocationResult]]) -> tuple[str, ...]:
    """The claims holding a device, sorted, once each (usually one)."""
    if len(holders) == 1:
        return (holders[0][0].meta.key,)
    return tuple(sorted({c.meta.key for c, _ in holders}))


def _status(group: PoolGroup, pool: pool_mod.Pool | None) -> tuple[str, str]:
    if not group.complete:
        return "incomplete", (
            f"incomplete: {len(group.slices)} of {group.expected_slices} slices of generation "
            f"{group.generation} published; the allocator skips it"
        )
    if pool is None:
        return "unreachable", "no selected node can use the pool (node selection, or a feature gate is off)"
    if pool.incomplete:
        return "incomplete", "incomplete: the allocator skips it"
    if pool.invalid:
        return "invalid", f"invalid: {pool.invalid_reason}; the allocator skips it"
    if group.older_slices:
        return "ok", f"{group.older_slices} slice(s) of an older generation ignored"
    return "ok", ""


def _counts(devices: Any) -> Counts:
    """KEP-5677 counts (allocated, unavailable = tainted NoSchedule/NoExecute and not allocated,
    available = the rest) and free/tainted/unhealthy, over ``devices``."""
    tainted = {e: 0 for e in EFFECTS}
    total = allocated = unavailable = free = unhealthy = 0
    for dev in devices:
        total += 1
        allocated += dev.allocated
        effects = dev.effects
        if effects:  # most devices have no taint
            for e in effects & _EFFECT_SET:
                tainted[e] += 1
            unavailable += (not dev.allocated) and bool(effects & _BLOCKING)
        free += dev.state in _FREE_STATES  # DeviceState.free
        unhealthy += dev.health not in (None, HEALTHY)
    return _Counts(
        total, allocated, max(0, total - allocated - unavailable), unavailable, free, tainted, unhealthy
    )


def _capacity(inv: Inventory, device: o.Device, device_id: str) -> tuple[CapacityUse, ...]:
    if not inv.multi_allocatable(device):
        return ()
    used = inv.capacity_used(device_id)
    return tuple(
        CapacityUse(
            name,
            amount(used.get(name, Fraction(0)), cap.value),
            str(cap.value),
            used.get(name, Fraction(0)),
            cap.value.value,
        )
        for name, cap in sorted(device.capacity.items())
    )


_STEM = re.compile(r"^(.*?)-?(\d+)$")


def _counter_groups(
    pool: pool_mod.Pool, left: Mapping[str, Mapping[str, Fraction]]
) -> tuple[CounterGroup, ...]:
    out = []
    for set_name, totals in sorted(pool.counter_sets.items()):
        remaining = left.get(set_name, {})
        stems: dict[str, list[str]] = {}
        for name, total in totals.items():
            m = _STEM.match(name)
            key = m.group(1) if m and total == 1 and m.group(1) else name
            stems.setdefault(key, []).append(name)
        for stem, names in sorted(stems.items()):
            if len(names) > 1 or stem != names[0]:
                n_left = sum(1 for n in names if remaining.get(n, Fraction(0)) >= 1)
                out.append(CounterGroup(set_name, stem, str(n_left), str(len(names)), True))
            else:
                total = totals[stem]
                out.append(
                    CounterGroup(
                        set_name, stem, _num(max(remaining.get(stem, total), Fraction(0))), _num(total), False
                    )
                )
    return tuple(out)


def _num(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else str(float(v))


def amount(value: Fraction, like: Quantity) -> str:
    """``value`` written in the format of ``like`` (``40Gi`` for a binary quantity)."""
    if value.denominator == 1:
        return str(Quantity.from_int(int(value), like.format))
    return str(float(value))


def _only_class(p: PoolAvailability, name: str) -> PoolAvailability:
    devices = tuple(d for d in p.devices if name in d.classes)
    return _PoolAvailability(
        p.node,
        p.driver,
        p.pool,
        name,
        p.status,
        p.problem,
        p.slices,
        p.expected_slices,
        p.generation,
        p.reachable_nodes,
        _counts(devices),
        p.counters,
        devices,
        p.reach,
    )


def _class_summaries(pools: list[PoolAvailability], names: list[str], only: str | None) -> list[ClassSummary]:
    out = []
    for name in sorted(names):
        if only is not None and name != only:
            continue
        per_node: dict[str, int] = {}
        total = free = allocated = 0
        for p in pools:
            mine = [d for d in p.devices if name in d.classes]
            if not mine:
                continue
            total += len(mine)
            free_here = sum(1 for d in mine if d.free)
            free += free_here
            allocated += sum(1 for d in mine if d.allocated)
            # a network-attached pool's free devices add to every node that can use it
            for node in (p.node,) if p.node else p.reach:
                per_node[node] = per_node.get(node, 0) + free_here
        if not total and only is None:
            continue  # no device of the class in scope: nothing to say about it
        best = max(sorted(per_node.items()), key=lambda kv: kv[1], default=(None, 0))
        out.append(ClassSummary(name, total, free, allocated, len(per_node), best[1], best[0]))
    return out


def _by_class(pools: list[PoolAvailability], classes: list[ClassSummary]) -> list[PoolAvailability]:
    """One row per (class, node): the class's devices of that node's pools."""
    rows = []
    for cls in classes:
        per_node: dict[str | None, list[DeviceState]] = {}
        for p in pools:
            per_node.setdefault(p.node, []).extend(d for d in p.devices if cls.name in d.classes)
        for node, devices in sorted(per_node.items(), key=lambda kv: (kv[0] is None, kv[0] or "")):
            if not devices:
                continue
            rows.append(
                PoolAvailability(
                    node, "", "", cls.name, "ok", "", 0, 0, 0, 1, _counts(devices), (), tuple(devices)
                )
            )
    return rows


def _sum(counts: Any) -> Counts:
    items = list(counts)
    tainted = {e: sum(c.tainted.get(e, 0) for c in items) for e in EFFECTS}
    return _Counts(
        sum(c.total for c in items),
        sum(c.allocated for c in items),
        sum(c.available for c in items),
        sum(c.unavailable for c in items),
        sum(c.free for c in items),
        tainted,
        sum(c.unhealthy for c in items),
    )
