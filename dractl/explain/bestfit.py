"""Best-fit advice: rank the feasible allocations on the fitting nodes by fragmentation.

Kubernetes takes the first allocation its search finds.  ``--best-fit`` also
enumerates other candidate device sets (each verified by the matcher on a world
that publishes only those devices), up to ``--best-fit-limit`` verification
steps past the scheduler's own solution, and scores each; lower is better,
compared in this order:

``freshCounterSets``, ``largestFreeGroupLoss``, ``strandedCounters``
(:mod:`dractl.explain.scoring`, shared with ``capacity --best-fit``).

The answer stays the one Kubernetes would choose; this is advice, labelled so.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from dractl.explain import scoring
from dractl.explain.report import BestFitOption, NodeExplanation
from dractl.explain.target import Target
from dractl.io.world import World
from dractl.matcher.api import AllocatedState
from dractl.model import objects as o

if TYPE_CHECKING:
    from dractl.explain.options import ExplainOptions
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
        busy = {i for i in self.devices if self.state.device_allocated(i)}
        return scoring.score(
            self.slices, self.devices, busy, set(chosen), scoring.match_attributes(self.pending)
        )


def _product(groups: list[tuple[int, list[str]]], taken: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if not groups:
        yield taken
        return
    n, cands = groups[0]
    for pick in itertools.combinations([c for c in cands if c not in taken], n):
        yield from _product(groups[1:], taken + pick)
