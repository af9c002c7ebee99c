"""The capacity simulation: copies of one claim shape placed one after another on one
:class:`~dractl.matcher.engine.Allocator` (see :mod:`dractl.explain.capacity` for the
conventions and the report built from it).

A module of its own so that the stranded-capacity analysis
(:mod:`dractl.explain.fragmentation`) can read a simulation without importing the
command's engine, which imports it."""

from __future__ import annotations

import heapq
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from dractl.explain import target as tgt
from dractl.explain.capacity_report import (
    NodeCapacity,
    Placement,
    Unbounded,
)
from dractl.explain.extended import extended_claim
from dractl.explain.nodes import pod_node_blockers, selector_matches
from dractl.explain.simulation_bestfit import BestFitPlacement, Window
from dractl.explain.whatif import WhatIf
from dractl.io.world import World
from dractl.matcher.api import AllocatedState, NodeOutcome
from dractl.matcher.engine import Allocator
from dractl.model import objects as o
from dractl.model.fastinit import fast_init
from dractl.model.features import DEFAULT_KUBE_VERSION, Features

ORDERS = ("name", "most-free", "least-free")
DEFAULT_MAX_COPIES = 100_000
SHARE_ID_NAMESPACE = uuid.UUID("5f0c8a52-3c8e-4c59-9a43-6d7261637460")


@dataclass(frozen=True)
class CapacityOptions:
    """``order``: which node takes the next copy (see :data:`ORDERS`); ``replicas``: the
    gang size asked about (None: just count); ``max_copies``: stop counting there (the
    report says the count is a lower bound); ``best_fit``: also run the fragmentation-aware
    placement (advice); ``explain_blocking``: explain the copy that no longer fits."""

    features: Features = field(default_factory=Features.for_version)
    kube_version: str = DEFAULT_KUBE_VERSION
    order: str = "name"
    replicas: int | None = None
    best_fit: bool = False
    whatif: WhatIf = field(default_factory=WhatIf)
    max_copies: int = DEFAULT_MAX_COPIES
    feature_overrides: tuple[str, ...] = ()
    explain_blocking: bool = True
    implementation: str = "auto"

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}")


# --------------------------------------------------------------------------- the copy


@dataclass(frozen=True)
class Shape:
    """What one copy consists of.  ``fresh``: claims created anew for every copy;
    ``shared``: the pod's named claims (one object for all copies); ``pod``: the pod
    (None for bare claims); ``blockers``: why no copy can be placed at all."""

    fresh: tuple[o.ResourceClaim, ...]
    shared: tuple[o.ResourceClaim, ...]
    pod: o.Pod | None
    extended: bool
    blockers: tuple[str, ...]

    @classmethod
    def of(cls, world: World, target: tgt.Target) -> Shape:
        fresh: list[o.ResourceClaim] = []
        shared: list[o.ResourceClaim] = []
        for tc in target.claims:
            if target.pod is not None and tc.origin == "claim" and tc.template is None:
                shared.append(tc.claim)
            else:
                fresh.append(replace(tc.claim, allocation=None, reserved_for=(), device_statuses=()))
        return cls(tuple(fresh), tuple(shared), target.pod, bool(target.extended), tuple(target.blockers))

    def claims_for(self, k: int) -> list[o.ResourceClaim]:
        """The fresh claims of copy ``k`` (1-based), named ``<base>-copy-<k>``."""
        return [renamed(c, k) for c in self.fresh]

    def pod_copy(self, k: int) -> o.Pod | None:
        if self.pod is None:
            return None
        meta = replace(self.pod.meta, name=f"{self.pod.meta.name}-copy-{k}", uid=f"dractl-capacity-copy-{k}")
        return replace(
            self.pod, meta=meta, node_name=None, claim_statuses={}, extended_resource_claim_status=None
        )


