"""The matcher's public contract: inputs, outcome, trace and reason codes (pure data).

``dractl.matcher.allocate(inputs, features)`` (in :mod:`dractl.matcher.engine`)
answers, for one node, what kube-scheduler's DRA plugin (the structured allocator in
k8s.io/dynamic-resource-allocation) would answer: an allocation for every claim,
"cannot be allocated on this node", or an allocation error.  Everything here is
frozen data and imports nothing of the engine.

To evaluate many nodes against the same cluster state (kube-scheduler's Filter
pattern), build one :class:`dractl.matcher.engine.Allocator` and call its
``allocate(node, claims)`` per node: class and selector results are then shared
between nodes that publish identical devices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from dractl.matcher.capacity import add_quantities
from dractl.matcher.serialize import allocation_to_dict
from dractl.model.fastinit import fast_init
from dractl.model.objects import (
    AllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceTaintRule,
    Node,
    ResourceClaim,
    ResourceSlice,
)
from dractl.model.quantity import Quantity

FIXED_SHARE_ID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
"""The share ID the upstream allocator tests use; ``run_case`` injects it."""

RESULTS_MAX_SIZE = 32
"""resource.k8s.io/v1 AllocationResultsMaxSize: at most 32 devices per claim."""


class Reason(StrEnum):
    """Why a candidate device (or pool, or request) was not used.  Stable codes.

    The per-device checks run in the allocator's order; the first one that fails
    is recorded:

    ``in-use``
        Already allocated to another claim, or tentatively taken by an earlier
        request of this allocation (for admin access: taken within the same claim).
    ``binding-conditions-disabled``
        The device has ``bindingConditions`` but DRADeviceBindingConditions is off.
    ``class-selector-false``
        A selector of the request's DeviceClass evaluated to false.
    ``request-selector-false``
        A selector of the request (or subrequest) evaluated to false.
    ``cel-runtime-error``
        A selector failed while evaluating on this device; this aborts the
        allocation with an error (as Kubernetes does).
    ``cel-compile-error``
        A selector does not compile; this aborts the allocation with an error.
    ``node-mismatch``
        Per-device node selection (``perDeviceNodeSelection``) excludes this node.
    ``capacity-undefined``
        The request asks for a capacity the device does not declare.
    ``capacity-insufficient``
        Consumable capacity: the request violates the device's ``requestPolicy``
        or the remaining capacity is too small.
    ``feature-disabled``
        The device consumes shared counters but DRAPartitionableDevices is off.
    ``counters-exhausted``
        Not enough of a shared counter is left in the device's counter set.
    ``taint-not-tolerated``
        A NoSchedule/NoExecute taint (from the slice or a DeviceTaintRule, named
        in ``detail``) is not tolerated by the request.
    ``constraint-mismatch``
        A ``matchAttribute``/``distinctAttribute`` constraint of the claim would
        be violated with the devices already chosen.
    ``pool-incomplete``
        The pool is being updated (not all of its slices are published).
    ``pool-invalid``
        The pool is invalid (duplicate device names, bad counter references, …).
    ``admin-access-disabled``
        The request asks for admin access but DRAAdminAccess is off (an error).
    ``result-limit``
        The claim would get more than 32 devices (AllocationResultsMaxSize).
    ``no-devices``
        ``allocationMode: All`` found no matching device.
    ``invalid-request``
        The request cannot be processed at all (an error; see ``detail``).
    """

    IN_USE = "in-use"
    BINDING_CONDITIONS_DISABLED = "binding-conditions-disabled"
    CLASS_SELECTOR_FALSE = "class-selector-false"
    REQUEST_SELECTOR_FALSE = "request-selector-false"
    CEL_RUNTIME_ERROR = "cel-runtime-error"
    CEL_COMPILE_ERROR = "cel-compile-error"
    NODE_MISMATCH = "node-mismatch"
    CAPACITY_UNDEFINED = "capacity-undefined"
    CAPACITY_INSUFFICIENT = "capacity-insufficient"
    FEATURE_DISABLED = "feature-disabled"
    COUNTERS_EXHAUSTED = "counters-exhausted"
    TAINT_NOT_TOLERATED = "taint-not-tolerated"
    CONSTRAINT_MISMATCH = "constraint-mismatch"
    POOL_INCOMPLETE = "pool-incomplete"
    POOL_INVALID = "pool-invalid"
    ADMIN_ACCESS_DISABLED = "admin-access-disabled"
    RESULT_LIMIT = "result-limit"
    NO_DEVICES = "no-devices"
    INVALID_REQUEST = "invalid-request"


# The check (stage) names used in Decision.check, in the allocator's order.
CHECKS = ("pool", "in-use", "selectors", "node", "capacity", "counters", "taints", "constraints", "request")


@dataclass(frozen=True, slots=True)
class Decision:
    """One rejection: ``device_id`` is ``driver/pool/device`` (``driver/pool`` for a
    pool-level decision, None for a request-level one); ``subrequest`` is None for
    plain requests; ``detail`` is human text (the taint, the selector, the rule)."""

    claim: str
    request: str
    subrequest: str | None
    device_id: str | None
    check: str
    reason: Reason
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "request": self.request,
            "subrequest": self.subrequest,
            "device": self.device_id,
            "check": self.check,
            "reason": self.reason.value,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class RequestCount:
    """Funnel counts for one request or subrequest: how many distinct devices were
    looked at, how many were rejected per reason, and which were chosen."""

    claim: str
    request: str
    subrequest: str | None
    considered: int
    rejected: Mapping[Reason, int]
    chosen: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "request": self.request,
            "subrequest": self.subrequest,
            "considered": self.considered,
            "rejected": {r.value: n for r, n in self.rejected.items()},
            "chosen": list(self.chosen),
        }


@dataclass(frozen=True, slots=True)
class AllocationTrace:
    """What the search did.  ``decisions`` holds the first rejection of each
    (claim, request, subrequest, device) in the order it happened; ``steps`` counts
    search calls (the Go allocator's numAllocateOneInvocations, less what pruning
    skipped); ``pruned`` counts branches cut by the sound feasibility check."""

    decisions: tuple[Decision, ...] = ()
    counts: tuple[RequestCount, ...] = ()
    steps: int = 0
    pruned: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "pruned": self.pruned,
            "counts": [c.to_dict() for c in self.counts],
            "decisions": [d.to_dict() for d in self.decisions],
        }


Status = Literal["allocated", "unallocatable", "error"]


@dataclass(frozen=True, slots=True)
class NodeOutcome:
    """The answer for one node.

    - ``allocated``: ``results`` has one AllocationResult per claim, in claim order.
    - ``unallocatable``: the claims cannot be allocated on this node (not an error).
    - ``error``: ``error`` has Kubernetes' message.  ``error_scope`` is ``"pod"`` when
      kube-scheduler would abort scheduling of the pod (CEL errors, limits, bad
      requests) and ``"node"`` when only this node fails (invalid resource pools).

    ``implementation`` names the allocator implementation that answered (``stable``,
    ``incubating`` or ``experimental``); ``warnings`` are problems that did not change
    the answer's validity but that Kubernetes reports elsewhere (a DeviceTaintRule
    selector failing on a device: the taint controller's Warning event).
    """

    node: str
    status: Status
    results: tuple[AllocationResult, ...] = ()
    error: str | None = None
    error_scope: Literal["pod", "node"] | None = None
    trace: AllocationTrace = field(default_factory=AllocationTrace)
    implementation: str = ""
    warnings: tuple[str, ...] = ()

    def results_dicts(self) -> list[dict[str, Any]]:
        """The results as resource.k8s.io/v1 AllocationResult dicts (no timestamp)."""
        return [allocation_to_dict(r) for r in self.results]


# Positional constructors of the answer objects (:func:`dractl.model.fastinit.fast_init`: the
# same objects as the classes make, without an ``object.__setattr__`` per field), for the hot
# paths that make them on every allocation (results, traces, answers shared between nodes).
new_outcome = fast_init(NodeOutcome)
new_trace = fast_init(AllocationTrace)
new_allocation = fast_init(AllocationResult)
new_device_result = fast_init(DeviceRequestAllocationResult)


@dataclass(frozen=True, slots=True)
class AllocatedState:
    """Devices already in use in the cluster.

    ``devices``: ``driver/pool/device`` ids allocated exclusively; ``shares``:
    ``driver/pool/device/<shareID>`` of allocations of multi-allocatable devices;
    ``capacity``: per device id, the capacity consumed so far by those shares.
    """

    devices: frozenset[str] = frozenset()
    shares: frozenset[str] = frozenset()
    capacity: Mapping[str, Mapping[str, Quantity]] = field(default_factory=dict)

    @classmethod
    def from_claims(cls, claims: Iterable[ResourceClaim]) -> AllocatedState:
        """The state that kube-scheduler derives from allocated claims: admin-access
        results are left out; results with a share ID count as shares (and their
        consumed capacity adds up); all others mark the device as in use."""
        return cls().add(claim.allocation for claim in claims if claim.allocation)

    def add(self, results: Iterable[AllocationResult]) -> AllocatedState:
        """This state plus allocation results (e.g. a NodeOutcome's ``results``), the way
        :meth:`from_claims` counts them: a new state, this one is unchanged.  Cost is
        proportional to the devices added plus one copy of the id sets; shared counters
        need nothing extra (they are derived from the allocated devices)."""
        devices: set[str] | None = None
        shares: set[str] | None = None
        capacity: dict[str, dict[str, Quantity]] | None = None
        for result in results:
            for res in result.results:
                if res.admin_access:
                    continue
                if res.share_id is None:
                    if devices is None:
                        devices = set(self.devices)
                    devices.add(res.device_id)
                    continue
                if shares is None:
                    shares = set(self.shares)
                shares.add(f"{res.device_id}/{res.share_id}")
                if res.consumed_capacity:
                    if capacity is None:
                        capacity = {k: dict(v) for k, v in self.capacity.items()}
                    per_device = capacity.setdefault(res.device_id, {})
                    for name, q in res.consumed_capacity.items():
                        per_device[name] = _add(per_device.get(name), q)
        return AllocatedState(
            frozenset(devices) if devices is not None else self.devices,
            frozenset(shares) if shares is not None else self.shares,
            capacity if capacity is not None else self.capacity,
        )

    def device_allocated(self, device_id: str) -> bool:
        """Whether the device carries committed allocations of any kind."""
        if device_id in self.devices or device_id in self.capacity:
            return True
        prefix = device_id + "/"
        return any(s.startswith(prefix) and "/" not in s[len(prefix) :] for s in self.shares)


def _add(a: Quantity | None, b: Quantity) -> Quantity:
    return b if a is None else add_quantities(a, b)


@dataclass(frozen=True)
class AllocationInputs:
    """Everything one allocation looks at.

    ``node`` None means "no node" (only slices for all nodes / matching selectors
    that need no labels can match).  ``slices`` are all of the cluster's slices,
    not only this node's.  ``taint_rules`` are applied to matching devices when
    DRADeviceTaints and DRADeviceTaintRules are both on.  ``claims`` are allocated
    together, in order.  Nothing is mutated.
    """

    node: Node | None
    device_classes: Sequence[DeviceClass]
    slices: Sequence[ResourceSlice]
    claims: Sequence[ResourceClaim]
    taint_rules: Sequence[DeviceTaintRule] = ()
    allocated: AllocatedState = field(default_factory=AllocatedState)
