"""Request preparation: validate every request and subrequest, resolve its class,
and work out how many devices it needs ("All" mode: exactly which ones).

Errors carry Kubernetes' wording and abort the allocation (``RequestError``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from dractl.matcher.api import RESULTS_MAX_SIZE, Reason
from dractl.matcher.candidates import Candidate
from dractl.matcher.pools import Pool
from dractl.model.features import Features
from dractl.model.objects import (
    DeviceClass,
    DeviceRequest,
    DeviceSubRequest,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
)
from dractl.model.quantity import Quantity


class RequestError(Exception):
    """The claims cannot be processed; ``message`` is what Kubernetes says."""

    def __init__(self, message: str, reason: str = "invalid-request") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


Rejection = tuple[Reason, str]
Verdict = Literal[True] | Rejection
"""A check's answer: True (passed) or (reason, detail)."""


def claim_ref(claim: ResourceClaim) -> str:
    """klog.KObj: ``namespace/name`` or ``name``."""
    return claim.meta.key


@dataclass(eq=False, slots=True)
class Req:
    """One request, or one subrequest of a ``firstAvailable`` request."""

    claim_index: int
    request_index: int
    sub_index: int
    claim: ResourceClaim
    name: str
    parent: str | None
    device_class: DeviceClass
    selectors: tuple[str, ...]
    mode: str
    count: int
    admin: bool
    tolerations: tuple[DeviceToleration, ...]
    capacity: Mapping[str, Quantity] | None
    num_devices: int = 0
    all_devices: list[Candidate] | None = None
    # per candidate index: the cached selector verdict
    selectable: dict[int, Verdict] = field(default_factory=dict)
    # the class's selectors then the request's (made on first use)
    all_selectors: tuple[str, ...] | None = None
    # selector index -> the verdict of that selector being false (made on first use)
    rejections: dict[int, Verdict] | None = None

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent else self.name


Selectable = Callable[[Req, Candidate], Verdict]
Fits = Callable[[Req, Candidate], Verdict]


def _entry(
    ci: int,
    ri: int,
    si: int,
    claim: ResourceClaim,
    req: ExactDeviceRequest | DeviceSubRequest,
    parent: str | None,
    name: str,
    cls: DeviceClass,
) -> Req:
    admin = bool(getattr(req, "admin_access", None))
    return Req(
        ci,
        ri,
        si,
        claim,
        name,
        parent,
        cls,
        req.selectors,
        req.allocation_mode,
        req.count,
        admin,
        req.tolerations,
        req.capacity_requests,
    )


def _check_feature_use(
    claim: ResourceClaim, request: DeviceRequest, features: Features, capacity_known: bool
) -> None:
    if request.first_available and not features.prioritized_list:
        raise RequestError(
            f"claim {claim_ref(claim)}, request {request.name}: has subrequests, but the "
            "DRAPrioritizedList feature is disabled",
            "feature-disabled",
        )
    if features.consumable_capacity or not capacity_known:
        return  # stable does not know capacity requests: it ignores them
    if request.exactly is not None and request.exactly.capacity_requests is not None:
        raise RequestError(
            f"claim {claim_ref(claim)}, request {request.name}: has capacity requests, but the "
            "DRAConsumableCapacity feature is disabled",
            "feature-disabled",
        )
    for sub in request.first_available:
        if sub.capacity_requests is not None:
            raise RequestError(
                f"claim {claim_ref(claim)}, subrequest {sub.name}: has capacity requests, but the "
                "DRAConsumableCapacity feature is disabled",
                "feature-disabled",
            )


