"""The backtracking search: one device at a time, claims and requests in order.

``allocate_one`` is the structured allocator's ``allocateOne``: it picks a device
for device slot ``di`` of request ``ri`` (subrequest ``si``) of claim ``ci``, then
recurses for the next slot; the first complete assignment wins.  Within one
request only increasing candidate positions are tried (combinations, not
permutations).  Every tentative placement returns an undo callable.

Return codes: DONE (a full solution is in place), FAIL (none below this point),
EXCEEDED (a claim would exceed 32 devices: the caller backtracks aggressively and
may try a smaller subrequest).  Fatal problems raise ``RequestError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dractl.matcher.api import RESULTS_MAX_SIZE, Reason
from dractl.matcher.candidates import Candidate, Flat
from dractl.matcher.requests import Req
from dractl.matcher.tracing import CHECK_OF

if TYPE_CHECKING:
    from dractl.matcher.placement import Placer
    from dractl.matcher.pruning import Pruner

FAIL, DONE, EXCEEDED = 0, 1, 2


class StepLimit(Exception):
    """``max_steps`` was exceeded."""


class Search:
    """Mutable search state for one Allocate call."""

    def __init__(
        self,
        reqs: list[list[list[Req]]],
        cands: Flat,
        placer: Placer,
        pruner: Pruner | None,
        max_steps: int | None,
        skips: dict[int, int] | None = None,
        order: Sequence[int] | None = None,
    ) -> None:
        self.reqs = reqs
        self.cands = cands.cands  # None: not made yet (``self.make``)
        self.make = cands.get
        self.placer = placer
        self.pruner = pruner
        self.max_steps = max_steps
        self.steps = 0
        self.selected_sub: dict[tuple[int, int], int] = {}
        # id(verdict dict) -> how many leading candidates can never be chosen for requests
        # with those verdicts: committed (the state only grows) or rejected by their selectors.
        # Given only when that holds for the whole call (the Allocator's own state, no trace).
        self.skips = skips
        # the positions of the candidates in the order slots try them (None: position order;
        # see Allocator.allocate); "start" is then a rank in it
        self.order = order
        if order is not None:
            self._scan = self._scan_ordered  # type: ignore[method-assign]

    def allocate_one(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int) -> int:
        self.steps += 1
        if self.max_steps is not None and self.steps > self.max_steps:
            raise StepLimit()
        if ci >= len(self.reqs):
            return DONE
        if ri >= len(self.reqs[ci]):
            code = self.allocate_one(ci + 1, 0, 0, 0, False, 0)
            return FAIL if code == EXCEEDED else code
        entries = self.reqs[ci][ri]
        req = entries[si]
        if not in_sub and req.parent is not None:
            return self._first_available(ci, ri, di)
        if req.all_devices is not None and not req.all_devices:
            self.placer.rec.note(
                req.claim.meta.key,
                req.full_name,
                None,
                "request",
                Reason.NO_DEVICES,
                'allocationMode "All" found no matching device',
            )
            return FAIL
        if di >= req.num_devices:
            return self.allocate_one(ci, ri + 1, 0, 0, False, 0)
        if len(self.placer.results[ci]) + req.num_devices - di > RESULTS_MAX_SIZE:
            return EXCEEDED
        if req.all_devices is not None:
            return self._take_all(req, di, in_sub)
        if self.pruner is not None and not self.pruner.feasible(req, di, start):
            return FAIL
        return self._scan(req, di, in_sub, start)

    def _first_available(self, ci: int, ri: int, di: int) -> int:
        """Try the subrequests in order; the first that leads to a solution wins."""
        all_exceeded = True
        for si in range(len(self.reqs[ci][ri])):
            code = self.allocate_one(ci, ri, si, di, True, 0)
            if code == EXCEEDED:
                continue
            all_exceeded = False
            if code == DONE:
                self.selected_sub[(ci, ri)] = si
                return DONE
        return EXCEEDED if all_exceeded else FAIL

    def _take_all(self, req: Req, di: int, in_sub: bool) -> int:
        """ "All" mode: the devices are known; each one must be usable, in order."""
        assert req.all_devices is not None
        undo = self.placer.place(req, req.all_devices[di], must=True)
        if undo is None:
            return FAIL
        code = self.allocate_one(req.claim_index, req.request_index, req.sub_index, di + 1, in_sub, 0)
        if code != DONE:
            undo()
        return code

    def _scan(self, req: Req, di: int, in_sub: bool, start: int) -> int:
        """Try each remaining candidate for slot ``di``; recurse on success."""
        placer = self.placer
        if req.admin:
            return self._scan_prechecked(req, di, in_sub, start)
        if placer.rec.enabled:
            return self._scan_traced(req, di, in_sub, start)
        # precheck's work inline (no trace to keep): its in-use check first, as most candidates
        # a busy node offers stop there
        cands, make = self.cands, self.make
        committed, allocating = placer.committed, placer.allocating
        selectable, capacity = placer.selectable, placer.f.consumable_capacity
        verdicts = req.selectable
        skips = self.skips
        frontier = -1
        if skips is not None:
            frontier = skips.get(id(verdicts), 0)
            if frontier > start:
                start = frontier  # every candidate before it would be rejected, silently
        for idx in range(start, len(cands)):
            cand = cands[idx] or make(idx)
            cid = cand.id
            if cid in committed or allocating.get(cid):
                if idx == frontier and cid in committed:
                    frontier += 1
                    skips[id(verdicts)] = frontier  # type: ignore[index]
                continue
            binding = cand.device.binding_conditions
            verdict = None if binding else verdicts.get(idx)
            if verdict is None:  # kept in ``verdicts`` now, unless the device has binding conditions
                verdict = selectable(req, cand)
            if verdict is not True:
                if idx == frontier and not binding:  # its selectors say no, for good
                    frontier += 1
                    skips[id(verdicts)] = frontier  # type: ignore[index]
                continue
            if capacity and placer.fits(req, cand) is not True:
                continue
            code = self._descend(req, cand, di, in_sub, idx + 1)
            if code != FAIL:
                return code
        return FAIL

    def _scan_prechecked(self, req: Req, di: int, in_sub: bool, start: int) -> int:
        """:meth:`_scan` for a request with admin access, through :meth:`Placer.precheck`."""
        placer, cands, make = self.placer, self.cands, self.make
        for idx in range(start, len(cands)):
            cand = cands[idx] or make(idx)
            if not placer.precheck(req, cand):
                continue
            code = self._descend(req, cand, di, in_sub, idx + 1)
            if code != FAIL:
                return code
        return FAIL

    def _descend(self, req: Req, cand: Candidate, di: int, in_sub: bool, start: int) -> int:
        """Place ``cand`` for ``req`` and search the next slot from ``start`` on: DONE or
        EXCEEDED end the scan (the placement kept on DONE), FAIL (not placed, or nothing
        fits after it; the placement undone) lets it go on to the next candidate."""
        undo = self.placer.place(req, cand, must=False)
        if undo is None:
            return FAIL
        code = self.allocate_one(req.claim_index, req.request_index, req.sub_index, di + 1, in_sub, start)
        if code != DONE:
            undo()
        return code

    def _scan_traced(self, req: Req, di: int, in_sub: bool, start: int) -> int:
        """:meth:`_scan` keeping the trace (a request without adminAccess): the checks of
        :meth:`Placer.precheck`, inline, recording a rejection only for a device not yet
        rejected for ``req`` (the trace keeps the first; the rest would change nothing)."""
        placer = self.placer
        cands, make = self.cands, self.make
        committed, allocating = placer.committed, placer.allocating
        selectable, capacity, fits = placer.selectable, placer.f.consumable_capacity, placer.fits
        verdicts = req.selectable
        rec = placer.rec
        seen, log = rec.first_of(req), rec.log.append
        for idx in range(start, len(cands)):
            cand = cands[idx] or make(idx)
            cid = cand.id
            if cid in committed or allocating.get(cid):
                if cid not in seen:
                    seen.add(cid)
                    log((req, cid, "in-use", Reason.IN_USE, ""))
                continue
            binding = cand.device.binding_conditions
            verdict = None if binding else verdicts.get(idx)
            if verdict is None:
                verdict = selectable(req, cand)
            if verdict is True and capacity:
                verdict = fits(req, cand)
            if verdict is not True:
                if cid not in seen:
                    seen.add(cid)
                    reason, detail = verdict
                    log((req, cid, CHECK_OF[reason], reason, detail))
                continue
            code = self._descend(req, cand, di, in_sub, idx + 1)
            if code != FAIL:
                return code
        return FAIL

    def _scan_ordered(self, req: Req, di: int, in_sub: bool, start: int) -> int:
        """:meth:`_scan` over the candidates in :attr:`order` from rank ``start`` on (the later
        slots of the request try only higher ranks: combinations, as in position order).  The
        same checks, through :meth:`Placer.precheck` (no skips: they count positions)."""
        placer, order = self.placer, self.order
        assert order is not None
        cands, make = self.cands, self.make
        # the in-use part of precheck, inline (as in _scan): devices in use are most of a busy node
        quick = not req.admin and not placer.rec.enabled
        committed, allocating = placer.committed, placer.allocating
        for rank in range(start, len(order)):
            idx = order[rank]
            cand = cands[idx] or make(idx)
            if quick and (cand.id in committed or allocating.get(cand.id)):
                continue
            if not placer.precheck(req, cand):
                continue
            code = self._descend(req, cand, di, in_sub, rank + 1)
            if code != FAIL:
                return code
        return FAIL
