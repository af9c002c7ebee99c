"""The capacity answer as data (``kind: CapacityReport``, ``dractl/v1alpha1``).

``summary.copies`` is the total number of copies that fit, ``nodes[].copies`` the
per-node count: scripts and CI read these (schema:
``schemas/output/capacity-report.schema.json``).  When devices set no limit
(``summary.unbounded``: a copy needs no devices, or leaves the allocated state as it
was), ``summary.copies`` is the larger of ``--max-copies`` and ``--replicas`` and
``summary.limited`` is true, so ``copies >= N`` holds for every N a script may ask up
to that; ``nodes[].copies`` adds the copies not simulated to the node that took the
last one, and ``placements``/``pools`` list only the copies simulated.  Everything is computed by the
engine; renderers only lay it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import EXIT_FINDINGS, EXIT_OK, bounded, bounded_all

API_VERSION = "dractl/v1alpha1"
KIND = "CapacityReport"
ADVICE = "advice: a fragmentation-aware placement, not what kube-scheduler does"
# What capacity --best-fit chooses within a node (see BestFitComparison): method -> note.
WITHIN_NODE = {
    "ranked": (
        "within a node the best-scoring of the allocator's own device set and those its search finds "
        "with the candidates in up to three best-fit orders (devices of partly used counter sets first, "
        "the matchAttribute group with the fewest free devices that fits first, both): bounded orderings, "
        "not explain-allocation --best-fit's ranking of every device set"
    ),
    "allocator": (
        "within a node the allocator's own device set: the stable allocator searches every slice of "
        "the cluster on each node, so capacity does not rank other device sets there"
    ),
}


@dataclass(frozen=True, slots=True)
class Placement:
    """Copy ``index`` (1-based) went to ``node`` and got ``devices`` (``driver/pool/device``)."""

    index: int
    node: str
    devices: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"copy": self.index, "node": self.node, "devices": list(self.devices)}


@dataclass(frozen=True, slots=True)
class NodeCapacity:
    """``copies`` placed on the node; ``free_devices``: its own devices free afterwards, as
    ``dractl availability`` counts free (:mod:`dractl.matcher.free`);
    ``filtered``: the pod's node filters reject it; ``stopped``: why the next copy did not fit."""

    name: str
    copies: int
    free_devices: int
    filtered: tuple[str, ...] = ()
    stopped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "copies": self.copies,
            "freeDevices": self.free_devices,
            "filtered": bounded_all(self.filtered),
            "stopped": bounded(self.stopped),
        }


@dataclass(frozen=True, slots=True)
class Blocking:
    """Why the next copy fits nowhere: the headline, and the node groups of explain's funnel
    as ``(message, node count, example nodes)``."""

    message: str
    nodes: int
    groups: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    sampled: int = 0  # nodes left out of the explanation (big clusters: the freest are explained)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": bounded(self.message),
            "nodesEvaluated": self.nodes,
            "nodesNotExplained": self.sampled,
            "groups": [{"message": bounded(m), "nodes": n, "examples": list(e)} for m, n, e in self.groups],
        }


@dataclass(frozen=True, slots=True)
class Stranded:
    """Free capacity this claim shape cannot use, and why (one kind per entry).

    ``reason``: ``too-few-on-node`` | ``constraint`` | ``counters-exhausted`` |
    ``partly-consumed-counters`` | ``capacity-below-request`` | ``tainted``."""

    reason: str
    message: str
    devices: int = 0
    nodes: int = 0
    largest_block: int | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": bounded(self.message),
            "devices": self.devices,
            "nodes": self.nodes,
            "largestBlock": self.largest_block,
            "details": dict(self.details),
        }


UNBOUNDED_WHY = {
    "no-devices": "a copy needs no devices: its claims have no device requests, and the allocator "
    "allocates such claims without devices",
    "state-unchanged": "a copy leaves the allocated state as it was (admin access, or shares that "
    "consume no capacity), so every next copy is placed the same way",
}


@dataclass(frozen=True, slots=True)
class Unbounded:
    """Devices set no limit: copy ``simulated`` (placed on ``node``) changed nothing in the
    allocated state, so every later copy is placed the same way.  ``reason``: ``no-devices``
    (the copy's claims have no device requests) or ``state-unchanged``."""

    reason: str
    node: str
    simulated: int

    @property
    def why(self) -> str:
        return UNBOUNDED_WHY[self.reason]

    def note(self, copies: int) -> str:
        return (
            f"not limited by devices: {self.why}; the count stops after {self.simulated} simulated "
            f"cop{'y' if self.simulated == 1 else 'ies'} and is reported as {copies} "
            "(the larger of --max-copies and --replicas)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": self.why,
            "node": self.node,
            "copiesSimulated": self.simulated,
        }


