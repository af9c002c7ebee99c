"""Stranded capacity: free devices the claim shape cannot use once no copy fits, and why.

Computed once no copy fits any more, on every node the pod's filters allow: each
request's free matching devices classified with the allocator's own predicates, plus
the allocator itself for the largest block a node can still give:

- ``too-few-on-node``: usable devices on nodes that have fewer than the request needs;
- ``constraint``: nodes with enough usable devices where the claim still fails — the
  claim's constraints (``matchAttribute``/``distinctAttribute``) or its other requests
  allow at most ``largestBlock`` devices together (found by allocating the same claim
  with smaller counts);
- ``counters-exhausted``: matching free devices whose shared counters are used up by
  partitions in use, plus ``partly-consumed-counters``: what is left in counter sets
  that some partition already uses;
- ``capacity-below-request``: consumable-capacity devices whose remaining capacity is
  below the request's minimum;
- ``tainted``: matching free devices behind a taint the claim does not tolerate.

The best-fit placement score is :meth:`Simulation.placement_score
<dractl.explain.simulation.Simulation.placement_score>`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dractl.explain import scoring
from dractl.explain.capacity_report import Stranded
from dractl.explain.report import NodeExplanation
from dractl.matcher import capacity as cap
from dractl.matcher import counters
from dractl.matcher.nodes import NodeSelectorError, node_matches
from dractl.matcher.selection import SelectorFailure
from dractl.matcher.taints import blocking_taint
from dractl.model import objects as o

if TYPE_CHECKING:
    from dractl.explain.simulation import Simulation


def fragmentation(sim: Simulation) -> tuple[Stranded, ...]:
    """Stranded capacity after the simulation (empty when nothing matching is left free).

    Per node and request, the free devices that match the request's class and selectors
    are classified with the allocator's own predicates, in its order of checks: capacity
    left, shared counters left, taints; what passes all of them is usable."""
    if sim.limited or sim.error is not None or sim.shape.blockers:
        return ()
    claims = sim.shape.claims_for(len(sim.placements) + 1)
    few: list[int] = []
    blocked: list[tuple[str, int]] = []  # (node, usable devices) where the combination fails
    counts: Counter[str] = Counter()
    nodes_with: dict[str, set[str]] = defaultdict(set)
    examples: dict[str, list[str]] = defaultdict(list)
    for name in sim.node_names:
        if name in sim.filtered:
            continue
        fails = False
        for claim in claims:
            for request in claim.spec.requests:
                if request.exactly is None:
                    continue
                usable, rejected = _classify(sim, sim.nodes[name], request.exactly)
                for check, ids in rejected.items():
                    counts[check] += len(ids)
                    nodes_with[check].add(name)
                    examples[check].extend(ids)
                if request.exactly.allocation_mode == "All" or not usable:
                    continue
                if len(usable) < request.exactly.count:
                    few.append(len(usable))
                elif not fails:
                    fails = True
                    blocked.append((name, len(usable)))
    out: list[Stranded] = []
    if few:
        out.append(
            Stranded(
                "too-few-on-node",
                f"{sum(few)} matching device{_s(sum(few))} free on {_nodes(len(few))} with fewer "
                f"than a copy needs (largest: {max(few)} on one node)",
                devices=sum(few),
                nodes=len(few),
                largest_block=max(few),
            )
        )
    if blocked:
        out.append(_constraint_entry(sim, blocked))
    out.extend(_rejections(sim, counts, nodes_with, examples))
    return tuple(out)


_REJECTED = {
    "counters": (
        "counters-exhausted",
        "{n} matching device{s} free on {nodes} but {its} shared counters are used up by partitions in use",
    ),
    "capacity": (
        "capacity-below-request",
        "{n} consumable-capacity device{s} on {nodes} {has} less capacity left than a copy requests",
    ),
    "taints": (
        "tainted",
        "{n} matching free device{s} on {nodes} {carries} a taint the claim does not tolerate",
    ),
}


def _rejections(
    sim: Simulation, counts: Counter[str], nodes_with: dict[str, set[str]], examples: dict[str, list[str]]
) -> list[Stranded]:
    out: list[Stranded] = []
    for check, (reason, text) in _REJECTED.items():
        n = counts[check]
        if not n:
            continue
        one = n == 1
        message = text.format(
            n=n,
            s=_s(n),
            nodes=_nodes(len(nodes_with[check])),
            its="its" if one else "their",
            has="has" if one else "have",
            carries="carries" if one else "carry",
        )
        out.append(
            Stranded(
                reason,
                message,
                devices=n,
                nodes=len(nodes_with[check]),
                details={"examples": sorted(set(examples[check]))[:5]},
            )
        )
        if check == "counters":
            partly = partly_consumed(sim)
            if partly is not None:
                out.append(partly)
    return out


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _nodes(n: int) -> str:
    return f"{n} node{_s(n)}"


def _classify(
    sim: Simulation, node: o.Node, req: o.ExactDeviceRequest
) -> tuple[list[str], dict[str, list[str]]]:
    """Free devices reachable from ``node`` that match ``req``'s class and selectors: those
    usable by it, and the others by the check that rejects them (capacity, counters, taints)."""
    a = sim.allocator
    cls = a.classes.get(req.device_class_name)
    if cls is None:
        return [], {}
    found = sim.node_pools(node)
    if found is None:
        return [], {}
    usable: list[str] = []
    rejected: dict[str, list[str]] = defaultdict(list)
    for pool in found:
        if pool.incomplete or pool.invalid:
            continue
        left = _Left(sim, pool)
        for s in pool.slices:
            for d in s.devices:
                check = _check(sim, node, s, d, cls, req, left)
                if check == "usable":
                    usable.append(d.id)
                elif check:
                    rejected[check].append(d.id)
    return usable, dict(rejected)


class _Left:
    """What a pool's counter sets have left after the simulation (``counters.available``),
    computed when a device first asks (most free devices are rejected before the counters)."""

    __slots__ = ("_left", "_pool", "_sim")

    def __init__(self, sim: Simulation, pool: Any) -> None:
        self._sim, self._pool = sim, pool
        self._left: dict[str, dict[str, Fraction]] | None = None

    def get(self, counter_set: str, default: Any) -> Any:
        if self._left is None:
            state = self._sim.allocator.state
            self._left = counters.available(self._pool, state.allocated_ids.__contains__)
        return self._left.get(counter_set, default)


def _check(
    sim: Simulation,
    node: o.Node,
    s: o.ResourceSlice,
    d: o.Device,
    cls: o.DeviceClass,
    req: o.ExactDeviceRequest,
    left: Any,
) -> str:
    """``""`` (not free or not matching), ``usable``, or the check that rejects the device."""
    a = sim.allocator
    multi = bool(d.allow_multiple_allocations) and a.features.consumable_capacity
    dev_id = d.id
    if dev_id in a.state.devices or (not multi and dev_id in a.state.allocated_ids):
        return ""
    try:
        if not all(a.selectors.matches(e, d) for e in (*cls.selectors, *req.selectors)):
            return ""
        if s.per_device_node_selection and not node_matches(
            node, d.node_name or "", bool(d.all_nodes), d.node_selector
        ):
            return ""
    except (SelectorFailure, NodeSelectorError):
        return ""
    if a.features.consumable_capacity and (req.capacity_requests or multi):
        try:
            if not cap.fits(a.state.committed_capacity.get(d.id), req.capacity_requests, d.capacity, None):
                return "capacity"
        except cap.UndefinedCapacity:
            return ""
    if d.consumes_counters and not _counters_left(d, left):
        return "counters"
    if blocking_taint(a.taints_of(d), req.tolerations) is not None:
        return "taints"
    return "usable"


def _counters_left(d: o.Device, left: Any) -> bool:
    for use in d.consumes_counters:
        have = left.get(use.counter_set, {})
        if any(q.value > have.get(k, Fraction(0)) for k, q in use.counters.items()):
            return False
    return True


def _constraint_entry(sim: Simulation, blocked: list[tuple[str, int]]) -> Stranded:
    """Nodes with enough usable devices where the copy still fails: the largest block each
    can give (the matcher on the same claims with smaller counts)."""
    blocks = Counter(_largest_block(sim, name) for name, _ in blocked)
    largest = max(blocks, default=0)
    at_largest = blocks.get(largest, 0)
    devices = sum(u for _, u in blocked)
    attrs = sorted(
        {
            k.match_attribute or k.distinct_attribute or ""
            for c in _shape_claims(sim)
            for k in c.spec.constraints
        }
        - {""}
    )
    why = f"the claim's constraints ({', '.join(attrs)})" if attrs else "the claim's requests together"
    needed = _needed(sim)
    return Stranded(
        "constraint",
        f"{devices} usable device{_s(devices)} free on {len(blocked)} node{_s(len(blocked))}, but {why} "
        f"allow fewer than {needed} together there: largest block {largest} on {at_largest} "
        f"node{_s(at_largest)}",
        devices=devices,
        nodes=len(blocked),
        largest_block=largest,
        details={"attributes": attrs, "blocks": {str(k): v for k, v in sorted(blocks.items())}},
    )


def _needed(sim: Simulation) -> str:
    for c in sim.shape.fresh:
        for r in c.spec.requests:
            if r.exactly is not None and r.exactly.allocation_mode != "All":
                return str(r.exactly.count)
    return "the requested number of devices"


def _shape_claims(sim: Simulation) -> list[o.ResourceClaim]:
    return [*sim.shape.fresh, *sim.shape.shared]


def _largest_block(sim: Simulation, node_name: str) -> int:
    """The biggest count of the copy's first counted request that still fits on the node
    (other requests unchanged); 0 when none does."""
    claims = sim.shape.claims_for(len(sim.placements) + 1)
    if not claims:
        return 0
    first = claims[0]
    index = next(
        (
            i
            for i, r in enumerate(first.spec.requests)
            if r.exactly is not None
            and r.exactly.count > 1
            and (r.exactly.allocation_mode or "ExactCount") == "ExactCount"
        ),
        None,
    )
    if index is None:
        return 0
    node = sim.nodes[node_name]
    request = first.spec.requests[index]
    assert request.exactly is not None
    for count in range(request.exactly.count - 1, 0, -1):
        smaller = replace(request, exactly=replace(request.exactly, count=count))
        requests = (*first.spec.requests[:index], smaller, *first.spec.requests[index + 1 :])
        probe = replace(first, spec=replace(first.spec, requests=requests))
        if sim.allocator.allocate(node, [probe, *claims[1:]], trace=False).status == "allocated":
            return count
    return 0


def partly_consumed(sim: Simulation) -> Stranded | None:
    """Counter sets that some allocated partition uses and that still have counters left."""
    totals: dict[tuple[str, str], dict[str, Fraction]] = {}
    for s in sim.world.slices:
        for cs in s.shared_counters:
            totals.setdefault((f"{s.driver}/{s.pool.name}", cs.name), {}).update(
                {k: q.value for k, q in cs.counters.items()}
            )
    used: dict[tuple[str, str], list[o.Device]] = defaultdict(list)
    for s in sim.world.slices:
        for d in s.devices:
            if d.id in sim.allocator.state.allocated_ids:
                for c in d.consumes_counters:
                    used[(f"{d.driver}/{d.pool}", c.counter_set)].append(d)
    left_total: Counter[str] = Counter()
    sets = 0
    for key, busy in used.items():
        if key not in totals:
            continue
        left = scoring.counters_left(sim.world.slices, key[0], key[1], busy)
        positive = {k: v for k, v in left.items() if v > 0}
        if positive:
            sets += 1
            for k, v in positive.items():
                left_total[k] += int(v) if v == int(v) else float(v)  # type: ignore[assignment]
    if not sets:
        return None
    parts = ", ".join(f"{v} {k}" for k, v in sorted(left_total.items()))
    return Stranded(
        "partly-consumed-counters",
        f"partitions in use on {sets} counter set{_s(sets)} (e.g. GPUs) leave {parts} that a device "
        "needing a whole counter set cannot use",
        nodes=0,
        details={"counterSets": sets, "left": dict(sorted(left_total.items()))},
    )


# --------------------------------------------------------------------------- best fit


def node_summary(ne: NodeExplanation) -> str:
    """The headline of a node in the blocking explanation (for renderers)."""
    return ne.headline
