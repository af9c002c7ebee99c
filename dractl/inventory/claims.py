"""``dractl claims``: every ResourceClaim, its state, and exactly which devices it got.

States, in this order of precedence: ``deleting`` (``metadata.deletionTimestamp`` set),
``reserved`` (allocated and reserved for a consumer), ``allocated`` (allocated, reserved
for nobody: **allocated but unreserved** — nothing uses the devices, yet nobody else can
get them until the claim is deallocated or deleted), ``pending`` (not allocated).

Per claim: the devices of its allocation (``driver/pool/device``, share ID, consumed
capacity, admin access), the node its allocation is bound to, the pods it is reserved for,
and the device status conditions drivers reported (KEP-4817).  Requests and configs are
listed by name only: opaque driver parameters never leave the cluster through this view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import bounded_all
from dractl.inventory.core import Inventory
from dractl.inventory.labels import LabelSelector
from dractl.inventory.report import envelope
from dractl.io.world import World
from dractl.model import objects as o
from dractl.model.features import Features

STATES = ("pending", "allocated", "reserved", "deleting")


@dataclass(frozen=True, slots=True)
class ClaimDevice:
    request: str
    device: str  # driver/pool/device
    share_id: str | None
    consumed: Mapping[str, str]
    admin_access: bool
    conditions: tuple[str, ...]  # "Ready=True (reason)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "device": self.device,
            "shareID": self.share_id,
            "consumedCapacity": dict(self.consumed),
            "adminAccess": self.admin_access,
            "conditions": bounded_all(self.conditions),
        }


@dataclass(frozen=True, slots=True)
class ClaimRequest:
    name: str
    device_class: str
    mode: str  # ExactCount, All, FirstAvailable
    count: int
    admin_access: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "deviceClassName": self.device_class,
            "allocationMode": self.mode,
            "count": self.count,
            "adminAccess": self.admin_access,
        }


@dataclass(frozen=True, slots=True)
class ClaimRow:
    namespace: str
    name: str
    state: str
    unreserved: bool
    node: str | None
    devices: tuple[ClaimDevice, ...]
    reserved_for: tuple[str, ...]  # "pod NAME" (or "<resource>.<group> NAME")
    missing_consumers: tuple[str, ...]
    requests: tuple[ClaimRequest, ...]
    configs: tuple[str, ...]  # "driver for requests a, b" (never the parameters)
    age_source: str | None  # creationTimestamp as stored

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "state": self.state,
            "allocatedButUnreserved": self.unreserved,
            "node": self.node,
            "devices": [d.to_dict() for d in self.devices],
            "reservedFor": list(self.reserved_for),
            "missingConsumers": list(self.missing_consumers),
            "requests": [r.to_dict() for r in self.requests],
            "configs": list(self.configs),
            "creationTimestamp": self.age_source,
        }


@dataclass(frozen=True)
class ClaimsOptions:
    features: Features
    namespace: str | None = None  # None: every namespace
    selector: LabelSelector | None = None  # on the claims' labels
    node: str | None = None
    state: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimsReport:
    report_type: ClassVar[str] = "claims"

    items: tuple[ClaimRow, ...]
    by_state: Mapping[str, int]
    unreserved: int
    devices_held_unreserved: int
    context: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0

    def to_dict(self) -> dict[str, Any]:
        summary = {
            "claims": len(self.items),
            "byState": {s: self.by_state.get(s, 0) for s in STATES},
            "allocatedButUnreserved": self.unreserved,
            "devicesHeldByUnreservedClaims": self.devices_held_unreserved,
        }
        return envelope(
            "ClaimsReport", self.context, [i.to_dict() for i in self.items], summary, self.warnings
        )


def claims(world: World, opts: ClaimsOptions) -> ClaimsReport:
    """Every claim in scope, sorted by namespace and name (see the module docstring)."""
    inv = Inventory(world, opts.features)
    rows = []
    for claim in sorted(world.claims, key=lambda c: (c.meta.namespace, c.meta.name)):
        if opts.namespace is not None and claim.meta.namespace != opts.namespace:
            continue
        if opts.selector is not None and not opts.selector.matches(claim.meta.labels):
            continue
        row = claim_row(inv, claim)
        if opts.node is not None and row.node != opts.node:
            continue
        if opts.state is not None and row.state != opts.state:
            continue
        rows.append(row)
    by_state = {s: sum(1 for r in rows if r.state == s) for s in STATES}
    unreserved = [r for r in rows if r.unreserved]
    warnings = tuple(
        f"claim {r.namespace}/{r.name} is allocated but reserved for nobody: its "
        f"{len(r.devices)} device(s) stay unavailable until it is deallocated or deleted"
        for r in unreserved
    )
    return ClaimsReport(
        tuple(rows),
        by_state,
        len(unreserved),
        sum(len(r.devices) for r in unreserved),
        dict(opts.context),
        warnings,
    )


def claim_state(claim: o.ResourceClaim) -> str:
    if claim.meta.deletion_timestamp:
        return "deleting"
    if claim.allocation is None:
        return "pending"
    return "reserved" if claim.reserved_for else "allocated"


def claim_row(inv: Inventory, claim: o.ResourceClaim) -> ClaimRow:
    state = claim_state(claim)
    alloc = claim.allocation
    devices = tuple(_device(claim, r) for r in (alloc.results if alloc else ()))
    reserved, missing = [], []
    for ref in claim.reserved_for:
        label = (
            "pod"
            if ref.resource == "pods" and not ref.api_group
            else f"{ref.resource}.{ref.api_group}".rstrip(".")
        )
        reserved.append(f"{label} {ref.name}")
        if (
            ref.resource == "pods"
            and inv.world.pods
            and inv.world.pod(claim.meta.namespace, ref.name) is None
        ):
            missing.append(f"pod {ref.name}")
    return ClaimRow(
        claim.meta.namespace,
        claim.meta.name,
        state,
        unreserved=alloc is not None and not claim.reserved_for and state != "deleting",
        node=_node(inv, claim),
        devices=devices,
        reserved_for=tuple(reserved),
        missing_consumers=tuple(missing),
        requests=_requests(claim),
        configs=_configs(claim),
        age_source=claim.meta.creation_timestamp,
    )


def _device(claim: o.ResourceClaim, res: o.DeviceRequestAllocationResult) -> ClaimDevice:
    consumed = {k: str(v) for k, v in sorted((res.consumed_capacity or {}).items())}
    return ClaimDevice(
        res.request,
        res.device_id,
        res.share_id,
        consumed,
        bool(res.admin_access),
        tuple(_conditions(claim, res)),
    )


def _conditions(claim: o.ResourceClaim, res: o.DeviceRequestAllocationResult) -> list[str]:
    out = []
    for status in claim.device_statuses:
        if (status.get("driver"), status.get("pool"), status.get("device")) != (
            res.driver,
            res.pool,
            res.device,
        ):
            continue
        if (status.get("shareID") or None) != res.share_id:
            continue
        for cond in status.get("conditions") or []:
            if isinstance(cond, Mapping):
                reason = cond.get("reason")
                out.append(
                    f"{cond.get('type', '')}={cond.get('status', '')}" + (f" ({reason})" if reason else "")
                )
    return out


def _node(inv: Inventory, claim: o.ResourceClaim) -> str | None:
    """The node of the allocation: its node selector's ``metadata.name`` when it names one,
    else the node of its devices' slices."""
    alloc = claim.allocation
    if alloc is None:
        return None
    for term in (alloc.node_selector or {}).get("nodeSelectorTerms") or []:
        for req in (term or {}).get("matchFields") or []:
            values = req.get("values") or []
            if req.get("key") == "metadata.name" and req.get("operator") == "In" and len(values) == 1:
                return str(values[0])
    return next((n for r in alloc.results if (n := inv.pool_node(r.driver, r.pool))), None)


def _requests(claim: o.ResourceClaim) -> tuple[ClaimRequest, ...]:
    out = []
    for req in claim.spec.requests:
        if req.exactly is not None:
            e = req.exactly
            out.append(
                ClaimRequest(req.name, e.device_class_name, e.allocation_mode, e.count, bool(e.admin_access))
            )
        elif req.first_available:
            out.extend(
                ClaimRequest(f"{req.name}/{s.name}", s.device_class_name, s.allocation_mode, s.count, False)
                for s in req.first_available
            )
    return tuple(out)


def _configs(claim: o.ResourceClaim) -> tuple[str, ...]:
    out = []
    for cfg in claim.spec.config:
        scope = f" for {', '.join(cfg.requests)}" if cfg.requests else " for all requests"
        out.append(f"{cfg.driver or 'opaque'}{scope}")
    return tuple(out)