def _validate(
    claim: ResourceClaim,
    req: ExactDeviceRequest | DeviceSubRequest,
    name: str,
    classes: Mapping[str, DeviceClass],
    features: Features,
) -> DeviceClass:
    for i, sel in enumerate(req.selectors):
        if not sel:
            raise RequestError(
                f"claim {claim_ref(claim)}, request {name}, selector #{i}: CEL expression empty "
                "(unsupported selector type?)"
            )
    if getattr(req, "admin_access", None) is not None and not features.admin_access:
        raise RequestError(
            f"claim {claim_ref(claim)}, request {name}: admin access is requested, "
            "but the feature is disabled",
            "admin-access-disabled",
        )
    if not req.device_class_name:
        raise RequestError(
            f"claim {claim_ref(claim)}, request {name}: missing device class name (unsupported request type?)"
        )
    cls = classes.get(req.device_class_name)
    if cls is None:
        raise RequestError(
            f"claim {claim_ref(claim)}, request {name}: could not retrieve device class "
            f"{req.device_class_name}: deviceclass.resource.k8s.io "
            f'"{req.device_class_name}" not found'
        )
    return cls


def _size(
    entry: Req,
    pools: Sequence[Pool],
    by_pool: Mapping[str, list[Candidate]],
    selectable: Selectable,
    fits: Fits | None,
) -> None:
    """Set ``num_devices`` (and ``all_devices`` for "All")."""
    if entry.mode == "ExactCount":
        entry.num_devices = entry.count
        return
    if entry.mode != "All":
        raise RequestError(
            f"claim {claim_ref(entry.claim)}, request {entry.name}: unsupported count mode {entry.mode}"
        )
    found: list[Candidate] = []
    for pool in pools:
        state = "being updated" if pool.incomplete else "invalid" if pool.invalid else ""
        if state:
            raise RequestError(
                f"claim {claim_ref(entry.claim)}, request {entry.name}: asks for all devices, "
                f"but resource pool {pool.id} is currently {state}",
                "pool-incomplete" if pool.incomplete else "pool-invalid",
            )
        for cand in by_pool.get(pool.id, ()):
            if selectable(entry, cand) is True and (fits is None or fits(entry, cand) is True):
                found.append(cand)
    entry.all_devices = found
    entry.num_devices = len(found)


def prepare_claim(
    ci: int,
    claim: ResourceClaim,
    classes: Mapping[str, DeviceClass],
    features: Features,
    pools: Sequence[Pool],
    by_pool: Mapping[str, list[Candidate]],
    selectable: Selectable,
    fits: Fits | None,
    *,
    capacity_known: bool = True,
    verdicts: dict[tuple[str, tuple[str, ...]], dict[int, Verdict]] | None = None,
) -> list[list[Req]]:
    """One list per request: its single entry, or one entry per subrequest.
    ``capacity_known`` False (stable): capacity requests are ignored, not an error.
    ``verdicts``: selector verdicts per (class name, request selectors) to share between
    the requests (and calls) that have the same ones: an entry's ``selectable``."""
    out: list[list[Req]] = []
    minimum = 0
    for ri, request in enumerate(claim.spec.requests):
        _check_feature_use(claim, request, features, capacity_known)
        subs: Sequence[ExactDeviceRequest | DeviceSubRequest] = request.first_available
        if not subs:
            subs = (request.exactly,) if request.exactly is not None else (ExactDeviceRequest(""),)
        entries = []
        for si, sub in enumerate(subs):
            parent = request.name if request.first_available else None
            name = sub.name if isinstance(sub, DeviceSubRequest) else request.name
            entry = _entry(
                ci, ri, si, claim, sub, parent, name, _validate(claim, sub, name, classes, features)
            )
            if verdicts is not None:
                key = (entry.device_class.meta.name, entry.selectors)
                shared = verdicts.get(key)
                if shared is None:
                    shared = verdicts[key] = {}
                entry.selectable = shared
            _size(entry, pools, by_pool, selectable, fits)
            entries.append(entry)
        minimum += entries[0].num_devices if len(entries) == 1 else min(e.num_devices for e in entries)
        out.append(entries)
    if minimum > RESULTS_MAX_SIZE:
        raise RequestError(
            f"claim {claim_ref(claim)}: number of requested devices {minimum} exceeds the "
            f"claim limit of {RESULTS_MAX_SIZE}",
            "result-limit",
        )
    return out
