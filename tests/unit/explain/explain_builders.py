"""Small manifest builders for explain tests (plain dicts → model objects)."""

from __future__ import annotations

from typing import Any

from dractl.io.world import World, build_world
from dractl.model.build import build_object

V1 = "resource.k8s.io/v1"


def node(
    name: str,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
    allocatable: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    out: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
    }
    if allocatable:
        out["status"] = {"allocatable": allocatable}
    return out


def device_class(name: str, expr: str | None = None, ext: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": expr}}] if expr else []}
    if ext:
        spec["extendedResourceName"] = ext
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def gpu(name: str, **attrs: Any) -> dict[str, Any]:
    a = {k: ({"string": v} if isinstance(v, str) else {"int": v}) for k, v in attrs.items()}
    return {"name": name, "attributes": a, "capacity": {"memory": {"value": "80Gi"}}}


def slice_(
    name: str,
    node_name: str,
    devices: list[dict[str, Any]],
    driver: str = "gpu.example.com",
    pool: str | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"name": pool or node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def claim(
    name: str,
    cls: str = "gpu",
    count: int = 1,
    selectors: list[str] | None = None,
    allocated_on: str | None = None,
    devices: list[str] | None = None,
    ns: str = "default",
    reserved: int = 0,
    deleting: bool = False,
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls, "count": count}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    out: dict[str, Any] = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"devices": {"requests": [{"name": "req", "exactly": exactly}]}},
    }
    if deleting:
        out["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if allocated_on:
        results = [
            {"request": "req", "driver": "gpu.example.com", "pool": allocated_on, "device": d}
            for d in devices or []
        ]
        out["status"] = {
            "allocation": {
                "devices": {"results": results},
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [allocated_on]}
                            ]
                        }
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(reserved)],
        }
    return out


def template(name: str, cls: str = "gpu", ns: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "metadata": {"labels": {"app": "x"}},
            "spec": {"devices": {"requests": [{"name": "req", "exactly": {"deviceClassName": cls}}]}},
        },
    }


def pod(
    name: str,
    claims: list[dict[str, str]] | None = None,
    limits: dict[str, Any] | None = None,
    tolerations: list[dict[str, str]] | None = None,
    node_selector: dict[str, str] | None = None,
    affinity: dict[str, Any] | None = None,
    init_limits: dict[str, Any] | None = None,
    statuses: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "resourceClaims": claims or [],
        "tolerations": tolerations or [],
        "containers": [{"name": "main", "resources": {"limits": limits or {}}}],
    }
    if init_limits:
        spec["initContainers"] = [{"name": "init", "resources": {"limits": init_limits}}]
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    out: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }
    if statuses:
        out["status"] = {"resourceClaimStatuses": statuses}
    return out


def world(*docs: dict[str, Any]) -> World:
    return build_world(build_object(d) for d in docs)
