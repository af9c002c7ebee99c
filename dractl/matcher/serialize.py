"""AllocationResults as resource.k8s.io/v1 dicts (Go's field order and omissions).

Model objects only: :mod:`dractl.matcher.api` uses this without importing the engine.
"""

from __future__ import annotations

from typing import Any

from dractl.model.objects import (
    AllocationResult,
    DeviceConfig,
    DeviceRequestAllocationResult,
    DeviceToleration,
)


def toleration_to_dict(t: DeviceToleration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in (("key", t.key), ("operator", t.operator), ("value", t.value), ("effect", t.effect)):
        if value:
            out[key] = value
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


def _result_to_dict(r: DeviceRequestAllocationResult) -> dict[str, Any]:
    out: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
    if r.admin_access is not None:
        out["adminAccess"] = r.admin_access
    if r.tolerations:
        out["tolerations"] = [toleration_to_dict(t) for t in r.tolerations]
    if r.binding_conditions:
        out["bindingConditions"] = list(r.binding_conditions)
    if r.binding_failure_conditions:
        out["bindingFailureConditions"] = list(r.binding_failure_conditions)
    if r.share_id is not None:
        out["shareID"] = r.share_id
    if r.consumed_capacity is not None:
        out["consumedCapacity"] = {k: str(q) for k, q in r.consumed_capacity.items()}
    return out


def _config_to_dict(c: DeviceConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"source": c.source}
    if c.requests:
        out["requests"] = list(c.requests)
    out["opaque"] = {"driver": c.driver, "parameters": c.parameters}
    return out


def allocation_to_dict(a: AllocationResult) -> dict[str, Any]:
    """A resource.k8s.io/v1 AllocationResult (Go's field order and omissions)."""
    devices: dict[str, Any] = {"results": [_result_to_dict(r) for r in a.results]}
    if a.config:
        devices["config"] = [_config_to_dict(c) for c in a.config]
    out: dict[str, Any] = {"devices": devices}
    if a.node_selector is not None:
        out["nodeSelector"] = a.node_selector
    if a.allocation_timestamp is not None:
        out["allocationTimestamp"] = a.allocation_timestamp
    return out