def renamed(claim: o.ResourceClaim, k: int, **changes: Any) -> o.ResourceClaim:
    """``claim`` as copy ``k`` makes it: named ``<base>-copy-<k>`` (``changes``: other fields)."""
    base = claim.meta.generate_name.rstrip("-") if claim.meta.generate_name else claim.meta.name
    meta = _replace(claim.meta, name=f"{base}-copy-{k}", generate_name="", uid=f"dractl-capacity-{base}-{k}")
    return _replace(claim, meta=meta, **changes)


_T = TypeVar("_T")
_INIT_FIELDS: dict[type, tuple[tuple[str, ...], Callable[..., Any]]] = {}


def _replace(obj: _T, **changes: Any) -> _T:
    """``dataclasses.replace`` for the model's dataclasses (all of whose fields are init
    fields), without its introspection on every call and, for the slotted ones, without the
    frozen ``__init__``'s per-field ``object.__setattr__`` (:func:`fast_init`, the same
    object): copies are made for every copy placed."""
    cls = type(obj)
    hit = _INIT_FIELDS.get(cls)
    if hit is None:
        names = tuple(f.name for f in fields(cls) if f.init)  # type: ignore[arg-type]
        try:
            make: Callable[..., Any] = fast_init(cls)
        except TypeError:  # not a slotted dataclass fast_init can build
            make = cls
        hit = _INIT_FIELDS[cls] = (names, make)
    values = {n: getattr(obj, n) for n in hit[0]}
    values.update(changes)
    return hit[1](**values)


# --------------------------------------------------------------------------- the simulation


