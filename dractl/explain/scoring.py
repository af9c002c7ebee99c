"""The best-fit score: how much an allocation fragments what is left free (lower is better).

One definition, used by ``explain-allocation --best-fit`` (ranking candidate device
sets on the fitting nodes) and by ``capacity --best-fit`` (choosing the node and the device set for each
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction

from dractl.explain.catalog import attribute_value
from dractl.matcher import counters
from dractl.matcher.counters import Uses
from dractl.matcher.pools import exact
from dractl.model import objects as o

Score = tuple[int, int, int]


def score(
    slices: Sequence[o.ResourceSlice],
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    match_attributes: Iterable[str],
    index: CounterIndex | None = None,
) -> Score:
    """(fresh counter sets, largest free group loss, stranded counters) of ``chosen``.
    ``devices`` maps each device's id to it; ``index``: :class:`CounterIndex` of the same
    slices and devices, kept by a caller that scores them again and again (None: built here)."""
    if index is None:
        index = CounterIndex(slices, devices)
    fresh, stranded = counter_parts(busy, chosen, index)
    return (fresh, group_loss(devices, busy, chosen, match_attributes), stranded)


def counter_parts(busy: AbstractSet[str], chosen: AbstractSet[str], index: CounterIndex) -> tuple[int, int]:
    """(:func:`fresh_counter_sets`, :func:`stranded_counters`) of the devices ``index`` was
    built from, in one pass over its counter sets (a capacity --best-fit run scores tens of
    thousands of placements): per set, whether a busy and whether a chosen device uses it
    (fresh: chosen only; neither: the set is skipped), what is left after both, and the
    counters with some left that no free device of the set both fits in and uses.  What a set
    has left after its busy users, and its stranded counters without chosen ones, are kept in
    ``index`` for the busy users they were computed for (a set no chosen device uses is
    answered from there while they stay the same)."""
    fresh = stranded = 0
    kept = index.kept
    for key, ids, users in index.by_set():
        mine = busy & ids
        by_chosen = not chosen.isdisjoint(ids)
        if not mine:
            if not by_chosen:
                continue
            fresh += 1
        hit = kept.get(key)
        if hit is None or hit[0] != mine:
            left = dict(index.totals.get(key, {}))
            for i, use in users:
                if i in mine:
                    _take(left, use)
            hit = kept[key] = (mine, left, _stranded(left, users, mine, frozenset()))
        if not by_chosen:
            stranded += hit[2]
            continue
        left = dict(hit[1])
        for i, use in users:
            if i in chosen and i not in mine:
                _take(left, use)
        stranded += _stranded(left, users, mine, chosen)
    return fresh, stranded


def _take(left: dict[str, int | Fraction], use: tuple[tuple[str, int | Fraction], ...]) -> None:
    for name, amount in use:
        if name in left:
            left[name] = left[name] - amount


def _stranded(
    left: Mapping[str, int | Fraction],
    users: Sequence[tuple[str, tuple[tuple[str, int | Fraction], ...]]],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
) -> int:
    """The counters with some ``left`` that no free user (neither busy nor chosen) both fits
    in and uses (stopping at the first free users that cover them all)."""
    need = [name for name, amount in left.items() if amount > 0]
    if not need:
        return 0
    for i, use in users:
        if i in busy or i in chosen or not all(a <= left.get(k, 0) for k, a in use):
            continue
        need = [name for name in need if not any(name == k for k, _ in use)]
        if not need:
            return 0
    return len(need)


class CounterIndex:
    """What the counter parts of the score read of some slices and their devices that never
    changes: each device's (pool, counter set) pairs and exact consumption, and each set's
    totals (the last slice naming it wins, as :func:`counters_left`).  ``uses_of``: a
    device's consumption (:func:`dractl.matcher.counters.uses`, or a cache of it)."""

    __slots__ = ("_by_set", "_parts", "kept", "sets_of", "totals", "users")

    def __init__(
        self,
        slices: Sequence[o.ResourceSlice],
        devices: Mapping[str, o.Device],
        uses_of: Callable[[o.Device], Uses] = counters.uses,
    ) -> None:
        # devices with counters, in ``devices`` order: (id, their (pool, set) pairs)
        self.sets_of: list[tuple[str, tuple[tuple[str, str], ...]]] = []
        # (pool, set) -> its devices in ``devices`` order: (id, consumption)
        self.users: dict[tuple[str, str], list[tuple[str, Uses]]] = {}
        for i, d in devices.items():
            if not d.consumes_counters:
                continue
            pool = f"{d.driver}/{d.pool}"
            keys = tuple((pool, c) for c in {c.counter_set: None for c in d.consumes_counters})
            self.sets_of.append((i, keys))
            used = uses_of(d)
            for key in keys:
                self.users.setdefault(key, []).append((i, used))
        self.totals: dict[tuple[str, str], dict[str, int | Fraction]] = {}
        for s in slices:
            pool = f"{s.driver}/{s.pool.name}"
            for cs in s.shared_counters:
                self.totals[(pool, cs.name)] = {k: counters.whole(exact(q)) for k, q in cs.counters.items()}
        self._parts: dict[str, tuple[tuple[tuple[str, str], ...], list[Part]]] | None = None
        self._by_set: list[SetUsers] | None = None
        # (pool, set) -> (its busy users, what it has left after them, its stranded counters
        # then): see counter_parts
        self.kept: dict[tuple[str, str], tuple[AbstractSet[str], dict[str, int | Fraction], int]] = {}

    def by_set(self) -> list[SetUsers]:
        """:attr:`users` per set as (set, its users' ids, (id, the user's consumption of that
        set only, as (counter, amount) pairs)) (made on the first call)."""
        if self._by_set is None:
            self._by_set = [
                (
                    key,
                    frozenset(i for i, _ in users),
                    [(i, tuple((k, a) for s, k, a in used if s == key[1])) for i, used in users],
                )
                for key, users in self.users.items()
            ]
        return self._by_set

    def parts(self) -> dict[str, tuple[tuple[tuple[str, str], ...], list[Part]]]:
        """Device id -> (its (pool, set) pairs, its consumption as ((pool, set), counter,
        amount, the set's total of the counter) for the counters its sets declare), for
        devices with counters (made on the first call)."""
        if self._parts is None:
            uses = {i: used for users in self.users.values() for i, used in users}
            self._parts = {}
            for i, keys in self.sets_of:
                pool = keys[0][0]
                mine: list[Part] = []
                for set_name, name, amount in uses[i]:
                    total = self.totals.get((pool, set_name), {}).get(name)
                    if total is not None:
                        mine.append(((pool, set_name), name, amount, total))
                self._parts[i] = (keys, mine)
        return self._parts


