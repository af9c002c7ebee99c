"""Trace recording: the first rejection of every (request, device) pair, and counts.

Recording is one dict lookup per rejection, so keeping the trace costs little;
``Recorder(enabled=False)`` records nothing.  Nothing here influences the search.
"""

from __future__ import annotations

from dractl.matcher.api import AllocationTrace, Decision, Reason, RequestCount, new_trace
from dractl.matcher.requests import Req

# the check a per-device verdict's reason belongs to
CHECK_OF = {
    Reason.BINDING_CONDITIONS_DISABLED: "selectors",
    Reason.CLASS_SELECTOR_FALSE: "selectors",
    Reason.REQUEST_SELECTOR_FALSE: "selectors",
    Reason.NODE_MISMATCH: "node",
    Reason.CAPACITY_UNDEFINED: "capacity",
    Reason.CAPACITY_INSUFFICIENT: "capacity",
}


class Recorder:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        # per request: the devices with a rejection recorded (the first one counts)
        self._first: dict[Req, set[str]] = {}
        # every first rejection, in order: (request, device id, check, reason, detail); the
        # Decision objects are made in finish
        self.log: list[tuple[Req, str, str, Reason, str]] = []
        self._chosen: dict[Req, set[str]] = {}
        self._extra: list[Decision] = []

    def reject(self, req: Req, device_id: str, check: str, reason: Reason, detail: str = "") -> None:
        if not self.enabled:
            return
        seen = self._first.get(req)
        if seen is None:
            seen = self._first[req] = set()
        if device_id not in seen:
            seen.add(device_id)
            self.log.append((req, device_id, check, reason, detail))

    def rejected(self, req: Req, device_id: str) -> bool:
        """Whether a rejection of ``device_id`` for ``req`` is already recorded (a later
        one changes nothing: callers may skip formatting its detail)."""
        seen = self._first.get(req)
        return seen is not None and device_id in seen

    def first_of(self, req: Req) -> set[str]:
        """The devices with a rejection recorded for ``req``, a live set: the search's hot
        loop records into it and :attr:`log` directly, as :meth:`reject` does (a device it
        holds is rejected again silently, without formatting a detail)."""
        seen = self._first.get(req)
        if seen is None:
            seen = self._first[req] = set()
        return seen

    def consider(self, req: Req, device_id: str) -> None:
        """A device that passed every check (it may be undone later)."""
        if self.enabled:
            self._chosen.setdefault(req, set()).add(device_id)

    def note(
        self, claim: str, request: str, device_id: str | None, check: str, reason: Reason, detail: str = ""
    ) -> None:
        """A decision outside the per-device checks (pools, request errors)."""
        if self.enabled:
            self._extra.append(Decision(claim, request, None, device_id, check, reason, detail))

    def finish(
        self, steps: int, pruned: int, chosen: dict[tuple[int, int, int], list[str]]
    ) -> AllocationTrace:
        if not self.enabled:
            return new_trace((), (), steps, pruned)
        decisions = list(self._extra)
        # per request: (claim, request, subrequest) and its rejections per reason, in the
        # order the reasons first occur
        names: dict[Req, tuple[str, str, str | None]] = {}
        by_reason: dict[Req, dict[Reason, int]] = {}
        for req, device_id, check, reason, detail in self.log:
            name = names.get(req)
            if name is None:
                name = names[req] = (
                    req.claim.meta.key,
                    req.parent or req.name,
                    req.name if req.parent else None,
                )
                by_reason[req] = {}
            decisions.append(Decision(*name, device_id, check, reason, detail))
            tally = by_reason[req]
            tally[reason] = tally.get(reason, 0) + 1
        counts = []
        # a request with no rejection recorded is in the counts only if it chose a device
        reqs = sorted(
            set(names) | set(self._chosen), key=lambda r: (r.claim_index, r.request_index, r.sub_index)
        )
        for req in reqs:
            sub = req.name if req.parent else None
            key = (req.claim_index, req.request_index, req.sub_index)
            considered = len(self._first.get(req, set()) | self._chosen.get(req, set()))
            counts.append(
                RequestCount(
                    req.claim.meta.key,
                    req.parent or req.name,
                    sub,
                    considered,
                    by_reason.get(req, {}),
                    tuple(chosen.get(key, ())),
                )
            )
        return new_trace(tuple(decisions), tuple(counts), steps, pruned)