class Simulation(BestFitPlacement):
    """Places copies one after another on one Allocator; see the module docstring."""

    def __init__(self, world: World, shape: Shape, options: CapacityOptions, *, best_fit: bool) -> None:
        self.world, self.shape, self.options, self.use_best_fit = world, shape, options, best_fit
        self.share_counter = 0
        self.allocator = _allocator(world, options, self._share_id)
        self.node_names = world.node_names()
        self.nodes = {n: world.node(n) or o.Node(meta=o.ObjectMeta(name=n)) for n in self.node_names}
        self.filtered: dict[str, tuple[str, ...]] = {}
        self.dead: dict[str, str] = {}  # node -> why a copy stopped fitting there
        self.placements: list[Placement] = []
        # the fresh claims of every placed copy, named when asked for (see placed_claims):
        # (copy, the claim allocate() saw, its allocation, its consumers)
        self._placed: list[tuple[int, o.ResourceClaim, o.AllocationResult, tuple[Any, ...]]] = []
        self._templates = {id(c) for c in shape.fresh}
        self.shared_now = {c.meta.key: c for c in shape.shared}
        self.limited = False
        # a placed copy changed nothing: every later copy is placed the same way (see run)
        self.unbounded: Unbounded | None = None
        self.error: str | None = None
        self.attempts = 0
        self._local = {
            n: {d.id for s in self.allocator.on_node.get(n, ()) for d in s.devices} for n in self.node_names
        }
        self._free = {
            n: sum(1 for d in ids if d not in self.allocator.state.allocated_ids)
            for n, ids in self._local.items()
        }
        self._static_filters()
        self._live: list[str] = []
        self._start = 0
        self._heap: list[tuple[int, str, int]] = []
        self._version: dict[str, int] = {}
        self._init_best_fit()
        self._reset_order()

    def _share_id(self) -> str:
        self.share_counter += 1
        return str(uuid.uuid5(SHARE_ID_NAMESPACE, str(self.share_counter)))

    def _static_filters(self) -> None:
        for name, node in self.nodes.items():
            reasons = pod_node_blockers(self.shape.pod, node if self.world.nodes else None)
            if reasons:
                self.filtered[name] = tuple(reasons)

    # -- running

    def unallocated_devices(self, name: str) -> int:
        """The node's own devices with no allocation of any kind (what ``most-free`` and
        ``least-free`` order by: kept up to date by each placement)."""
        return self._free.get(name, 0)

    def free_devices(self, name: str) -> int:
        """The node's own devices (of slices bound to it by name) that are free now, as
        ``dractl availability`` counts free (:func:`dractl.matcher.free.count_free`: not in
        use, shared counters and capacity left, no NoSchedule/NoExecute taint, pool complete
        and valid).  Counted afresh on each call."""
        from dractl.matcher import free

        found = self.node_pools(self.nodes[name])
        return 0 if found is None else free.count_free(self.allocator, found, name)

    def node_pools(self, node: o.Node) -> list[Any] | None:
        """The pools ``node`` reaches (None: gathering them failed), as the allocator gathered
        them for its view of the node when it is not ``stable`` (which walks every slice of the
        cluster instead), else gathered here."""
        from dractl.matcher import pools
        from dractl.matcher.requests import RequestError

        a = self.allocator
        if not a.stable:
            try:
                return list(a.view(node).found)
            except RequestError:
                return None
        try:
            return pools.gather(a.on_node.get(node.meta.name, []) + a.shared, node, a.features, a.all_slices)
        except pools.PoolError:
            return None

    def run(self) -> list[Placement]:
        """Place copies until one fits nowhere (or ``max_copies``).  Returns the placements.

        A copy whose allocation leaves the allocated state as it was (its claims need no
        devices; admin access; shares that consume nothing) and that shares no named claim
        with the others (their consumers grow with each copy) is the fixed point of the
        simulation: the next copy sees the same state, the same nodes in the same order, and
        is placed the same way, and so is every one after it.  The count stops there, with
        :attr:`unbounded` set (and ``limited``): devices set no limit; constant time and
        memory however large ``max_copies`` is."""
        if self.shape.blockers:
            return self.placements
        limit = self.options.max_copies
        while len(self.placements) < limit:
            k = len(self.placements) + 1
            if not self._place(k):
                return self.placements
            if self.unbounded is not None:
                self.limited = True
                return self.placements
        self.limited = True
        return self.placements

    @property
    def copies(self) -> int:
        """The count: the copies placed, or, when :attr:`unbounded`, the larger of
        ``max_copies`` and ``replicas`` (every later copy goes where the last one went)."""
        if self.unbounded is None:
            return len(self.placements)
        return max(self.options.max_copies, self.options.replicas or 0, len(self.placements))

    def _pending_shared(self) -> list[o.ResourceClaim]:
        if not self.shared_now:
            return []
        return [c for c in self.shared_now.values() if c.allocation is None]

    def _place(self, k: int) -> bool:
        shape_changes = bool(self.shared_now) and bool(self._pending_shared())
        if self.use_best_fit:
            found = self._best_node(k)
        else:
            found = self._first_node(k)
        if found is None:
            return False
        name, claims, outcome = found
        if self._better and self._better.get(name) is outcome:
            self.reordered += 1
        self._commit(k, name, claims, outcome)
        if shape_changes:  # shared claims got allocated: later copies have another shape
            self.dead.clear()
            self._forget(None)
            self._reset_order()
        return True

    def _candidates(self) -> Iterator[str]:
        """Live nodes in the chosen order.  ``name``: a cursor past the leading dead nodes;
        ``most-free``/``least-free``: a heap of (free devices, name) with lazy invalidation,
        so a copy costs O(log nodes), not a sort."""
        if self.options.order == "name":
            while self._start < len(self._live) and self._live[self._start] in self.dead:
                self._start += 1
            live = self._live
            for i in range(self._start, len(live)):  # no copy of the list per copy placed
                name = live[i]
                if name not in self.dead:
                    yield name
            return
        while self._heap:
            _, name, version = heapq.heappop(self._heap)
            if version != self._version.get(name) or name in self.dead:
                continue
            self._version[name] = version + 1  # popped: push it back if it stays live unplaced
            yield name

    def _push(self, name: str) -> None:
        if self.options.order == "name" or name in self.dead or name in self.filtered:
            return
        version = self._version.get(name, 0) + 1
        self._version[name] = version
        sign = -1 if self.options.order == "most-free" else 1
        heapq.heappush(self._heap, (sign * self._free[name], name, version))

    def _reset_order(self) -> None:
        self._live = [n for n in self.node_names if n not in self.filtered]
        self._pos = {n: i for i, n in enumerate(self._live)}
        self._window = Window()
        self._start = 0
        self._heap = []
        self._version = {}
        for name in self._live:
            self._push(name)

    def _first_node(self, k: int) -> tuple[str, list[o.ResourceClaim], NodeOutcome] | None:
        for name in self._candidates():
            claims, outcome = self._try(k, name)
            if outcome is None:
                continue
            if outcome.status == "allocated":
                return name, claims, outcome
            if self.error is not None:
                return None
        return None

    def _try(self, k: int, name: str) -> tuple[list[o.ResourceClaim], NodeOutcome | None]:
        """Allocate copy ``k`` on node ``name``.  The allocator is given the shape's own fresh
        claims, not their copies named for ``k``: its answer depends on their specs only, never
        on their names, except in the messages of errors, which are asked again with the
        named copies (the same search: the same share IDs).  Named claims are made for
        placed copies only when asked for (:attr:`placed_claims`)."""
        node = self.nodes[name]
        if self._shared_block(name):
            return [], None
        claims = self._pending(k, node)
        if not claims:  # only shared, already allocated claims: every copy fits where they are
            return claims, NodeOutcome(name, "allocated")
        self.attempts += 1
        shares = self.share_counter
        outcome = self.allocator.allocate(node, claims, trace=False)
        if outcome.status == "error" and any(id(c) in self._templates for c in claims):
            after, self.share_counter = self.share_counter, shares
            outcome = self.allocator.allocate(node, self._named(k, claims), trace=False)
            self.share_counter = after
        if outcome.status == "error":
            if outcome.error_scope == "node":
                self.dead[name] = outcome.error or "allocation error"
            else:
                self.error = f"{outcome.error} (on node {name})"
        elif outcome.status != "allocated":
            self.dead[name] = "the copy does not fit"
        return claims, outcome

    def _shared_block(self, name: str) -> bool:
        """Whether the pod's named claims rule node ``name`` out now (it is then dead)."""
        for c in self.shared_now.values():
            if c.allocation is not None and not selector_matches(
                c.allocation.node_selector, self.nodes[name]
            ):
                self.dead[name] = f"shared claim {c.meta.key} is allocated for other nodes"
                return True
            if c.allocation is not None and len(c.reserved_for) >= tgt.RESERVED_FOR_MAX:
                self.dead[name] = f"shared claim {c.meta.key} already has {tgt.RESERVED_FOR_MAX} consumers"
                return True
        return False

    def _pending(self, k: int, node: o.Node) -> list[o.ResourceClaim]:
        """The claims copy ``k`` asks for on ``node``: shared ones not yet allocated, the
        shape's fresh claims (as they are, see :meth:`_try`), its extended-resource claim."""
        claims = [*self._pending_shared(), *self.shape.fresh]
        if self.shape.extended and self.shape.pod is not None:
            ext = extended_claim(self.world, self.shape.pod, node)
            if ext is not None:
                claims.append(renamed(ext, k))
        return claims

    def _named(self, k: int, claims: list[o.ResourceClaim]) -> list[o.ResourceClaim]:
        """``claims`` with the shape's fresh claims named for copy ``k``."""
        return [renamed(c, k) if id(c) in self._templates else c for c in claims]

    def _commit(self, k: int, name: str, claims: list[o.ResourceClaim], outcome: NodeOutcome) -> None:
        local = self._local.get(name, set())
        before = self.allocator.state.allocated_ids
        devices = [r.device_id for res in outcome.results for r in res.results]
        newly = {d for d in devices if d in local and d not in before}
        changed = self.allocator.commit(outcome.results)
        self._touched(outcome)
        if not changed and not self.shape.shared:  # named claims: one more consumer each copy
            self.unbounded = Unbounded(
                reason="no-devices" if not devices else "state-unchanged", node=name, simulated=k
            )
        pod = self.shape.pod_copy(k)
        consumer = (o.ResourceClaimConsumerReference("pods", pod.meta.name, pod.meta.uid),) if pod else ()
        shared = self.shared_now
        templates = self._templates
        for claim, result in zip(claims, outcome.results, strict=True):
            if shared and id(claim) not in templates and claim.meta.key in shared:
                shared[claim.meta.key] = _replace(claim, allocation=result, reserved_for=consumer)
            else:
                self._placed.append((k, claim, result, consumer))
        if shared and pod is not None:
            keys = {x.meta.key for x in claims if id(x) not in templates}
            for key, c in shared.items():
                if c.allocation is not None and key not in keys:
                    shared[key] = replace(c, reserved_for=(*c.reserved_for, *consumer))
        busy = self.allocator.state.allocated_ids  # after commit (admin access never counts)
        self._free[name] -= sum(1 for d in newly if d in busy)
        self._push(name)
        self.placements.append(Placement(k, name, tuple(devices)))

    @property
    def placed_claims(self) -> list[o.ResourceClaim]:
        """The fresh claims of every placed copy, named ``<base>-copy-<k>``, allocated and
        reserved for the copy's pod (built on each call: for the blocking explanation)."""
        templates = self._templates
        return [
            renamed(claim, k, allocation=result, reserved_for=consumer)
            if id(claim) in templates
            else _replace(claim, allocation=result, reserved_for=consumer)
            for k, claim, result, consumer in self._placed
        ]

    # -- results

    def per_node(self, free: bool = True) -> list[NodeCapacity]:
        """Copies per node, and (``free``) the node's own devices that are free afterwards."""
        counts = Counter(p.node for p in self.placements)
        if self.unbounded is not None:  # the copies not simulated go where the last one went
            counts[self.unbounded.node] += self.copies - len(self.placements)
        out = []
        for name in self.node_names:
            why = self.filtered.get(name)
            out.append(
                NodeCapacity(
                    name=name,
                    copies=counts.get(name, 0),
                    free_devices=self.free_devices(name) if free else 0,
                    filtered=why or (),
                    stopped=self.dead.get(name),
                )
            )
        return out

    def per_pool(self) -> Counter[str]:
        pools: Counter[str] = Counter()
        for p in self.placements:
            for d in p.devices:
                pools[d.rsplit("/", 1)[0]] += 1
        return pools

    def final_world(self) -> World:
        """The world with every placed copy's claims allocated (for the blocking explanation)."""
        shared_keys = set(self.shared_now)
        claims = [
            self.shared_now.get(c.meta.key, c) if c.meta.key in shared_keys else c for c in self.world.claims
        ]
        pods = list(self.world.pods)
        return self.world.with_objects(claims=(*claims, *self.placed_claims), pods=tuple(pods))

    def notes(self) -> tuple[str, ...]:
        out = []
        if self.filtered:
            out.append(
                f"{len(self.filtered)} node(s) are excluded by the pod's node filters "
                "(cordon, taints, node selector or affinity)"
            )
        if self.unbounded is not None:
            out.append(self.unbounded.note(self.copies))
        elif self.limited:
            out.append(f"counting stopped at --max-copies {self.options.max_copies}: more may fit")
        return tuple(out)


def _allocator(world: World, options: CapacityOptions, share_ids: Callable[[], str]) -> Allocator:
    """The one Allocator of a simulation; UsageError for an implementation that does not
    support the enabled features (as ``NewAllocator`` refuses)."""
    from dractl.errors import UsageError

    try:
        return Allocator(
            world.device_classes,
            world.slices,
            options.features,
            allocated=AllocatedState.from_claims(world.claims),
            taint_rules=world.taint_rules,
            share_ids=share_ids,
            implementation=options.implementation,
        )
    except ValueError as e:
        raise UsageError(f"--allocator {options.implementation}: {e}", "capacity") from None
