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
        self._first: dict[tuple[int, int, int, str | None], Decision] = {}
        self._considered: dict[tuple[int, int, int], set[str]] = {}
        self._requests: dict[tuple[int, int, int], Req] = {}
        self._extra: list[Decision] = []

    def reject(self, req: Req, device_id: str, check: str, reason: Reason, detail: str = "") -> None:
        if not self.enabled:
            return
        rkey = (req.claim_index, req.request_index, req.sub_index)
        key = (*rkey, device_id)
        self._considered.setdefault(rkey, set()).add(device_id)
        self._requests[rkey] = req
        if key not in self._first:
            self._first[key] = Decision(req.claim.meta.key, req.parent or req.name,
                                        req.name if req.parent else None, device_id, check, reason, detail)

    def consider(self, req: Req, device_id: str) -> None:
        if self.enabled:
            rkey = (req.claim_index, req.request_index, req.sub_index)
            self._considered.setdefault(rkey, set()).add(device_id)
            self._requests[rkey] = req

    def note(self, claim: str, request: str, device_id: str | None, check: str, reason: Reason,
             detail: str = "") -> None:
        """A decision outside the per-device checks (pools, request errors)."""
        if self.enabled:
            self._extra.append(Decision(claim, request, None, device_id, check, reason, detail))

    def finish(self, steps: int, pruned: int, chosen: dict[tuple[int, int, int], list[str]]) -> AllocationTrace:
        if not self.enabled:
            return AllocationTrace(steps=steps, pruned=pruned)
        grouped: dict[tuple[int, int, int], Counter[Reason]] = {}
        for k, d in self._first.items():
            grouped.setdefault(k[:3], Counter())[d.reason] += 1
        counts = []
        for rkey, req in sorted(self._requests.items(), key=lambda kv: kv[0]):
            counts.append(RequestCount(req.claim.meta.key, req.parent or req.name,
                                       req.name if req.parent else None, len(self._considered[rkey]),
                                       dict(grouped.get(rkey, {})), tuple(chosen.get(rkey, ()))))
        return AllocationTrace(tuple(self._extra) + tuple(self._first.values()), tuple(counts), steps, pruned)
