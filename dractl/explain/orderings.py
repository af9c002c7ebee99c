"""Best-fit preference orders of a node's candidates (``capacity --best-fit`` within a node).

``explain-allocation --best-fit`` enumerates other device sets of a node and verifies each
with a fresh Allocator (~2 ms each); a capacity simulation places tens of thousands of
copies, so it cannot.  Instead the allocator's own search finds the device set, with its
candidates tried in an order that prefers what the best-fit score
(:mod:`dractl.explain.scoring`) rewards (``Allocator.allocate(order=...)``: a pure
reordering, so every answer is one the allocator's checks accept, found at the cost of one
search on the node's kept view):

- ``counters``: devices that start no fresh counter set first (``freshCounterSets``), then,
  as best fit packs bins, those of the fullest sets, and of those the smallest (free capacity
  is not spread over many sets, nor taken in larger pieces than needed: ``strandedCounters``);
- ``groups``: for each ``matchAttribute`` of the claims, the devices of the group (one value)
  with the fewest free devices first, each group together (the search then settles on the
  smallest group that still fits: ``largestFreeGroupLoss``);
- ``groups+counters``: both, groups first.

These are bounded heuristics, not an exhaustive search: the caller scores the allocator's own
answer and the answer of each order, and keeps the best (ties: the allocator's own).  An
order is offered only where it can change the answer: where it differs from the allocator's
order, and from the orders before it, on the devices not in use (the search skips the rest).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction

from dractl.explain.catalog import attribute_value
from dractl.explain.scoring import CounterIndex, Part
from dractl.model import objects as o

_LAST = float("inf")


Left = Mapping[tuple[str, str], Mapping[str, "int | Fraction"]]
"""What counter sets have left: (``driver/pool``, counter set) -> counter -> amount."""

# the counter key of devices without counters, and of ids the node's slices lack
_NONE, _UNKNOWN = (0.0, 0.0, 0.0), (_LAST, _LAST, _LAST)


class NodeOrders:
    """The best-fit orders of one node's candidates.  Built once per node from what never
    changes (the candidates in the allocator's order, their counter consumption, their
    ``matchAttribute`` values); :meth:`orders` reads the allocated state of the moment.

    ``ids``: the candidates in the allocator's order (``Allocator.candidate_ids``);
    ``devices``: id -> device for the node's slices (ids it lacks sort last); ``index``:
    :class:`CounterIndex` of the same devices; ``match_attributes``: the claims'
    ``matchAttribute`` names."""

    __slots__ = ("_first", "_kinds", "_sig", "_values", "ids")

    def __init__(
        self,
        ids: Sequence[str],
        devices: Mapping[str, o.Device],
        index: CounterIndex,
        match_attributes: Sequence[str],
    ) -> None:
        self.ids = list(ids)
        parts = index.parts()
        # devices with the same counter sets and consumption share one key: per position, the
        # kind's number (-1: no counters, -2: not a device of the slices), and each kind
        kinds: dict[tuple[object, ...], int] = {}
        self._kinds: list[tuple[tuple[tuple[str, str], ...], list[Part]]] = []
        self._sig: list[int] = []
        for i in self.ids:
            hit = parts.get(i)
            if hit is None:
                self._sig.append(-1 if i in devices else -2)
                continue
            sig = (hit[0], tuple(hit[1]))
            n = kinds.get(sig)
            if n is None:
                n = kinds[sig] = len(self._kinds)
                self._kinds.append(hit)
            self._sig.append(n)
        # per matchAttribute: each position's value (None: none), each value's first position
        self._values: list[list[str | None]] = []
        self._first: list[dict[str, int]] = []
        for attr in match_attributes:
            row: list[str | None] = []
            for i in self.ids:
                d = devices.get(i)
                v = attribute_value(d, attr) if d is not None else None
                row.append(None if v is None else str(v))
            first: dict[str, int] = {}
            for pos, v in enumerate(row):
                if v is not None:
                    first.setdefault(v, pos)
            self._values.append(row)
            self._first.append(first)

    def orders(self, busy: AbstractSet[str], index: CounterIndex, left: Left) -> list[list[int]]:
        """The best-fit orders worth trying now (at most three; see the module docstring), each
        a permutation of the positions for ``Allocator.allocate(order=...)``.  ``busy``: the
        ids already allocated; ``index``: the node's :class:`CounterIndex`; ``left``: what the
        counter sets have left after ``busy`` (the allocator's own numbers).  Devices in use
        go last (the search skips them); an order is left out where it tries the free
        devices as the allocator's order, or an order before it, does."""
        ids = self.ids
        used = [i in busy for i in ids]
        keys: list[list[tuple[object, ...]]] = []
        counter_key = self._counter_keys(busy, index, left) if self._kinds else None
        group_key = self._group_keys(used) if self._values else None
        if counter_key is not None:
            keys.append([(u, c) for u, c in zip(used, counter_key, strict=True)])
        if group_key is not None:
            keys.append([(u, g) for u, g in zip(used, group_key, strict=True)])
            if counter_key is not None:
                keys.append([(u, g, c) for u, g, c in zip(used, group_key, counter_key, strict=True)])
        positions = range(len(ids))
        free = sum(1 for u in used if not u)
        seen = {tuple(i for i in positions if not used[i])}
        out: list[list[int]] = []
        for key in keys:
            order = sorted(positions, key=key.__getitem__)  # stable: ties in the allocator's order
            head = tuple(order[:free])
            if head not in seen:
                seen.add(head)
                out.append(order)
        return out

    def _counter_keys(
        self, busy: AbstractSet[str], index: CounterIndex, left: Left
    ) -> list[tuple[float, float, float]]:
        """Per position, as best fit packs bins: (fresh counter sets the device would start,
        share of its sets' counters left before it: fuller sets first, share of them it takes:
        smaller devices first)."""
        touched = {key for key, ids, _ in index.by_set() if not busy.isdisjoint(ids)} if busy else set()
        per_kind: list[tuple[float, float, float]] = []
        for keys, uses in self._kinds:
            fresh = float(sum(1 for key in keys if key not in touched))
            room = take = 0.0
            for key, name, amount, total in uses:
                have = left.get(key, {}).get(name)
                if have is None or not total:
                    continue
                if have < amount:  # does not fit: the allocator rejects it anyway
                    room = take = _LAST
                    break
                room += float(have) / float(total)
                take += float(amount) / float(total)
            per_kind.append((fresh, room, take))
        return [per_kind[s] if s >= 0 else (_NONE if s == -1 else _UNKNOWN) for s in self._sig]

    def _group_keys(self, used: list[bool]) -> list[tuple[float, ...]]:
        """Per position: per matchAttribute, (free devices of its group, the group's first
        position); devices without the attribute last."""
        out: list[tuple[float, ...]] = [() for _ in self.ids]
        for row, first in zip(self._values, self._first, strict=True):
            free = Counter(v for v, u in zip(row, used, strict=True) if v is not None and not u)
            for pos, v in enumerate(row):
                out[pos] += (_LAST, _LAST) if v is None else (float(free[v]), float(first[v]))
        return out
