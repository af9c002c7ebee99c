"""Manifest builders for inventory tests (plain dicts -> a World)."""

from __future__ import annotations

from typing import Any

from dractl.io.world import World, build_world
from dractl.model.build import build_object

V1 = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"


def node(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": {}}


def device_class(name: str = "gpu", expr: str = f'device.driver == "{DRIVER}"') -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expr}}]},
    }


def slice_(
    name: str,
    node_name: str | None,
    devices: list[dict[str, Any]],
    *,
    pool: str | None = None,
    count: int = 1,
    generation: int = 1,
    counters: list[dict[str, Any]] | None = None,
    driver: str = DRIVER,
    all_nodes: bool = False,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool or node_name or name, "generation": generation, "resourceSliceCount": count},
        "devices": devices,
    }
    if node_name:
        spec["nodeName"] = node_name
    if all_nodes:
        spec["allNodes"] = True
    if counters:
        spec["sharedCounters"] = counters
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def dev(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, **extra}


def claim(
    name: str,
    results: list[dict[str, Any]] | None = None,
    *,
    ns: str = "default",
    reserved: list[str] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    deleting: bool = False,
    device_statuses: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": "gpu"}
    if tolerations:
        exactly["tolerations"] = tolerations
    out: dict[str, Any] = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"devices": {"requests": [{"name": "req", "exactly": exactly}]}},
    }
    if deleting:
        out["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    status: dict[str, Any] = {}
    if results is not None:
        status["allocation"] = {
            "devices": {"results": [{"request": "req", "driver": DRIVER, **r} for r in results]}
        }
    if reserved:
        status["reservedFor"] = [{"resource": "pods", "name": p, "uid": f"u-{p}"} for p in reserved]
    if device_statuses:
        status["devices"] = device_statuses
    if status:
        out["status"] = status
    return out


def pod(
    name: str,
    claim_name: str,
    node_name: str | None = "n1",
    *,
    phase: str | None = None,
    health: dict[str, str] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceClaims": [{"name": "c", "resourceClaimName": claim_name}],
            "containers": [{"name": "main"}],
        },
    }
    if node_name:
        out["spec"]["nodeName"] = node_name
    status: dict[str, Any] = {}
    if phase:
        status["phase"] = phase
    if health:
        status["containerStatuses"] = [
            {
                "name": "main",
                "allocatedResourcesStatus": [
                    {
                        "name": "claim:c/req",
                        "resources": [{"resourceID": k, "health": v} for k, v in health.items()],
                    }
                ],
            }
        ]
    if status:
        out["status"] = status
    return out


def taint_rule(name: str, effect: str = "NoExecute", **selector: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"taint": {"key": "example.com/t", "value": "v", "effect": effect}}
    if selector:
        spec["deviceSelector"] = selector
    return {"apiVersion": V1, "kind": "DeviceTaintRule", "metadata": {"name": name}, "spec": spec}


def world(*docs: dict[str, Any]) -> World:
    return build_world(build_object(d) for d in docs)


def counter_set(name: str, **counters: str) -> dict[str, Any]:
    return {"name": name, "counters": {k: {"value": v} for k, v in counters.items()}}


def consumes(set_name: str, **counters: str) -> list[dict[str, Any]]:
    return [{"counterSet": set_name, "counters": {k: {"value": v} for k, v in counters.items()}}]
