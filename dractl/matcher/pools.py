"""Pool gathering: which resource pools (and which of their slices) a node can use.

The rules are the structured allocator's: only the newest generation of a pool
counts; a pool whose slices are not all published is *incomplete* (never
allocated from, and "All" requests fail on it); a pool with duplicate device
names or bad counter references is *invalid*.

Search order: ``incubating``/``experimental`` sort pools by (driver, pool) and slices
by name, and put pools with binding conditions last.  ``stable`` sorts nothing: pools
come in the order their first slice appears in the input (the lister's order) and
slices in input order; it also always takes slices that hold shared counters, whatever
their node selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dractl.matcher.nodes import NodeSelectorError, node_matches
from dractl.model.features import Features
from dractl.model.objects import Device, Node, ResourceSlice
from dractl.model.quantity import Quantity

CounterSets = dict[str, dict[str, Fraction]]


def exact(q: Quantity) -> Fraction:
    """The quantity's exact value (``Quantity.value`` without its general path)."""
    if q.scale >= 0:
        return Fraction(q.unscaled * 10**q.scale if q.scale else q.unscaled)
    return Fraction(q.unscaled, 10**-q.scale)


class PoolError(Exception):
    """Gathering failed (a node selector that does not parse); the message is final."""


@dataclass(slots=True)
class Pool:
    """One pool as seen from one node.  ``slices`` hold the devices reachable from
    the node; ``other_slices`` the rest of the pool (they matter for counters)."""

    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[ResourceSlice] = field(default_factory=list)
    other_slices: list[ResourceSlice] = field(default_factory=list)
    counter_sets: CounterSets = field(default_factory=dict)
    has_binding: bool = False  # a device of ``slices`` has binding conditions

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"


def gather(
    slices_for_node: Sequence[ResourceSlice],
    node: Node | None,
    features: Features,
    all_slices: Sequence[ResourceSlice],
    *,
    stable: bool = False,
) -> list[Pool]:
    """All pools with devices for ``node``, in search order; raises PoolError.
    ``stable``: the stable implementation's rules (no sorting; see the module doc)."""
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices_for_node:
        if _relevant(s, node, features, stable):
            _add_slice(by_pool, s)
    plain: list[Pool] = []
    binding: list[Pool] = []
    for (driver, name), members in by_pool.items():
        pool = _pool_for(driver, name, members, features, all_slices, stable)
        if pool is not None:
            (binding if not stable and pool.has_binding else plain).append(pool)
    if stable:
        return plain
    plain.sort(key=lambda p: (p.driver, p.name))
    binding.sort(key=lambda p: (p.driver, p.name))
    return plain + binding


def _relevant(s: ResourceSlice, node: Node | None, features: Features, stable: bool) -> bool:
    if not features.partitionable_devices and (s.per_device_node_selection is not None or s.shared_counters):
        return False
    if stable and s.shared_counters:
        return True  # stable: counter sets are needed whatever the slice's node selection
    try:
        if s.node_name or s.all_nodes or s.node_selector is not None:
            return node_matches(node, s.node_name or "", bool(s.all_nodes), s.node_selector)
        if s.per_device_node_selection:
            return any(
                node_matches(node, d.node_name or "", bool(d.all_nodes), d.node_selector) for d in s.devices
            )
    except NodeSelectorError as err:
        raise PoolError(f"failed to perform node selection for slice {s.meta.name}: {err}") from err
    return False  # some future way of selecting nodes: not ours to use


def _add_slice(by_pool: dict[tuple[str, str], list[ResourceSlice]], s: ResourceSlice) -> None:
    key = (s.driver, s.pool.name)
    current = by_pool.get(key)
    if current is None or s.pool.generation > current[0].pool.generation:
        by_pool[key] = [s]
    elif s.pool.generation == current[0].pool.generation:
        current.append(s)


def _pool_for(
    driver: str,
    name: str,
    members: list[ResourceSlice],
    features: Features,
    all_slices: Sequence[ResourceSlice],
    stable: bool,
) -> Pool | None:
    """Build the pool, or None when a newer generation exists that this node can't see."""
    expected = members[0].pool.resource_slice_count
    if len(members) == expected:
        return _build(driver, name, members, features, (), stable)
    generation = members[0].pool.generation
    whole: list[ResourceSlice] = []
    for s in all_slices:
        if s.driver != driver or s.pool.name != name:
            continue
        if s.pool.generation > generation:
            return None
        if s.pool.generation == generation:
            whole.append(s)
    if len(whole) != expected:
        return Pool(driver, name, incomplete=True)
    return _build(driver, name, members, features, whole, stable)


def _build(
    driver: str,
    name: str,
    members: list[ResourceSlice],
    features: Features,
    whole: Sequence[ResourceSlice],
    stable: bool,
) -> Pool:
    if not stable and len(members) > 1:
        members = sorted(members, key=lambda s: s.meta.name)
    partitionable = features.partitionable_devices
    if partitionable and any(s.shared_counters for s in members):
        counter_slices = [s for s in members if s.shared_counters]
        device_slices = [s for s in members if not s.shared_counters]
    else:
        counter_slices, device_slices = [], list(members)
    other: list[ResourceSlice] = []
    if whole:
        seen = {s.meta.name for s in members}
        for s in whole:
            if s.meta.name in seen:
                continue
            (counter_slices if partitionable and s.shared_counters else other).append(s)
    pool = Pool(driver, name, slices=device_slices, other_slices=other)
    sets: CounterSets = {}
    sets_problem = None
    if partitionable:
        sets, sets_problem = _counter_sets(counter_slices)
    # one pass over the devices: the first duplicate name, the first bad counter reference,
    # and whether any has binding conditions; the problems are reported in the order the
    # separate checks would find them (duplicates, counter sets, consumption)
    names: set[str] = set()
    duplicate = bad = None
    binding = False
    for sl in device_slices:
        for d in sl.devices:
            if d.name in names:
                if duplicate is None:
                    duplicate = f"duplicate device name {d.name}"
            else:
                names.add(d.name)
            if d.binding_conditions:
                binding = True
            if partitionable and bad is None:
                for use in d.consumes_counters:  # the common, valid case without a call
                    known = sets.get(use.counter_set)
                    if known is None or not use.counters.keys() <= known.keys():
                        bad = _bad_use(sets, d)
                        break
    problem = duplicate
    if problem is None and partitionable:
        pool.counter_sets = sets
        problem = sets_problem or bad or _bad_consumption(sets, other)
    pool.has_binding = binding
    if problem is not None:
        return Pool(driver, name, invalid=True, invalid_reason=problem)
    if not features.partitionable_devices:
        pool.other_slices = []
    return pool


def _counter_sets(slices: Sequence[ResourceSlice]) -> tuple[CounterSets, str | None]:
    sets: CounterSets = {}
    for s in slices:
        for cs in s.shared_counters:
            if cs.name in sets:
                return {}, f"duplicate counter set name {cs.name}"
            sets[cs.name] = {k: exact(q) for k, q in cs.counters.items()}
    return sets, None


def _bad_consumption(sets: CounterSets, slices: Sequence[ResourceSlice]) -> str | None:
    for s in slices:
        for d in s.devices:
            if d.consumes_counters:
                problem = _bad_use(sets, d)
                if problem is not None:
                    return problem
    return None


def _bad_use(sets: CounterSets, d: Device) -> str | None:
    for use in d.consumes_counters:
        counters = sets.get(use.counter_set)
        if counters is None:
            return f"counter set {use.counter_set} not found"
        for cname in use.counters:
            if cname not in counters:
                return f"counter {cname} not found in counter set {use.counter_set}"
    return None
