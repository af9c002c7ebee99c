"""The best-fit score: how much an allocation fragments what is left free (lower is better).

One definition, used by ``explain-allocation --best-fit`` (ranking candidate device
sets on the fitting nodes) and by ``capacity --best-fit`` (choosing the node for each
copy).  For a set of ``chosen`` device ids on top of the ``busy`` ones (already
allocated), among the ``devices`` a node can reach, compared in this order:

1. ``freshCounterSets``: shared counter sets that no busy device used and that the
   chosen devices start to consume (don't break a whole GPU for a MIG slice when a
   partly used GPU has room);
2. ``largestFreeGroupLoss``: for each ``matchAttribute`` of the claims, how much the
   largest group of free devices sharing one value shrinks;
3. ``strandedCounters``: counters of partly used counter sets that keep free capacity
   no free device can use any more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction

from dractl.explain.catalog import attribute_value
from dractl.model import objects as o

Score = tuple[int, int, int]


def score(
    slices: Sequence[o.ResourceSlice],
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    match_attributes: Iterable[str],
) -> Score:
    """(fresh counter sets, largest free group loss, stranded counters) of ``chosen``."""
    return (
        fresh_counter_sets(devices, busy, chosen),
        group_loss(devices, busy, chosen, match_attributes),
        stranded_counters(slices, devices, busy, chosen),
    )


def match_attributes(claims: Iterable[o.ResourceClaim]) -> list[str]:
    """The ``matchAttribute`` names of the claims' constraints, sorted."""
    return sorted({k.match_attribute for c in claims for k in c.spec.constraints if k.match_attribute})


def counter_sets(devices: Iterable[o.Device]) -> set[tuple[str, str]]:
    """(``driver/pool``, counter set) pairs the devices consume from."""
    return {(f"{d.driver}/{d.pool}", c.counter_set) for d in devices for c in d.consumes_counters}


def fresh_counter_sets(
    devices: Mapping[str, o.Device], busy: AbstractSet[str], chosen: AbstractSet[str]
) -> int:
    before = counter_sets(d for d in devices.values() if d.id in busy)
    return len(counter_sets(devices[i] for i in chosen if i in devices) - before)


def group_loss(
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    match_attributes: Iterable[str],
) -> int:
    free = [d for d in devices.values() if d.id not in busy]
    return sum(largest_group(free, a, frozenset()) - largest_group(free, a, chosen) for a in match_attributes)


def stranded_counters(
    slices: Sequence[o.ResourceSlice],
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
) -> int:
    taken = {i for i in devices if i in busy or i in chosen}
    stranded = 0
    for pool, cset in sorted(counter_sets(devices[i] for i in taken)):
        users = [
            d
            for d in devices.values()
            if f"{d.driver}/{d.pool}" == pool and any(c.counter_set == cset for c in d.consumes_counters)
        ]
        left = counters_left(slices, pool, cset, [d for d in users if d.id in taken])
        free_users = [d for d in users if d.id not in taken]
        for counter, amount in left.items():
            if amount > 0 and not any(fits(d, cset, left) and uses(d, cset, counter) for d in free_users):
                stranded += 1
    return stranded


def largest_group(devices: Iterable[o.Device], attr: str, minus: AbstractSet[str]) -> int:
    """The most devices (not in ``minus``) sharing one value of attribute ``attr``."""
    counts = Counter(
        str(v) for d in devices if d.id not in minus for v in (attribute_value(d, attr),) if v is not None
    )
    return max(counts.values(), default=0)


def counters_left(
    slices: Sequence[o.ResourceSlice], pool: str, cset: str, busy: Iterable[o.Device]
) -> dict[str, Fraction]:
    """What counter set ``cset`` of ``pool`` (``driver/pool``) has left after ``busy``."""
    total: dict[str, Fraction] = {}
    for s in slices:
        if f"{s.driver}/{s.pool.name}" == pool:
            for cs in s.shared_counters:
                if cs.name == cset:
                    total = {k: q.value for k, q in cs.counters.items()}
    for d in busy:
        for c in d.consumes_counters:
            if c.counter_set == cset:
                for k, q in c.counters.items():
                    if k in total:
                        total[k] = total[k] - q.value
    return total


def fits(d: o.Device, cset: str, left: Mapping[str, Fraction]) -> bool:
    """Whether the device's consumption of ``cset`` fits in what is ``left``."""
    return all(
        q.value <= left.get(k, Fraction(0))
        for c in d.consumes_counters
        if c.counter_set == cset
        for k, q in c.counters.items()
    )


def uses(d: o.Device, cset: str, counter: str) -> bool:
    return any(c.counter_set == cset and counter in c.counters for c in d.consumes_counters)
