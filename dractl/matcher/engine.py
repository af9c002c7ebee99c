"""The Allocator: one cluster state, allocated against one node at a time.

``Allocator(...)`` picks the allocator implementation Kubernetes would use (see
:mod:`dractl.matcher.implementations`), indexes the slices by node and prepares what
is the same for every node (classes, committed state, taints from DeviceTaintRules,
the selector result cache).  ``allocate(node, claims)`` runs the stages for one node:
``pools.gather`` → ``requests.prepare_claim`` → ``search.allocate_one`` →
``results.build``, and returns a :class:`NodeOutcome`.  :func:`allocate` is the
one-shot form over :class:`AllocationInputs`.

Where the implementations differ, ``stable`` (GA features only):

- walks pools and slices in input order (no sorting; pools with binding conditions
  are not moved last) and always takes slices that hold shared counters;
- knows no ``distinctAttribute`` ("empty constraint (unsupported constraint type?)")
  and ignores capacity requests (incubating rejects them while DRAConsumableCapacity
  is off);
- sees only exclusively allocated devices in the allocated state (shares and consumed
  capacity of other claims are invisible to it, also for shared counters).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from operator import itemgetter
from typing import TYPE_CHECKING

from dractl.matcher import candidates as cand_mod
from dractl.matcher import constraints as cons_mod
from dractl.matcher import counters, pools, results
from dractl.matcher.api import (
    AllocatedState,
    AllocationInputs,
    AllocationTrace,
    NodeOutcome,
    Reason,
    new_outcome,
)
from dractl.matcher.candidates import Candidate
from dractl.matcher.implementations import Implementation, choose
from dractl.matcher.nodes import NodeSelectorError, node_matches
from dractl.matcher.placement import Placer
from dractl.matcher.pruning import Pruner, may_activate
from dractl.matcher.requests import Req, RequestError, Verdict, claim_ref, prepare_claim
from dractl.matcher.search import DONE, Search, StepLimit
from dractl.matcher.selection import SelectorCache, SelectorFailure, SelectorFailureAt
from dractl.matcher.sharing import Shapes, keep, kept
from dractl.matcher.taints import EffectiveTaint, RuleSelectorError, effective_taints
from dractl.matcher.tracing import Recorder
from dractl.model.features import Features
from dractl.model.memo import remember
from dractl.model.objects import (
    AllocationResult,
    Device,
    DeviceClass,
    DeviceTaintRule,
    Node,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceSlice,
)

if TYPE_CHECKING:
    from dractl.cel.cache import CelCache


class Allocator:
    """Reusable across nodes (kube-scheduler's Filter pattern); not thread-safe.

    ``implementation``: ``auto`` (what Kubernetes picks for ``features``) or one of
    ``stable``/``incubating``/``experimental``; raises ValueError (UnsupportedFeatures)
    when the forced one does not support the enabled features, as upstream does.
    ``cel_cache``: the :class:`dractl.cel.cache.CelCache` of compiled selectors and converted
    devices to use (and fill): a fresh one for a cold run, one shared by many Allocators to
    compile each selector once; None: dractl.cel's bounded process default.
    ``share_ids`` makes share IDs for multi-allocatable devices (default: uuid4).
    Selector results are cached for the Allocator's lifetime: build a new one when
    the devices change (the allocated state may change per call, see :meth:`allocate`).
    """

    def __init__(
        self,
        device_classes: Sequence[DeviceClass],
        slices: Sequence[ResourceSlice],
        features: Features,
        *,
        allocated: AllocatedState | None = None,
        taint_rules: Sequence[DeviceTaintRule] = (),
        share_ids: Callable[[], str] | None = None,
        implementation: str = "auto",
        cel_cache: CelCache | None = None,
    ) -> None:
        self.features = features
        self.implementation: Implementation = choose(features, implementation)
        self.stable = self.implementation == "stable"
        classes: dict[str, DeviceClass] = {}
        for c in device_classes:  # a loop, not a comprehension: no frame (a case has few classes)
            classes[c.meta.name] = c
        self.classes = classes
        self.all_slices = list(slices)
        self.on_node: dict[str, list[ResourceSlice]] = {}
        self.shared: list[ResourceSlice] = []
        for s in self.all_slices:
            (self.on_node.setdefault(s.node_name, []) if s.node_name else self.shared).append(s)
        self.allocated = allocated or AllocatedState()
        self._state = _State(self.allocated, self.stable)
        use_rules = features.device_taints and features.device_taint_rules
        self.rules = tuple(taint_rules) if use_rules else ()
        if self.rules and features.has_fix("dtr-nil-selector-matches-none"):  # kubernetes PR #141648
            self.rules = tuple(r for r in self.rules if r.device_selector is not None)  # (v1.37.1)
        self._taints: dict[int, tuple[Device, tuple[EffectiveTaint, ...]]] = {}
        self.rule_errors: dict[tuple[str, str, str], str] = {}
        """(rule, selector, device id) -> message: DeviceTaintRule selectors that failed."""
        self.selectors = SelectorCache(features, cel_cache, hide_multi=self.stable)
        self.cel_cache = self.selectors.cel
        self.share_ids = share_ids or (lambda: str(uuid.uuid4()))
        self._views: dict[str, _View] = {}
        # id(spec) -> (a claim's spec, its index in the call, its prepared requests): _Run._prepare
        self._prepared: dict[int, tuple[ResourceClaimSpec, int, list[list[Req]]]] = {}
        self._uses: dict[int, tuple[Device, counters.Uses]] = {}
        # nodes that look the same share their answers (dractl.matcher.sharing); not for
        # stable, DeviceTaintRules or slices that are not bound to one node
        self._shareable = not (self.stable or self.rules or self.shared)
        self._shapes: Shapes | None = None  # made on the second call (see below)
        # the first call looks for no shapes: an Allocator asked once (one node, one problem)
        # would only pay for them
        self._asked = False

    def view(self, node: Node | None) -> _View:
        """What ``node`` sees of the slices: pools, candidates and selector verdicts, built on
        the first call for the node and reused by every later one (slices, classes and taint
        rules never change during an Allocator's life).  Raises RequestError (pool gathering
        failed, e.g. a node selector that does not parse), every time it is asked."""
        name = node.meta.name if node is not None else ""
        hit = self._views.get(name)
        if hit is not None and hit.node is node:
            if hit.error is not None:
                raise RequestError(hit.error)
            return hit
        view = _View(self, node, name)
        self._views[name] = view
        if view.error is not None:
            raise RequestError(view.error)
        return view

    def uses_of(self, device: Device) -> counters.Uses:
        """The device's counter consumption as exact numbers (cached per device)."""
        hit = self._uses.get(id(device))
        if hit is None or hit[0] is not device:
            hit = (device, counters.uses(device))
            self._uses[id(device)] = hit
        return hit[1]

    def taints_of(self, device: Device) -> tuple[EffectiveTaint, ...]:
        if not self.rules and not device.taints:
            return ()
        hit = self._taints.get(id(device))
        if hit is None or hit[0] is not device:

            def failed(rule: DeviceTaintRule, which: str, message: str) -> None:
                dev_id = f"{device.driver}/{device.pool}/{device.name}"
                self.rule_errors[(rule.meta.name, which, dev_id)] = message

            hit = (device, effective_taints(device, self.rules, self._rule_cel, self.classes, failed))
            self._taints[id(device)] = hit
        return hit[1]

    def _rule_cel(self, expression: str, device: Device) -> bool:
        try:  # the tracker's CEL device has no allowMultipleAllocations
            return self.selectors.matches(expression, device, hide_multi=True)
        except SelectorFailure as fail:
            raise RuleSelectorError(
                ("CEL compile error: " if fail.compile_error else "runtime error: ") + fail.message
            ) from None

    def allocate(
        self,
        node: Node | None,
        claims: Sequence[ResourceClaim],
        *,
        trace: bool = True,
        max_steps: int | None = None,
        allocated: AllocatedState | None = None,
        order: Sequence[int] | None = None,
    ) -> NodeOutcome:
        """Allocate ``claims`` together on ``node``; see :class:`NodeOutcome`.
        ``allocated`` replaces the Allocator's allocated state for this call (capacity
        simulations: one Allocator, a growing state, see :meth:`AllocatedState.add`).

        ``order`` (advice only, never what Kubernetes does; None: the allocator's own order):
        a permutation of the positions of :meth:`candidate_ids` for ``node``, the order in
        which every device slot tries candidates.  A pure reordering: every check runs as
        always, so an ``allocated`` answer is a valid allocation, and the search stays
        complete (it fits exactly where the allocator's own order fits, unless an error is
        met on a device the own order never reached); only which solution is found first
        changes (capacity --best-fit).  Raises ValueError when it is not a permutation."""
        fresh = allocated is not None and allocated is not self.allocated
        state = _State(allocated, self.stable) if fresh and allocated is not None else self._state
        if order is not None:  # no shared answers: they were found in the allocator's order
            run = _Run(self, node, claims, Recorder(trace), max_steps, state, order)
            self._asked = True
            return run.outcome()
        if self._shareable and not trace and node is not None and self._asked:
            shapes = self._shapes
            if shapes is None:
                shapes = self._shapes = Shapes(self.on_node)
            shape, pools = shapes.shape(node)
            if shape is not None and shapes.untouched(node.meta.name, state, shape, pools, self._state):
                key = shapes.answer_key(claims, max_steps)
                outcome = kept(shape, key, node, pools)
                if outcome is None:
                    outcome = _Run(self, node, claims, Recorder(False), max_steps, state).outcome()
                    keep(shape, key, claims, outcome, pools)
                return outcome
        run = _Run(self, node, claims, Recorder(trace), max_steps, state)
        self._asked = True  # from the next call on, nodes may share answers (and prepared requests)
        return run.outcome()

    def candidate_ids(self, node: Node | None) -> list[str]:
        """The ids (``driver/pool/device``) of the devices the search tries on ``node``, in the
        allocator's order: what the positions of ``allocate(order=...)`` refer to ([] when
        gathering the node's pools fails)."""
        try:
            view = self.view(node)
        except RequestError:
            return []
        # Flat's order (usable pools, their slices, their devices), without making candidates
        return [
            f"{p.driver}/{p.name}/{d.name}"
            for p in view.found
            if not (p.incomplete or p.invalid)
            for s in p.slices
            for d in s.devices
        ]

    @property
    def state(self) -> _State:
        """The allocated state the next :meth:`allocate` (without ``allocated=``) sees."""
        return self._state

    def commit(self, allocations: Iterable[AllocationResult]) -> bool:
        """Add allocation results to the Allocator's own state, in place, as kube-scheduler's
        assumed claims are: the next :meth:`allocate` sees their devices as in use.  Counts
        them as :meth:`AllocatedState.from_claims` does (admin access never, a share by its
        consumed capacity; ``stable`` sees exclusive allocations only).  Costs O(devices
        added): the way a capacity simulation accumulates thousands of copies.
        ``self.allocated`` stays the state the Allocator was built with.

        Returns whether the state changed: False when every result is admin access, a share
        of a device already in use that consumes no capacity, or a share ``stable`` does not
        see (or there are no results: claims without device requests) — then every later
        :meth:`allocate` answers exactly as before the commit."""
        st = self._state
        if not isinstance(st.devices, set):
            st.devices = set(st.devices)
        if not isinstance(st.allocated_ids, set) or st.allocated_ids is st.devices:
            st.allocated_ids = set(st.allocated_ids)
        changed = False
        for allocation in allocations:
            for res in allocation.results:
                if res.admin_access:
                    continue
                device = res.device_id
                newly = device not in st.allocated_ids
                if res.share_id is None:
                    changed = changed or newly or device not in st.devices
                    st.devices.add(device)
                    st.allocated_ids.add(device)
                elif not self.stable:
                    changed = changed or newly
                    st.allocated_ids.add(device)
                    for name, q in (res.consumed_capacity or {}).items():
                        caps = st.committed_capacity.setdefault(device, {})
                        changed = changed or q.value != 0 or name not in caps
                        caps[name] = caps.get(name, Fraction(0)) + q.value
                else:
                    newly = False  # stable does not see shares, nor their counters
                st.counters_used(res.driver, res.pool, res.device, newly, self.uses_of)
        return changed


class _Counters:
    """A pool name's counters left after the committed allocations, computed from ``pool``."""

    __slots__ = ("left", "pool", "touched")

    def __init__(self, pool: pools.Pool, left: counters.Left) -> None:
        self.pool, self.left, self.touched = pool, left, False


class _State:
    """The allocated state as the implementation sees it (stable: exclusive devices only)."""

    __slots__ = ("_by_name", "allocated_ids", "committed_capacity", "counters_left", "devices")

    def __init__(self, allocated: AllocatedState, stable: bool) -> None:
        # pool name -> what its counter sets have left after the committed allocations, and the
        # pool it was computed from (read-only for callers; filled lazily, kept up to date by
        # Allocator.commit through counters_used)
        self.counters_left: dict[str, _Counters] = {}
        self._by_name: dict[int, tuple[pools.Pool, dict[str, list[Device]]]] = {}
        self.devices: frozenset[str] | set[str] = allocated.devices
        if stable:
            self.committed_capacity: dict[str, dict[str, Fraction]] = {}
            self.allocated_ids: frozenset[str] | set[str] = allocated.devices
            return
        if not allocated.capacity and not allocated.shares:  # exclusive allocations only
            self.committed_capacity = {}
            self.allocated_ids = allocated.devices  # commit() copies it before adding
            return
        self.committed_capacity = {
            dev: {k: q.value for k, q in caps.items()} for dev, caps in allocated.capacity.items()
        }
        self.allocated_ids = (
            set(allocated.devices)
            | set(self.committed_capacity)
            | {s.rsplit("/", 1)[0] for s in allocated.shares}
        )

    def counters_for(self, pool: pools.Pool) -> counters.CounterSets:
        """What the counter sets of ``pool``'s *name* have left, as ``counters.available``
        computes it (see :meth:`left_for`)."""
        return self.left_for(pool).sets()

    def left_for(self, pool: pools.Pool) -> counters.Left:
        """What the counter sets of ``pool``'s *name* have left (Kubernetes keys counters by
        pool name: the first pool of that name asked for decides, as in ``counters.available``;
        after a commit that touched the name, the first pool asked for decides again)."""
        hit = self.counters_left.get(pool.name)
        if hit is not None and hit.touched:  # by a commit since it was computed
            if hit.pool.driver == pool.driver:
                hit.touched = False  # kept exact by counters_used: what a fresh computation gives
            else:
                hit = None
        if hit is None:
            if self.allocated_ids:
                left = counters.Left(counters.available(pool, self.allocated_ids.__contains__))
            else:  # nothing allocated anywhere: the totals (what available() gives, without its walk)
                left = counters.Left.totals(pool)
            hit = self.counters_left[pool.name] = _Counters(pool, left)
        return hit.left

    def counters_used(
        self,
        driver: str,
        pool_name: str,
        device: str,
        newly: bool,
        uses_of: Callable[[Device], counters.Uses] = counters.uses,
    ) -> None:
        """A committed result for ``driver/pool_name/device`` (``newly``: the device was not
        allocated before).  Keeps the cached counters of the pool name exactly what
        ``counters.available`` computes afresh from the same pool: only devices of that pool
        count, every device of that name in it."""
        hit = self.counters_left.get(pool_name)
        if hit is None:
            return
        hit.touched = True
        pool = hit.pool
        if not newly or pool.driver != driver:
            return
        index = self._by_name.get(id(pool))
        if index is None or index[0] is not pool:
            names: dict[str, list[Device]] = {}
            for s in (*pool.slices, *pool.other_slices):
                for d in s.devices:
                    if d.consumes_counters:
                        names.setdefault(d.name, []).append(d)
            index = self._by_name[id(pool)] = (pool, names)
        for d in index[1].get(device, ()):
            hit.left.take(uses_of(d))


def allocate(
    inputs: AllocationInputs,
    features: Features,
    *,
    trace: bool = True,
    share_ids: Callable[[], str] | None = None,
    max_steps: int | None = None,
    implementation: str = "auto",
    cel_cache: CelCache | None = None,
) -> NodeOutcome:
    """Allocate ``inputs.claims`` on ``inputs.node`` like the Kubernetes allocator.

    ``trace`` keeps decisions (never changes the result); ``share_ids`` generates
    share IDs for multi-allocatable devices (default: random UUIDs); ``max_steps``
    bounds the search: when exceeded, the outcome is an ``error`` saying so;
    ``implementation`` and ``cel_cache`` as for :class:`Allocator`.
    Never raises for data problems: they become an ``error`` outcome (a forced
    implementation that does not support the features raises ValueError).
    """
    allocator = Allocator(
        inputs.device_classes,
        inputs.slices,
        features,
        allocated=inputs.allocated,
        taint_rules=inputs.taint_rules,
        share_ids=share_ids,
        implementation=implementation,
        cel_cache=cel_cache,
    )
    return allocator.allocate(inputs.node, inputs.claims, trace=trace, max_steps=max_steps)


class _Run:
    """One Allocate call."""

    def __init__(
        self,
        owner: Allocator,
        node: Node | None,
        claims: Sequence[ResourceClaim],
        recorder: Recorder,
        max_steps: int | None,
        state: _State,
        order: Sequence[int] | None = None,
    ) -> None:
        self.a = owner
        self.order = order
        self.state = state
        self.f = owner.features
        self.node = node
        self.node_name = node.meta.name if node is not None else ""
        self.claims = list(claims)
        self.rec = recorder
        self.max_steps = max_steps
        self.search: Search | None = None
        self.first_false = owner.selectors.first_false
        self.seen_ids: frozenset[str] | set[str] = frozenset()
        # a later call of the Allocator: requests prepared now are kept for the next ones (the
        # first call keeps none: an Allocator asked once would only pay for keeping them)
        self.again = owner._asked
        self.view: _View

    def outcome(self) -> NodeOutcome:
        try:
            return self._outcome()
        except RequestError as err:
            self.rec.note("", "", None, "request", Reason(err.reason), err.message)
            return self._error(err.message, "pod")
        except StepLimit:
            return self._error(f"allocation search stopped after {self.max_steps} steps", "pod")
        finally:
            # this run -> its Search -> Placer -> this run's bound ``selectable`` is a cycle:
            # broken here, a call's working state is freed at once, not by the cyclic GC
            # (a capacity simulation makes tens of thousands of calls)
            self.search = None

    def _error(self, message: str, scope: str) -> NodeOutcome:
        steps = self.search.steps if self.search else 0
        return self._node_outcome("error", self.rec.finish(steps, 0, {}), (), message, scope)

    def _node_outcome(
        self,
        status: str,
        trace: AllocationTrace,
        results: tuple[AllocationResult, ...] = (),
        error: str | None = None,
        error_scope: str | None = None,
    ) -> NodeOutcome:
        return new_outcome(
            self.node_name,
            status,
            results,
            error,
            error_scope,
            trace,
            self.a.implementation,
            self._warnings() if self.a.rule_errors else (),
        )

    def _warnings(self) -> tuple[str, ...]:
        """The warnings of the DeviceTaintRule selectors that failed (``rule_errors``, not
        empty) on the node's devices."""
        seen = self.seen_ids
        return tuple(
            f"DeviceTaintRule {rule}: {which} on device {dev}: {msg} (the rule does not taint "
            "this device, as in Kubernetes)"
            for (rule, which, dev), msg in self.a.rule_errors.items()
            if dev in seen
        )

    def _outcome(self) -> NodeOutcome:
        view = self.view = self.a.view(self.node)
        found, flat, by_pool = view.found, view.flat, view.by_pool
        if self.rec.enabled:
            self._note_pools(found)
        if self.a.rule_errors:
            self.seen_ids = view.ids()
        placer = self._placer(found)
        reqs = self._prepare(found, by_pool, placer)
        order = self.order
        if order is not None and (len(order) != len(flat.cands) or set(order) != set(range(len(order)))):
            raise ValueError("order must be a permutation of the node's candidate positions")
        slots, needed = _slots(reqs)
        pruner = (
            Pruner.build(
                reqs, flat.all, placer, self.f, self.selectable, any_multi=view.any_multi, order=order
            )
            if reqs and may_activate(slots, len(flat.cands))  # else it could prune nothing
            else None
        )
        plain = order is None and self.state is self.a._state and not self.rec.enabled
        skips = view.skips if plain else None
        self.search = Search(reqs, flat, placer, pruner, self.max_steps, skips, order)
        old = sys.getrecursionlimit()
        if needed > old:
            sys.setrecursionlimit(needed)
        try:
            code = self.search.allocate_one(0, 0, 0, 0, False, 0)
        finally:
            if needed > old:
                sys.setrecursionlimit(old)
        pruned = pruner.pruned if pruner else 0
        if code != DONE:
            trace = self.rec.finish(self.search.steps, pruned, {})
            if view.invalid:
                return self._node_outcome(
                    "error", trace, (), "invalid resource pools were encountered", "node"
                )
            return self._node_outcome("unallocatable", trace)
        return self._allocated(reqs, placer, pruned)

    def _note_pools(self, found: list[pools.Pool]) -> None:
        for p in found:
            if p.incomplete:
                self.rec.note("", "", p.id, "pool", Reason.POOL_INCOMPLETE, "the pool is being updated")
            elif p.invalid:
                self.rec.note("", "", p.id, "pool", Reason.POOL_INVALID, p.invalid_reason)

    def _placer(self, found: list[pools.Pool]) -> Placer:
        # keyed by pool *name*, as Kubernetes does (two drivers' pools of one name share it)
        book = counters.CounterBook(self.state.left_for, self.a.uses_of)
        return Placer(
            self.f,
            len(self.claims),
            self.state.devices,
            self.state.committed_capacity,
            [],
            book,
            self._select,
            self.rec,
            self.a.share_ids,
        )

    def _prepare(
        self, found: list[pools.Pool], by_pool: Mapping[str, list[Candidate]], placer: Placer
    ) -> list[list[list[Req]]]:
        def selectable(req: Req, cand: Candidate) -> Verdict:  # "All" mode: keep the reasons
            verdict = self.selectable(req, cand)
            if verdict is not True:
                placer.noted(req, cand, verdict)
            return verdict

        def fits(req: Req, cand: Candidate) -> Verdict:
            verdict = placer.fits(req, cand)
            if verdict is not True:
                placer.noted(req, cand, verdict)
            return verdict

        reqs: list[list[list[Req]]] = []
        kept = self.a._prepared
        verdicts = self.view.verdicts
        for ci, claim in enumerate(self.claims):
            spec = claim.spec
            hit = kept.get(id(spec))
            if hit is not None and hit[0] is spec and hit[1] == ci:
                entries = hit[2]
                for request in entries:  # the same requests, for this claim and node
                    for entry in request:
                        entry.claim = claim
                        key = (entry.device_class.meta.name, entry.selectors)
                        shared = verdicts.get(key)
                        if shared is None:
                            shared = verdicts[key] = {}
                        entry.selectable = shared
            else:
                entries = prepare_claim(
                    ci,
                    claim,
                    self.a.classes,
                    self.f,
                    found,
                    by_pool,
                    selectable,
                    fits if self.f.consumable_capacity else None,
                    capacity_known=not self.a.stable,
                    verdicts=verdicts,
                )
                # requests of fixed size depend on nothing but the claim's spec: the next call
                # with it (the next node; a copy of the claim) reuses them ("All" depends on
                # the node)
                if self.again and all(e.mode == "ExactCount" for request in entries for e in request):
                    remember(kept, id(spec), (spec, ci, entries), _PREPARED_MAX)
            reqs.append(entries)
            placer.constraints.append(self._constraints(claim))
        return reqs

    def _constraints(self, claim: ResourceClaim) -> list[cons_mod.AnyConstraint]:
        out = []
        for i, spec in enumerate(claim.spec.constraints):
            try:
                out.append(cons_mod.build(spec, self.f.list_type_attributes, not self.a.stable))
            except cons_mod.UnsupportedConstraint:
                raise RequestError(
                    f"claim {claim_ref(claim)}, constraint #{i}: empty constraint "
                    "(unsupported constraint type?)"
                ) from None
        return out

    # ------------------------------------------------------------- selectors

    def selectable(self, req: Req, cand: Candidate) -> Verdict:
        """Class selectors, request selectors, per-device node selection (cached)."""
        if not cand.device.binding_conditions:
            hit = req.selectable.get(cand.idx)
            if hit is not None:
                return hit
        return self._select(req, cand)

    def _select(self, req: Req, cand: Candidate) -> Verdict:
        """:meth:`selectable` without looking for a kept verdict first (the search's scans and
        ``Placer.precheck`` have looked, for devices without binding conditions)."""
        device = cand.device
        if device.binding_conditions and not self.f.device_binding_and_status:
            return Reason.BINDING_CONDITIONS_DISABLED, "DRADeviceBindingConditions is off"
        # the class's selectors, then the request's, in one call
        both = req.all_selectors
        if both is None:
            cls_selectors = req.device_class.selectors
            both = req.all_selectors = cls_selectors + req.selectors if req.selectors else cls_selectors
        if both:
            try:
                i = self.first_false(both, device)
            except SelectorFailureAt as at:
                raise self._failed_at(at, req, cand) from None
            if i >= 0:  # the same verdict for every device that selector rejects
                rejections = req.rejections
                hit = None if rejections is None else rejections.get(i)
                if hit is None:
                    hit = self._rejected(req, i)
                    if rejections is None:
                        req.rejections = {i: hit}
                    else:
                        rejections[i] = hit
                req.selectable[cand.idx] = hit
                return hit
        if cand.per_device and not self._node_ok(device):
            hit = (Reason.NODE_MISMATCH, f"device is not available on node {self.node_name}")
        else:
            hit = True
        req.selectable[cand.idx] = hit
        return hit

    @staticmethod
    def _rejected(req: Req, i: int) -> Verdict:
        """The verdict of selector ``i`` of the class's then the request's selectors being false."""
        cls = req.device_class
        n = len(cls.selectors)
        if i >= n:
            return Reason.REQUEST_SELECTOR_FALSE, f"selector #{i - n}: {req.selectors[i - n]}"
        return Reason.CLASS_SELECTOR_FALSE, f"class {cls.meta.name} selector #{i}: {cls.selectors[i]}"

    def _failed_at(self, at: SelectorFailureAt, req: Req, cand: Candidate) -> RequestError:
        cls = req.device_class
        n = len(cls.selectors)
        if at.index < n:
            return self._failed(
                at.failure, cls.selectors[at.index], at.index, req, cand, f"class {cls.meta.name}"
            )
        j = at.index - n
        return self._failed(at.failure, req.selectors[j], j, req, cand, f"claim {claim_ref(req.claim)}")

    def _failed(
        self, fail: SelectorFailure, expr: str, i: int, req: Req, cand: Candidate, owner: str
    ) -> RequestError:
        """The allocation error for a selector that failed (recorded in the trace)."""
        if fail.compile_error:
            self.rec.reject(req, cand.id, "selectors", Reason.CEL_COMPILE_ERROR, fail.message)
            return RequestError(
                f"{owner}: selector #{i}: CEL compile error: {fail.message}",
                Reason.CEL_COMPILE_ERROR.value,
            )
        self.rec.reject(req, cand.id, "selectors", Reason.CEL_RUNTIME_ERROR, fail.message)
        return RequestError(
            f"{owner}: selector #{i} on device {cand.id}: CEL runtime error: {fail.message}",
            Reason.CEL_RUNTIME_ERROR.value,
        )

    def _node_ok(self, d: Device) -> bool:
        try:
            return node_matches(self.node, d.node_name or "", bool(d.all_nodes), d.node_selector)
        except NodeSelectorError as err:
            raise RequestError(f"failed to parse node selector: {err}") from None

    # --------------------------------------------------------------- results

    def _allocated(self, reqs: list[list[list[Req]]], placer: Placer, pruned: int) -> NodeOutcome:
        assert self.search is not None
        out = []
        chosen_ids: dict[tuple[int, int, int], list[str]] = {}
        picks = self.search.selected_sub  # (claim, request) -> its subrequest chosen, if not the first
        for ci, claim in enumerate(self.claims):
            chosen = (
                [entries[picks.get((ci, ri), 0)] for ri, entries in enumerate(reqs[ci])]
                if picks
                else list(map(_first, reqs[ci]))  # no comprehension frame where none was picked
            )
            out.append(
                results.build(claim, placer.results[ci], chosen, self.node_name, self.f, stable=self.a.stable)
            )
            if self.rec.enabled:  # the trace's "chosen" lists (finish ignores them otherwise)
                for p in placer.results[ci]:
                    chosen_ids.setdefault((ci, p.req.request_index, p.req.sub_index), []).append(p.cand.id)
        trace = self.rec.finish(self.search.steps, pruned, chosen_ids)
        return self._node_outcome("allocated", trace, tuple(out))


_PREPARED_MAX = 1024
_first = itemgetter(0)


class _View:
    """One node's view of an Allocator's slices (see :meth:`Allocator.view`): the pools it
    can use in search order, the flattened candidates, every pool's candidates by pool id,
    and the selector verdicts of its candidates, per (class, request selectors)."""

    __slots__ = (
        "_ids",
        "any_multi",
        "by_pool",
        "error",
        "flat",
        "found",
        "invalid",
        "node",
        "skips",
        "verdicts",
    )

    def __init__(self, a: Allocator, node: Node | None, name: str) -> None:
        self.node = node
        self.error: str | None = None
        self.invalid = False
        # (class name, request selectors) -> candidate index -> verdict (errors are never kept)
        self.verdicts: dict[tuple[str, tuple[str, ...]], dict[int, Verdict]] = {}
        self._ids: frozenset[str] | None = None
        # id(a verdict dict above) -> leading candidates never chosen (see Search.skips)
        self.skips: dict[int, int] = {}
        if a.stable:
            slices = a.all_slices
        elif name:
            slices = a.on_node.get(name, []) + a.shared
        else:
            slices = a.shared
        self.found: list[pools.Pool]
        self.flat: cand_mod.Flat
        self.by_pool: Mapping[str, list[Candidate]]
        try:
            found = self.found = pools.gather(slices, node, a.features, a.all_slices, stable=a.stable)
        except pools.PoolError as err:
            # an empty view, never searched (Allocator.view raises for it): its Flat is made
            # only here, not thrown away by every view that gathers
            self.error = f"gather pool information: {err}"
            self.found, self.by_pool, self.any_multi = [], {}, False
            self.flat = cand_mod.Flat([], a.taints_of, False)
            return
        flat = self.flat = cand_mod.Flat(found, a.taints_of, a.features.consumable_capacity, bool(a.rules))
        self.by_pool = cand_mod.ByPool(flat)
        for p in found:  # a loop, not any(): no generator frame
            if p.invalid:
                self.invalid = True
                break
        self.any_multi = flat.any_multi

    def ids(self) -> frozenset[str]:
        """The ids of every device of the node's pools."""
        if self._ids is None:
            self._ids = frozenset(c.id for group in self.by_pool.values() for c in group)
        return self._ids


def _slots(reqs: list[list[list[Req]]]) -> tuple[int, int]:
    """The search's device slots (a request with subrequests counts its largest), and the
    recursion limit it needs: it recurses a few frames per slot and per request."""
    slots = n = 0
    for claim in reqs:
        n += len(claim)
        for entries in claim:
            slots += entries[0].num_devices if len(entries) == 1 else max(e.num_devices for e in entries)
    return slots, 4 * (slots + n) + 500
