"""Per-device checks and tentative placement (the allocator's ``allocateDevice``).

Checks run in the allocator's order: in use → class selectors → request
selectors → per-device node selection → consumable capacity (``precheck``), then
in use again → counters feature → shared counters → taints → constraints →
capacity (``place``).  A rejected placement leaves no trace in the state: shared
counters reserved for a device are released when a later check rejects it (the
fix of kubernetes#140436), and a placement's undo releases everything it took.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from fractions import Fraction

from dractl.matcher import capacity
from dractl.matcher.api import Reason
from dractl.matcher.candidates import Candidate
from dractl.matcher.constraints import AnyConstraint, MatchAttribute
from dractl.matcher.counters import CounterBook
from dractl.matcher.requests import Req, RequestError, Verdict, claim_ref
from dractl.matcher.taints import blocking_taint
from dractl.matcher.tracing import CHECK_OF, Recorder
from dractl.model.features import Features
from dractl.model.quantity import Quantity

Selectable = Callable[[Req, Candidate], Verdict]


@dataclass(slots=True)
class Placed:
    """A device chosen for a request (internal result)."""

    req: Req
    cand: Candidate
    share_id: str | None
    consumed: Mapping[str, Quantity] | None


Undo = Callable[[], None]


def constraint_error(req: Req, cand: Candidate) -> RequestError:
    return RequestError(
        f"claim {claim_ref(req.claim)}, request {req.name}: cannot add device {cand.id} "
        "because a claim constraint would not be satisfied",
        Reason.CONSTRAINT_MISMATCH.value,
    )


class Placer:
    """The state that placements change, and the checks that guard them."""

    def __init__(
        self,
        features: Features,
        n_claims: int,
        committed: AbstractSet[str],
        committed_capacity: Mapping[str, Mapping[str, Fraction]],
        constraints: list[list[AnyConstraint]],
        counters: CounterBook,
        selectable: Selectable,
        recorder: Recorder,
        share_ids: Callable[[], str],
    ) -> None:
        self.f = features
        self.committed = committed
        self.committed_capacity = committed_capacity
        self.constraints = constraints
        self.counters = counters
        self.selectable = selectable
        self.rec = recorder
        self.share_ids = share_ids
        self.allocating: dict[str, set[int]] = {}
        self.busy = 0  # bit i set: candidate i is tentatively allocated (read by the pruner)
        self.in_flight: dict[str, capacity.Consumed] = {}
        self.results: list[list[Placed]] = []
        for _ in range(n_claims):  # a loop, not a comprehension: no frame (most calls have one claim)
            self.results.append([])

    # ------------------------------------------------------------------ checks

    def in_use(self, req: Req, cand: Candidate) -> bool:
        if req.admin:
            return req.claim_index in self.allocating.get(cand.id, ())
        return cand.id in self.committed or bool(self.allocating.get(cand.id))

    def fits(self, req: Req, cand: Candidate) -> Verdict:
        if (
            req.capacity is None
            and (cand.no_policy if cand.no_policy is not None else cand.has_no_policy())
            and cand.id not in self.committed_capacity
            and cand.id not in self.in_flight
        ):
            return True  # capacity.fits' first answer, without building its arguments
        try:
            ok = capacity.fits(
                self.committed_capacity.get(cand.id),
                req.capacity,
                cand.device.capacity,
                self.in_flight.get(cand.id),
            )
        except capacity.UndefinedCapacity:
            return Reason.CAPACITY_UNDEFINED, "the request names a capacity the device does not have"
        return True if ok else (Reason.CAPACITY_INSUFFICIENT, "")

    def precheck(self, req: Req, cand: Candidate) -> bool:
        """The search loop's cheap checks before trying a placement."""
        cid = cand.id
        if req.admin:
            used = req.claim_index in self.allocating.get(cid, ())
        else:
            used = cid in self.committed or bool(self.allocating.get(cid))
        if used:
            if self.rec.enabled:
                self.rec.reject(req, cid, "in-use", Reason.IN_USE)
            return False
        # a verdict kept for the candidate (never for devices with binding conditions: the
        # feature check comes first, see _Run.selectable)
        verdict = None if cand.device.binding_conditions else req.selectable.get(cand.idx)
        if verdict is None:
            verdict = self.selectable(req, cand)
        if verdict is True and self.f.consumable_capacity:
            verdict = self.fits(req, cand)
        if verdict is True:
            return True
        return self.noted(req, cand, verdict)

    def noted(self, req: Req, cand: Candidate, verdict: Verdict) -> bool:
        """Record a failed selector/node/capacity verdict in the trace; True if it passed."""
        if verdict is True:
            return True
        reason, detail = verdict
        self.rec.reject(req, cand.id, CHECK_OF[reason], reason, detail)
        return False

    # --------------------------------------------------------------- placement

    def place(self, req: Req, cand: Candidate, must: bool) -> Undo | None:
        """Tentatively allocate ``cand`` for ``req``; an undo callable, or None
        (rejected, nothing changed).  ``must``: a constraint violation is an error."""
        multi = cand.allow_multi
        if (not multi or not req.admin) and self.in_use(req, cand):
            self.rec.reject(req, cand.id, "in-use", Reason.IN_USE)
            return None
        device = cand.device
        if device.consumes_counters and not self.f.partitionable_devices:
            self.rec.reject(
                req, cand.id, "counters", Reason.FEATURE_DISABLED, "DRAPartitionableDevices is off"
            )
            return None
        reserved = False
        if device.consumes_counters and not (multi and self._capacity_in_use(cand.id)):
            if not self.counters.reserve(cand.pool, device):
                self.rec.reject(req, cand.id, "counters", Reason.COUNTERS_EXHAUSTED)
                return None
            reserved = True
        return self._place_checked(req, cand, must, reserved)

    def _place_checked(self, req: Req, cand: Candidate, must: bool, reserved: bool) -> Undo | None:
        release = (lambda: self.counters.release(cand.pool, cand.device)) if reserved else _nothing
        if cand.taints and self.f.device_taints:
            taint = blocking_taint(cand.taints, req.tolerations)
            if taint is not None:
                release()
                if self.rec.enabled:
                    self.rec.reject(req, cand.id, "taints", Reason.TAINT_NOT_TOLERATED, taint.describe())
                return None
        if self.constraints[req.claim_index] and not self._add_constraints(req, cand, must, release):
            return None
        return self._commit(req, cand, release)

    def _add_constraints(self, req: Req, cand: Candidate, must: bool, release: Callable[[], None]) -> bool:
        base, sub = req.parent or req.name, req.name if req.parent else ""
        added: list[AnyConstraint] = []
        for c in self.constraints[req.claim_index]:
            if not c.add(base, sub, cand.device):
                for done in added:
                    done.remove(base, sub, cand.device)
                release()
                if must:
                    raise constraint_error(req, cand)
                if self.rec.enabled and not self.rec.rejected(req, cand.id):
                    kind = "matchAttribute" if isinstance(c, MatchAttribute) else "distinctAttribute"
                    self.rec.reject(
                        req, cand.id, "constraints", Reason.CONSTRAINT_MISMATCH, f"{kind} {c.attribute}"
                    )
                return False
            added.append(c)
        return True

    def _commit(self, req: Req, cand: Candidate, release: Callable[[], None]) -> Undo | None:
        ci = req.claim_index
        claims_using = self.allocating.setdefault(cand.id, set())
        if not cand.allow_multi:
            claims_using.add(ci)
            self.busy |= 1 << cand.idx
        consumed: Mapping[str, Quantity] | None = None
        share_id = None
        if self.f.consumable_capacity:
            verdict = self.fits(req, cand)
            if verdict is not True:
                self._unwind(req, cand, release)
                reason, detail = verdict
                self.rec.reject(req, cand.id, "capacity", reason, detail)
                return None
            if cand.allow_multi:
                consumed = capacity.consumption(req.capacity, cand.device.capacity) or None
                share_id = self.share_ids()
                capacity.add_in_flight(self.in_flight, cand.id, consumed or {})
        self.results[ci].append(Placed(req, cand, share_id, consumed))
        if self.rec.enabled:
            self.rec.consider(req, cand.id)

        def undo() -> None:
            self.results[ci].pop()
            if consumed:
                capacity.remove_in_flight(self.in_flight, cand.id, consumed)
            self._unwind(req, cand, release)

        return undo

    def _unwind(self, req: Req, cand: Candidate, release: Callable[[], None]) -> None:
        constraints = self.constraints[req.claim_index]
        if constraints:
            base, sub = req.parent or req.name, req.name if req.parent else ""
            for c in constraints:
                c.remove(base, sub, cand.device)
        using = self.allocating.get(cand.id)
        if using is not None:
            using.discard(req.claim_index)
            if not using:
                self.busy &= ~(1 << cand.idx)
        release()

    def _capacity_in_use(self, device_id: str) -> bool:
        return device_id in self.committed_capacity or device_id in self.in_flight


def _nothing() -> None:
    return None
