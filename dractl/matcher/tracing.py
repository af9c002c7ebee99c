"""Trace recording: the first rejection of every (request, device) pair, and counts.

Recording is one dict lookup per rejection, so keeping the trace costs little;
``Recorder(enabled=False)`` records nothing.  Nothing here influences the search.
"""

from __future__ import annotations

from collections import Counter

from dractl.matcher.api import AllocationTrace, Decision, Reason, RequestCount
from dractl.matcher.requests import Req


class Recorder:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._seq = 0
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
            seen[device_id] = (self._seq, check, reason, detail)
            self._seq += 1

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
            set(self._first) | set(self._chosen), key=lambda r: (r.claim_index, r.request_index, r.sub_index)
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