SetUsers = tuple[tuple[str, str], frozenset[str], list[tuple[str, tuple[tuple[str, "int | Fraction"], ...]]]]
Part = tuple[tuple[str, str], str, "int | Fraction", "int | Fraction"]


def match_attributes(claims: Iterable[o.ResourceClaim]) -> list[str]:
    """The ``matchAttribute`` names of the claims' constraints, sorted."""
    return sorted({k.match_attribute for c in claims for k in c.spec.constraints if k.match_attribute})


def counter_sets(devices: Iterable[o.Device]) -> set[tuple[str, str]]:
    """(``driver/pool``, counter set) pairs the devices consume from."""
    return {(f"{d.driver}/{d.pool}", c.counter_set) for d in devices for c in d.consumes_counters}


# ``devices`` maps each device's id (``driver/pool/device``) to the device: the functions below
# read ids from the keys (``Device.id`` formats a string per call; a capacity --best-fit run
# scores tens of thousands of placements).


def fresh_counter_sets(
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    index: CounterIndex | None = None,
) -> int:
    fresh = counter_sets(devices[i] for i in chosen if i in devices)
    if not fresh:
        return 0
    if index is None:
        before = counter_sets(d for i, d in devices.items() if d.consumes_counters and i in busy)
    else:
        before = {key for i, keys in index.sets_of if i in busy for key in keys}
    return len(fresh - before)


def group_loss(
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    match_attributes: Iterable[str],
) -> int:
    attrs = list(match_attributes)
    if not attrs:
        return 0
    free = [d for i, d in devices.items() if i not in busy]
    return sum(largest_group(free, a, frozenset()) - largest_group(free, a, chosen) for a in attrs)


def stranded_counters(
    slices: Sequence[o.ResourceSlice],
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
    index: CounterIndex | None = None,
) -> int:
    """Per counter set a taken (busy or chosen) device consumes from, sorted: the counters with
    some amount left (:func:`counters_left`) that no free device of the set both fits in
    (:func:`fits`) and uses (:func:`uses`).  The same numbers, read from ``index`` (the
    :class:`CounterIndex` of ``slices`` and ``devices``; None: built here), exact amounts as
    ints where whole."""
    if index is None:
        index = CounterIndex(slices, devices)
    taken_sets = {key for i, keys in index.sets_of if i in busy or i in chosen for key in keys}
    stranded = 0
    for key in sorted(taken_sets):
        cset = key[1]
        left = dict(index.totals.get(key, {}))
        free_users: list[Uses] = []
        for i, used in index.users[key]:
            if i not in busy and i not in chosen:
                free_users.append(used)
                continue
            for set_name, name, amount in used:
                if set_name == cset and name in left:
                    left[name] = left[name] - amount
        fitting = [u for u in free_users if all(a <= left.get(k, 0) for s, k, a in u if s == cset)]
        for counter, amount in left.items():
            if amount > 0 and not any(s == cset and k == counter for u in fitting for s, k, _ in u):
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
