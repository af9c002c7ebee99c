"""Sound pruning: cut search branches that provably cannot lead to a solution.

The Go allocator proves "no fit" by exhaustive backtracking.  Before descending,
the pruner checks necessary conditions on the claim's remaining requests, using
bitmasks over candidate positions:

- each request still has enough usable devices (selectable, tolerated, not in
  use, after the current start position for the request being filled);
- the requests together have enough distinct devices (Hall's condition on the
  whole set);
- for every ``matchAttribute`` constraint, some value (the fixed one, once a
  device is in the set) offers enough devices for the requests it covers.

A claim that fails these checks before anything is placed dooms the whole
allocation.  The checks ignore counters, capacity and distinctAttribute, so they
only ever over-estimate what is possible: a cut branch holds no solution, the
search order is unchanged, and the first solution found is the same.

The pruner switches on only after ``ACTIVATE_AFTER`` search steps (small
searches don't pay for it), and only when no selector on any usable device fails
(an error must surface exactly where the allocator would hit it), no request
uses admin access, firstAvailable or "All", and no device is multi-allocatable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dractl.matcher.candidates import Candidate
from dractl.matcher.constraints import MatchAttribute, lookup
from dractl.matcher.requests import Req, RequestError, Verdict
from dractl.matcher.taints import blocking_taint
from dractl.model.features import Features

if TYPE_CHECKING:
    from dractl.matcher.placement import Placer

ACTIVATE_AFTER = 256


@dataclass(slots=True)
class _Group:
    """A matchAttribute constraint: candidates per value, and the requests it covers."""

    constraint: MatchAttribute
    by_value: dict[Any, int]
    covers: frozenset[int]  # request indices


def may_activate(slots: int, candidates: int) -> bool:
    """Whether a search over ``candidates`` candidates for ``slots`` device slots (every
    request's device count, the claims together) may call :meth:`Pruner.feasible`
    ``ACTIVATE_AFTER`` times.  Where it may not, a pruner never activates: every
    ``feasible`` answers True without a look and nothing is pruned, so the search runs,
    steps and traces exactly as without one (the engine then builds none).

    The bound: ``feasible`` runs once per search call that fills a slot, and the calls for
    slot ``d + 1`` follow placements at slot ``d``, at most one per candidate: at most
    ``candidates ** d`` calls for slot ``d``, ``sum(candidates ** d for d < slots)`` in all."""
    total, level = 0, 1
    for _ in range(slots):
        total += level
        if total >= ACTIVATE_AFTER:
            return True
        level *= candidates
    return False


class Pruner:
    def __init__(
        self,
        reqs: list[list[list[Req]]],
        cands: Callable[[], list[Candidate]],
        placer: Placer,
        features: Features,
        selectable: Callable[[Req, Candidate], Verdict],
        order: Sequence[int] | None = None,
    ) -> None:
        self.reqs = reqs
        self.order = order  # the search's candidate order (None: positions); starts are ranks in it
        self._cands = cands  # every candidate, made when the pruner activates
        self.cands: list[Candidate] = []
        self.placer = placer
        self.features = features
        self.selectable = selectable
        self.calls = 0
        self.active = False
        self.disabled = False
        self.doomed = False
        self.pruned = 0
        self.static: dict[int, int] = {}  # id(req) -> mask
        self.groups: list[list[_Group]] = []
        self.tail_masks: list[int] = []

    @classmethod
    def build(
        cls,
        reqs: list[list[list[Req]]],
        cands: Callable[[], list[Candidate]],
        placer: Placer,
        features: Features,
        selectable: Callable[[Req, Candidate], Verdict],
        *,
        any_multi: bool | None = None,
        order: Sequence[int] | None = None,
    ) -> Pruner | None:
        """A pruner when the problem qualifies, else None.  ``any_multi``: whether some
        candidate is multi-allocatable, when the caller knows (else it is looked up);
        ``order``: the search's candidate order (see :class:`~dractl.matcher.search.Search`)."""
        if any_multi if any_multi is not None else any(c.allow_multi for c in cands()):
            return None
        for claim in reqs:
            for entries in claim:
                e = entries[0]
                if len(entries) != 1 or e.parent is not None or e.admin or e.all_devices is not None:
                    return None
        return cls(reqs, cands, placer, features, selectable, order)

    # ------------------------------------------------------------ activation

    def _activate(self) -> None:
        self.active = True
        self.cands = self._cands()
        rec = self.placer.rec
        enabled, rec.enabled = rec.enabled, False
        try:
            for claim in self.reqs:
                for entries in claim:
                    self.static[id(entries[0])] = self._static_mask(entries[0])
        except RequestError:
            self.disabled = True
            return
        finally:
            rec.enabled = enabled
        self.groups = [self._groups(ci) for ci in range(len(self.reqs))]
        if self.order is None:
            self.tail_masks = [
                ((1 << len(self.cands)) - 1) ^ ((1 << i) - 1) for i in range(len(self.cands) + 1)
            ]
        else:  # the candidates at rank i or later of the order
            masks, acc = [0] * (len(self.order) + 1), 0
            for rank in range(len(self.order) - 1, -1, -1):
                acc |= 1 << self.order[rank]
                masks[rank] = acc
            self.tail_masks = masks
        self.doomed = any(not self._claim_ok(ci, 0, 0, 0, fresh=True) for ci in range(len(self.reqs)))

    def _static_mask(self, req: Req) -> int:
        mask = 0
        committed = self.placer.committed
        for c in self.cands:
            if c.id in committed or self.selectable(req, c) is not True:
                continue
            if c.device.consumes_counters and not self.features.partitionable_devices:
                continue
            if self.features.device_taints and blocking_taint(c.taints, req.tolerations) is not None:
                continue
            mask |= 1 << c.idx
        return mask

    def _groups(self, ci: int) -> list[_Group]:
        out = []
        entries = [e[0] for e in self.reqs[ci]]
        for c in self.placer.constraints[ci]:
            if not isinstance(c, MatchAttribute):
                continue
            by_value = self._values(c)
            if by_value is None:
                continue
            covers = frozenset(i for i, e in enumerate(entries) if c.applies(e.name, ""))
            out.append(_Group(c, by_value, covers))
        return out

    def _values(self, c: MatchAttribute) -> dict[Any, int] | None:
        by_value: dict[Any, int] = {}
        for cand in self.cands:
            attr = lookup(cand.device, c.attribute)
            if attr is None:
                continue
            if attr.kind in ("ints", "bools", "strings", "versions"):
                if c.list_types:
                    return None  # set semantics: not modelled, don't prune on it
                key: Any = ("unique", cand.idx)  # a list value matches nothing else
            else:
                key = (attr.kind, attr.value)
            by_value[key] = by_value.get(key, 0) | (1 << cand.idx)
        return by_value

    # ----------------------------------------------------------------- check

    def feasible(self, req: Req, di: int, start: int) -> bool:
        """False only when no completion of the current partial assignment exists."""
        if self.disabled:
            return True
        if not self.active:
            self.calls += 1
            if self.calls < ACTIVATE_AFTER:
                return True
            self._activate()
            if self.disabled:
                return True
        if self.doomed or not self._claim_ok(req.claim_index, req.request_index, di, start, fresh=False):
            self.pruned += 1
            return False
        return True

    def _claim_ok(self, ci: int, ri: int, di: int, start: int, fresh: bool) -> bool:
        busy = 0 if fresh else self.placer.busy
        needs: list[tuple[int, int, int]] = []  # (request index, devices needed, usable mask)
        for r in range(ri, len(self.reqs[ci])):
            e = self.reqs[ci][r][0]
            mask = self.static[id(e)] & ~busy
            need = e.num_devices
            if r == ri:
                mask &= self.tail_masks[start]
                need -= di
            if need > 0 and mask.bit_count() < need:
                return False
            needs.append((r, need, mask))
        if not _enough(needs, -1):
            return False
        return all(self._group_ok(g, needs, fresh) for g in self.groups[ci])

    def _group_ok(self, g: _Group, needs: list[tuple[int, int, int]], fresh: bool) -> bool:
        covered = [n for n in needs if n[0] in g.covers and n[1] > 0]
        if not covered:
            return True
        fixed = None if fresh else g.constraint.fixed_value()
        if fixed is not None:
            key = (
                ("unique", -1)
                if fixed.kind in ("ints", "bools", "strings", "versions")
                else (fixed.kind, fixed.value)
            )
            return _enough(covered, g.by_value.get(key, 0))
        if not fresh and g.constraint.count > 0:
            return True  # list semantics in flight: no bound
        return any(_enough(covered, m) for m in g.by_value.values())


def _enough(needs: list[tuple[int, int, int]], within: int) -> bool:
    """Each request, and all of them together, find enough devices in ``within``."""
    union = 0
    total = 0
    for _, need, mask in needs:
        m = mask & within
        if m.bit_count() < need:
            return False
        union |= m
        total += need
    return union.bit_count() >= total
