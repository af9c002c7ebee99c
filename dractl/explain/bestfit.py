"""Best-fit advice: rank the feasible allocations on the fitting nodes by fragmentation.

Kubernetes takes the first allocation its search finds.  ``--best-fit`` also
enumerates other candidate device sets (each verified by the matcher on a world
that publishes only those devices), up to ``--best-fit-limit`` verification
steps past the scheduler's own solution, and scores each; lower is better,
compared in this order:

1. ``freshCounterSets`` — shared counter sets that no allocated device used
   before and that this allocation starts to consume (don't break a whole GPU
   for a MIG slice when a partly used GPU has room);
2. ``largestFreeGroupLoss`` — for each ``matchAttribute`` of the claims, how much
   the largest group of free candidate devices sharing one value shrinks;
3. ``strandedCounters`` — counters of partly used counter sets that keep free
   capacity no free device can use any more.

The answer stays the one Kubernetes would choose; this is advice, labelled so.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from dractl.explain.catalog import attribute_value
from dractl.explain.report import BestFitOption, NodeExplanation
from dractl.explain.target import Target
from dractl.io.world import World
from dractl.matcher.api import AllocatedState
from dractl.model import objects as o

if TYPE_CHECKING:
    from dractl.explain.engine import ExplainOptions
    from dractl.matcher.engine import Allocator

STATE_DEPENDENT = {"counters-exhausted", "constraint-mismatch", "capacity-insufficient"}
SHOWN = 10


def best_fit(
    allocator: Allocator,
    world: World,
    target: Target,
    fitting: Sequence[NodeExplanation],
    options: ExplainOptions,
) -> tuple[tuple[BestFitOption, ...], int]:
    """Scored options over the fitting nodes (best first, at most 10) and the steps used."""
    from dractl.explain.extended import extended_claim

    budget = options.best_fit_limit
    found: list[BestFitOption] = []
    state = AllocatedState.from_claims(world.claims)
    for ne in fitting:
        node = world.node(ne.name) or o.Node(meta=o.ObjectMeta(name=ne.name))
        pending = [tc.claim for tc in target.claims if tc.claim.allocation is None]
        if target.pod is not None and target.extended:
            ext = extended_claim(world, target.pod, node)
            if ext is not None:
                pending.append(ext)
        if not pending:
            continue
        used = _NodeSearch(allocator, world, state, node, pending, options, budget).run(found, ne)
        budget -= used
        if budget <= 0:
            break
    found.sort(key=lambda b: (b.score, not b.chosen_by_scheduler, b.node))
    return tuple(found[:SHOWN]), options.best_fit_limit - max(budget, 0)


class _NodeSearch:
    def __init__(
        self,
        allocator: Allocator,
        world: World,
        state: AllocatedState,
        node: o.Node,
        pending: list[o.ResourceClaim],
        options: ExplainOptions,
        budget: int,
    ) -> None:
        self.allocator, self.world, self.state, self.node = allocator, world, state, node
        self.pending, self.options, self.budget = pending, options, budget
        name = node.meta.name
        self.slices = allocator.on_node.get(name, []) + allocator.shared
        self.devices = {d.id: d for s in self.slices for d in s.devices}

    def run(self, found: list[BestFitOption], ne: NodeExplanation) -> int:
        chosen = tuple(
            sorted(
                d["driver"] + "/" + d["pool"] + "/" + d["device"]
                for a in ne.allocations
                if not a.existing
                for d in a.devices
            )
        )
        seen = {chosen}
        found.append(BestFitOption(ne.name, chosen, self.score(chosen), True))
        steps = 0
        for combo in self._combos(ne):
            steps += 1
            key = tuple(sorted(combo))
            if key not in seen and self._feasible(set(combo)):
                seen.add(key)
                found.append(BestFitOption(ne.name, key, self.score(key)))
            if steps >= self.budget:
                break
        return steps

    def _combos(self, ne: NodeExplanation) -> Iterator[tuple[str, ...]]:
        """Device sets in the allocator's candidate order, one group per request."""
        out = self._rejected()
        groups = []
        for f in ne.funnel:
            if f.subrequest is not None and not f.chosen:
                continue  # firstAvailable: keep to the subrequest the scheduler picked
            if f.needed == "all":
                groups.append((len(f.chosen), list(f.chosen)))
                continue
            bad = out.get((f.claim, f.request, f.subrequest), set())
            cands = [d for d in self.devices if d not in bad and not self.state.device_allocated(d)]
            groups.append((int(f.needed), cands))
        yield from _product(groups, ())

    def _rejected(self) -> dict[tuple[str, str, str | None], set[str]]:
        """Per request, the devices it can never use here (whatever else is chosen)."""
        outcome = self.allocator.allocate(self.node, self.pending, trace=True)
        bad: dict[tuple[str, str, str | None], set[str]] = {}
        for d in outcome.trace.decisions:
            if (
                d.device_id
                and d.reason.value not in STATE_DEPENDENT
                and (d.reason.value != "in-use" or self.state.device_allocated(d.device_id))
            ):
                bad.setdefault((d.claim, d.request, d.subrequest), set()).add(d.device_id)
        return bad

    def _feasible(self, devices: set[str]) -> bool:
        from dractl.matcher.engine import Allocator

        only = [
            replace(s, devices=tuple(d for d in s.devices if d.id in devices)) if s.devices else s
            for s in self.slices
        ]
        probe = Allocator(
            self.world.device_classes,
            only,
            self.options.features,
            allocated=self.state,
            taint_rules=self.world.taint_rules,
            implementation=self.options.allocator,
        )
        return probe.allocate(self.node, self.pending, trace=False).status == "allocated"

    def score(self, chosen: Sequence[str]) -> tuple[int, int, int]:
        picked = [self.devices[i] for i in chosen if i in self.devices]
        return self._fresh(picked), self._group_loss(set(chosen)), self._stranded(set(chosen))

    def _sets_in_use(self, extra: set[str]) -> Counter[tuple[str, str]]:
        used: Counter[tuple[str, str]] = Counter()
        for d in self.devices.values():
            if d.id in extra or self.state.device_allocated(d.id):
                for c in d.consumes_counters:
                    used[(f"{d.driver}/{d.pool}", c.counter_set)] += 1
        return used

    def _fresh(self, picked: list[o.Device]) -> int:
        before = self._sets_in_use(set())
        fresh = {(f"{d.driver}/{d.pool}", c.counter_set) for d in picked for c in d.consumes_counters}
        return sum(1 for k in fresh if not before[k])

    def _group_loss(self, chosen: set[str]) -> int:
        attrs = {a for c in self.pending for k in c.spec.constraints for a in (k.match_attribute,) if a}
        free = [d for d in self.devices.values() if not self.state.device_allocated(d.id)]
        loss = 0
        for attr in sorted(attrs):
            loss += _largest(free, attr, set()) - _largest(free, attr, chosen)
        return loss

    def _stranded(self, chosen: set[str]) -> int:
        busy = {d for d in self.devices if d in chosen or self.state.device_allocated(d)}
        used = self._sets_in_use(chosen)
        stranded = 0
        for (pool, cset), _ in used.items():
            users = [
                d
                for d in self.devices.values()
                if f"{d.driver}/{d.pool}" == pool and any(c.counter_set == cset for c in d.consumes_counters)
            ]
            left = _left(self.slices, pool, cset, [d for d in users if d.id in busy])
            free_users = [d for d in users if d.id not in busy]
            for counter, amount in left.items():
                if amount > 0 and not any(
                    _fits(d, cset, left) and _uses(d, cset, counter) for d in free_users
                ):
                    stranded += 1
        return stranded


def _product(groups: list[tuple[int, list[str]]], taken: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if not groups:
        yield taken
        return
    n, cands = groups[0]
    for pick in itertools.combinations([c for c in cands if c not in taken], n):
        yield from _product(groups[1:], taken + pick)


def _largest(devices: list[o.Device], attr: str, minus: set[str]) -> int:
    counts = Counter(
        str(v) for d in devices if d.id not in minus for v in (attribute_value(d, attr),) if v is not None
    )
    return max(counts.values(), default=0)


def _left(
    slices: Sequence[o.ResourceSlice], pool: str, cset: str, busy: list[o.Device]
) -> dict[str, Fraction]:
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


def _fits(d: o.Device, cset: str, left: dict[str, Fraction]) -> bool:
    return all(
        q.value <= left.get(k, Fraction(0))
        for c in d.consumes_counters
        if c.counter_set == cset
        for k, q in c.counters.items()
    )


def _uses(d: o.Device, cset: str, counter: str) -> bool:
    return any(c.counter_set == cset and counter in c.counters for c in d.consumes_counters)
