"""The explanation as data: what the renderers and ``-o json|yaml`` show.

Everything is computed by the engine (counts, summaries, suggestions); renderers
only lay it out.  ``Explanation.to_dict`` is the documented, versioned document
(``apiVersion: dractl/v1alpha1``, ``kind: AllocationExplanation``), described by
``schemas/output/allocation-explanation.schema.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import EXIT_FINDINGS, EXIT_OK, bounded, bounded_all

API_VERSION = "dractl/v1alpha1"
KIND = "AllocationExplanation"

# Node outcomes: allocated; unschedulable (the allocator found no allocation);
# filtered (a node-level filter rejected the node before the DRA filter ran);
# error (the allocator failed: see Explanation.scheduler_error for pod-wide errors).
NODE_STATUSES = ("allocated", "unschedulable", "filtered", "error")


@dataclass(frozen=True, slots=True)
class Stage:
    """One step of a request's funnel: ``rejected`` devices failed ``reason`` at
    ``check``; ``remaining`` candidates are left after it; ``examples`` name a few."""

    check: str
    reason: str
    rejected: int
    remaining: int
    examples: tuple[str, ...] = ()
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "reason": bounded(self.reason),
            "rejected": self.rejected,
            "remaining": self.remaining,
            "examples": list(self.examples),  # device ids: exact
            "detail": bounded(self.detail),
        }


@dataclass(frozen=True, slots=True)
class Blocking:
    """The first step that leaves too few candidates, in plain words, with advice."""

    reason: str
    message: str
    suggestion: str = ""
    summary: str = ""  # the same words on every node (for grouping nodes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": bounded(self.reason),
            "summary": bounded(self.summary),
            "message": bounded(self.message),
            "suggestion": bounded(self.suggestion),
        }


@dataclass(frozen=True, slots=True)
class RequestFunnel:
    """Candidate devices of one request (or subrequest) on one node."""

    claim: str
    request: str
    subrequest: str | None
    device_class: str
    needed: str  # "1", "2", "all"
    considered: int
    stages: tuple[Stage, ...] = ()
    chosen: tuple[str, ...] = ()
    blocking: Blocking | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "request": self.request,
            "subrequest": self.subrequest,
            "deviceClass": self.device_class,
            "needed": self.needed,
            "considered": self.considered,
            "stages": [s.to_dict() for s in self.stages],
            "chosen": list(self.chosen),
            "blocking": self.blocking.to_dict() if self.blocking else None,
        }


@dataclass(frozen=True, slots=True)
class ClaimAllocation:
    """The devices a claim gets on a node, and the AllocationResult the scheduler would write.
    ``existing``: the claim was already allocated (nothing new is written)."""

    claim: str
    devices: tuple[dict[str, Any], ...]
    result: dict[str, Any]
    existing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "existing": self.existing,
            "devices": list(self.devices),
            "allocationResult": self.result,
        }


@dataclass(frozen=True, slots=True)
class NodeExplanation:
    """The outcome on one node."""

    name: str
    status: str
    reasons: tuple[str, ...] = ()
    allocations: tuple[ClaimAllocation, ...] = ()
    funnel: tuple[RequestFunnel, ...] = ()
    error: str | None = None
    rank: int | None = None
    score: dict[str, Any] | None = None
    steps: int = 0

    @property
    def headline(self) -> str:
        """One line saying why, in words that are the same on every node that fails the
        same way (the first blocked request's summary, the error or the first reason)."""
        for f in self.funnel:
            if f.blocking is not None:
                req = f.request + (f"/{f.subrequest}" if f.subrequest else "")
                return f"claim {f.claim}, request {req}: {f.blocking.summary or f.blocking.reason}"
        if self.error:
            return self.error
        return self.reasons[0] if self.reasons else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "rank": self.rank,
            "reasons": bounded_all(self.reasons),
            "error": bounded(self.error),
            "allocations": [a.to_dict() for a in self.allocations],
            "funnel": [f.to_dict() for f in self.funnel],
            "score": self.score,
            "steps": self.steps,
        }


@dataclass(frozen=True, slots=True)
class ReasonGroup:
    """Nodes that fail for the same headline reason (for the summary of big clusters)."""

    status: str
    message: str
    count: int
    examples: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": bounded(self.message),
            "nodes": self.count,
            "examples": list(self.examples),
        }


@dataclass(frozen=True, slots=True)
class BestFitOption:
    """One feasible allocation on a node and its fragmentation score (lower is better)."""

    node: str
    devices: tuple[str, ...]
    score: tuple[int, int, int]
    chosen_by_scheduler: bool = False

    def to_dict(self) -> dict[str, Any]:
        fresh, group, stranded = self.score
        return {
            "node": self.node,
            "devices": list(self.devices),
            "chosenByScheduler": self.chosen_by_scheduler,
            "score": {"freshCounterSets": fresh, "largestFreeGroupLoss": group, "strandedCounters": stranded},
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    """The whole answer.  ``fits`` counts nodes with status ``allocated``;
    ``scheduler_error`` is set when the scheduler would fail the pod outright."""

    report_type: ClassVar[str] = "allocation-explanation"

    target: dict[str, Any]
    nodes: tuple[NodeExplanation, ...]
    evaluated: int
    fits: int
    scheduler_error: str | None = None
    blockers: tuple[str, ...] = ()
    groups: tuple[ReasonGroup, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    not_modelled: tuple[str, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)
    best_fit: tuple[BestFitOption, ...] | None = None
    best_fit_steps: int = 0

    @property
    def summary(self) -> str:
        if self.scheduler_error:
            return f"the scheduler would fail to schedule it: {self.scheduler_error}"
        if self.blockers:
            return f"cannot be scheduled: {self.blockers[0]}"
        plural = "node" if self.evaluated == 1 else "nodes"
        return f"fits on {self.fits} of {self.evaluated} {plural}"

    @property
    def exit_code(self) -> int:
        ok = self.fits > 0 and not self.scheduler_error and not self.blockers
        return EXIT_OK if ok else EXIT_FINDINGS

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "context": self.context,
            "target": self.target,
            "summary": {
                "fits": self.exit_code == EXIT_OK,
                "message": bounded(self.summary),
                "nodesEvaluated": self.evaluated,
                "nodesFit": self.fits,
                "schedulerError": bounded(self.scheduler_error),
            },
            "blockers": bounded_all(self.blockers),
            "notes": bounded_all(self.notes),
            "warnings": bounded_all(self.warnings),
            "notModelled": bounded_all(self.not_modelled),
            "groups": [g.to_dict() for g in self.groups],
            "nodes": [n.to_dict() for n in self.nodes],
        }
        if self.best_fit is not None:
            out["bestFit"] = {
                "advice": True,
                "steps": self.best_fit_steps,
                "options": [b.to_dict() for b in self.best_fit],
            }
        return out
