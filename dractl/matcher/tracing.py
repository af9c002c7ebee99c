"""Trace recording: the first rejection of every (request, device) pair, and counts.

Recording is one dict lookup per rejection, so keeping the trace costs little;
``Recorder(enabled=False)`` records nothing.  Nothing here influences the search.
"""

from __future__ import annotations

from collections import Counter
from itertools import count

from dractl.matcher.api import AllocationTrace, Decision, Reason, RequestCount
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
        self.seq = count()  # the order of first rejections (``next(seq)``)
        # per request: device id -> (sequence, check, reason, detail) of its first rejection
        self._first: dict[Req, dict[str, tuple[int, str, Reason, str]]] = {}
        self._chosen: dict[Req, set[str]] = {}
        self._extra: list[Decision] = []

    def reject(self, req: Req, device_id: str, check: str, reason: Reason, detail: str = "") -> None:
        if not self.enabled:
            return
        seen = self._first.get(req)
        if seen is None:
            seen = self._first[req] = {}
        if device_id not in seen:
            seen[device_id] = (next(self.seq), check, reason, detail)

    def rejected(self, req: Req, device_id: str) -> bool:
        """Whether a rejection of ``device_id`` for ``req`` is already recorded (a later
        one changes nothing: callers may skip formatting its detail)."""
        seen = self._first.get(req)
        return seen is not None and device_id in seen

    def first_of(self, req: Req) -> dict[str, tuple[int, str, Reason, str]]:
        """The first rejections recorded for ``req`` (device id -> (sequence, check, reason,
        detail)), a live dict: the search's hot loop records into it directly (a device it
        already holds is rejected again silently, without formatting a detail)."""
        seen = self._first.get(req)
        if seen is None:
            seen = self._first[req] = {}
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
            return AllocationTrace(steps=steps, pruned=pruned)
        ordered: list[tuple[int, Decision]] = []
        counts = []
        reqs = sorted(
            # a request with no rejection recorded (first_of made it an empty dict) is in
            # the trace only if it chose a device
            {r for r, seen in self._first.items() if seen} | set(self._chosen),
            key=lambda r: (r.claim_index, r.request_index, r.sub_index),
        )
        for req in reqs:
            seen = self._first.get(req, {})
            sub = req.name if req.parent else None
            by_reason: Counter[Reason] = Counter()
            for device_id, (seq, check, reason, detail) in seen.items():
                decision = Decision(
                    req.claim.meta.key, req.parent or req.name, sub, device_id, check, reason, detail
                )
                ordered.append((seq, decision))
                by_reason[reason] += 1
            key = (req.claim_index, req.request_index, req.sub_index)
            considered = len(set(seen) | self._chosen.get(req, set()))
            counts.append(
                RequestCount(
                    req.claim.meta.key,
                    req.parent or req.name,
                    sub,
                    considered,
                    dict(by_reason),
                    tuple(chosen.get(key, ())),
                )
            )
        ordered.sort(key=lambda item: item[0])
        decisions = tuple(self._extra) + tuple(d for _, d in ordered)
        return AllocationTrace(decisions, tuple(counts), steps, pruned)