@dataclass(frozen=True, slots=True)
class BestFitComparison:
    """The same simulation with explain's best-fit score choosing the node and the device set
    (advice): for each copy, the best-scoring of the first 64 nodes where it fits, each scored
    on the best of the device sets the allocator's search finds there in its own order and in a
    few best-fit orders (``withinNode``: ``ranked``, :data:`WITHIN_NODE`;
    :mod:`dractl.explain.orderings`): bounded, unlike explain-allocation --best-fit, which
    ranks every device set of a node; ``allocator``: the allocator's own set, for the stable
    allocator, whose search walks every slice of the cluster).  ``reordered``: the copies
    placed on a device set of a best-fit order (it scored better than the allocator's own)."""

    first_fit: int
    best_fit: int
    nodes: tuple[NodeCapacity, ...] = ()
    reordered: int = 0
    within_node: str = "ranked"

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": ADVICE,
            "firstFit": self.first_fit,
            "bestFit": self.best_fit,
            "gain": self.best_fit - self.first_fit,
            "withinNode": self.within_node,
            "withinNodeNote": WITHIN_NODE[self.within_node],
            "reorderedCopies": self.reordered,
            "nodes": [{"name": n.name, "copies": n.copies} for n in self.nodes if n.copies],
        }


@dataclass(frozen=True, slots=True)
class CapacityReport:
    """The whole answer.  ``limited``: counting stopped at ``--max-copies``; ``error``: the
    scheduler would fail the pod outright (an allocation error), so no copy is placed."""

    report_type: ClassVar[str] = "capacity"

    target: str
    copies: int
    limited: bool
    replicas: int | None
    order: str
    nodes: tuple[NodeCapacity, ...]
    pools: tuple[tuple[str, int], ...]
    placements: tuple[Placement, ...]
    blocking: Blocking | None
    fragmentation: tuple[Stranded, ...]
    best_fit: BestFitComparison | None
    error: str | None
    notes: tuple[str, ...]
    context: dict[str, Any]
    attempts: int = 0
    unbounded: Unbounded | None = None

    @property
    def wanted(self) -> int:
        return self.replicas if self.replicas is not None else 1

    @property
    def gang_fits(self) -> bool:
        return self.error is None and self.copies >= self.wanted

    @property
    def exit_code(self) -> int:
        """0 when at least ``--replicas`` (default 1) copies fit, else 1."""
        return EXIT_OK if self.gang_fits else EXIT_FINDINGS

    @property
    def summary_line(self) -> str:
        if self.unbounded is not None:
            line = f"no limit: any number of copies of {self.target} fit (not limited by devices)"
        else:
            more = "at least " if self.limited else ""
            line = f"{more}{self.copies} more cop{'y' if self.copies == 1 else 'ies'} of {self.target} fit"
            used = sum(1 for n in self.nodes if n.copies)
            if self.copies:
                line += f" on {used} node{'s' if used != 1 else ''}"
        if self.replicas is not None:
            verdict = "can" if self.gang_fits else "cannot"
            line += f"; a gang of {self.replicas} {verdict} be placed at the same time"
            if not self.gang_fits and self.error is None:
                line += f" ({self.replicas - self.copies} would stay pending)"
        return line

    def to_dict(self) -> dict[str, Any]:
        summary: dict[str, Any] = {
            "copies": self.copies,
            "limited": self.limited,
            "unbounded": self.unbounded is not None,
            "replicas": self.replicas,
            "gangFits": self.gang_fits,
            "pending": max(self.wanted - self.copies, 0) if self.replicas is not None else None,
            "nodesUsed": sum(1 for n in self.nodes if n.copies),
            "nodesEvaluated": len(self.nodes),
            "allocationAttempts": self.attempts,
            "message": bounded(self.summary_line),
        }
        return {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "target": self.target,
            "summary": summary,
            "order": self.order,
            "error": bounded(self.error),
            "blocking": self.blocking.to_dict() if self.blocking else None,
            "unbounded": self.unbounded.to_dict() if self.unbounded else None,
            "nodes": [n.to_dict() for n in self.nodes],
            "pools": [{"pool": p, "devices": n} for p, n in self.pools],
            "placements": [p.to_dict() for p in self.placements],
            "fragmentation": [s.to_dict() for s in self.fragmentation],
            "bestFit": self.best_fit.to_dict() if self.best_fit else None,
            "notes": bounded_all(self.notes),
            "context": dict(self.context),
        }
