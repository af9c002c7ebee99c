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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dractl.matcher.nodes import NodeSelectorError, node_matches
from dractl.model.features import Features
from dractl.model.objects import Device, Node, ResourceSlice
from dractl.model.quantity import Quantity

CounterSets = dict[str, dict[str, Fraction]]
RawSets = dict[str, Mapping[str, Quantity]]


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
    # counter set -> counter -> its total as declared (see ``counter_sets``)
    counter_totals: RawSets = field(default_factory=dict)
    # id(slice of ``slices``) -> MULTI or 0: whether a device of it allows multiple
    # allocations (what candidates.Flat asks of each slice; taints it checks per device)
    slice_flags: dict[int, int] = field(default_factory=dict)
    _exact: CounterSets | None = field(default=None, compare=False, repr=False)
    _binding: bool | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"

    @property
    def has_binding(self) -> bool:
        """Whether a device of ``slices`` has binding conditions (looked up on first use: only
        the order of two or more pools depends on it)."""
        if self._binding is None:
            self._binding = any(d.binding_conditions for s in self.slices for d in s.devices)
        return self._binding

    @property
    def counter_sets(self) -> CounterSets:
        """The totals of the pool's counter sets as exact numbers (computed on first use: an
        allocation reads them as ints, see ``counters.Left.totals``)."""
        if self._exact is None:
            totals = self.counter_totals
            self._exact = {name: {k: exact(q) for k, q in c.items()} for name, c in totals.items()}
        return self._exact


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
    # a slice bound to a node by name, where nothing else decides first (see _relevant)
    by_name = features.partitionable_devices and not stable
    node_name = node.meta.name if node is not None else None
    for s in slices_for_node:
        if s.node_name and by_name:
            if s.node_name == node_name:
                _add_slice(by_pool, s)
        elif _relevant(s, node, features, stable):
            _add_slice(by_pool, s)
    plain: list[Pool] = []
    binding: list[Pool] = []
    several = not stable and len(by_pool) > 1  # one pool: no order to decide
    for (driver, name), members in by_pool.items():
        pool = _pool_for(driver, name, members, features, all_slices, stable)
        if pool is not None:
            (binding if several and pool.has_binding else plain).append(pool)
    if stable or not several:
        return plain
    if len(plain) > 1:
        plain.sort(key=_pool_order)
    if not binding:
        return plain
    binding.sort(key=_pool_order)
    return plain + binding


def _pool_order(p: Pool) -> tuple[str, str]:
    return p.driver, p.name


def _slice_name(s: ResourceSlice) -> str:
    return s.meta.name


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
        members = sorted(members, key=_slice_name)
    partitionable = features.partitionable_devices
    counter_slices: list[ResourceSlice] = []
    device_slices: list[ResourceSlice] = []
    for s in members:  # one loop, no comprehension frames (a pool has few slices)
        (counter_slices if partitionable and s.shared_counters else device_slices).append(s)
    other: list[ResourceSlice] = []
    if whole:
        seen = {s.meta.name for s in members}
        for s in whole:
            if s.meta.name in seen:
                continue
            (counter_slices if partitionable and s.shared_counters else other).append(s)
    pool = Pool(driver, name, slices=device_slices, other_slices=other)
    sets: RawSets = {}
    sets_problem = None
    if partitionable:
        sets, sets_problem = _counter_sets(counter_slices)
    # the first duplicate name, the first bad counter reference, and whether any device has
    # binding conditions; the problems are reported in the order the separate checks would
    # find them (duplicates, counter sets, consumption); a slow pass only where one fails
    # (comprehensions and plain loops: on Python 3.11 they beat map/attrgetter passes)
    devices = (
        device_slices[0].devices if len(device_slices) == 1 else [d for s in device_slices for d in s.devices]
    )
    duplicate = bad = None
    if len({d.name for d in devices}) != len(devices):
        duplicate = _first_duplicate(devices)
    if not _scan(device_slices, sets, partitionable, pool.slice_flags):
        bad = next(filter(None, (_bad_use(sets, d) for d in devices)), None)
    problem = duplicate
    if problem is None and partitionable:
        pool.counter_totals = sets
        problem = sets_problem or bad or _bad_consumption(sets, other)
    if problem is not None:
        return Pool(driver, name, invalid=True, invalid_reason=problem)
    if not features.partitionable_devices:
        pool.other_slices = []
    return pool


TAINTED, MULTI = 1, 2


def _scan(slices: Sequence[ResourceSlice], sets: RawSets, partitionable: bool, flags: dict[int, int]) -> bool:
    """One loop over the slices' devices: whether every counter they consume is in ``sets``
    (``partitionable`` only); fills ``flags`` per slice (see ``Pool.slice_flags``).  A device
    that shares its predecessor's consumption tuple (the model builder shares equal ones, as
    a fleet's partitions repeat them) is not checked again: the common device costs two
    attribute loads."""
    known = True
    last: object = None
    for s in slices:
        multi = 0
        for d in s.devices:
            if d.allow_multiple_allocations:
                multi = MULTI
            if (uses := d.consumes_counters) is not last:
                last = uses
                if uses and partitionable and known:
                    for use in uses:
                        counters = sets.get(use.counter_set)
                        if counters is None:
                            known = False
                            break
                        for counter in use.counters:
                            if counter not in counters:
                                known = False
                        if not known:
                            break
        flags[id(s)] = multi
    return known


def _first_duplicate(devices: Sequence[Device]) -> str:
    names: set[str] = set()
    for d in devices:
        if d.name in names:
            return f"duplicate device name {d.name}"
        names.add(d.name)
    raise AssertionError("no duplicate")  # pragma: no cover - the caller saw one


def _counter_sets(slices: Sequence[ResourceSlice]) -> tuple[RawSets, str | None]:
    if len(slices) == 1:  # the usual pool: one slice holds its counter sets
        sets: RawSets = {cs.name: cs.counters for cs in slices[0].shared_counters}
        if len(sets) == len(slices[0].shared_counters):
            return sets, None
    sets = {}
    for s in slices:
        for cs in s.shared_counters:
            if cs.name in sets:
                return {}, f"duplicate counter set name {cs.name}"
            sets[cs.name] = cs.counters
    return sets, None


def _bad_consumption(sets: RawSets, slices: Sequence[ResourceSlice]) -> str | None:
    for s in slices:
        for d in s.devices:
            if d.consumes_counters:
                problem = _bad_use(sets, d)
                if problem is not None:
                    return problem
    return None


def _bad_use(sets: RawSets, d: Device) -> str | None:
    for use in d.consumes_counters:
        counters = sets.get(use.counter_set)
        if counters is None:
            return f"counter set {use.counter_set} not found"
        for cname in use.counters:
            if cname not in counters:
                return f"counter {cname} not found in counter set {use.counter_set}"
    return None
