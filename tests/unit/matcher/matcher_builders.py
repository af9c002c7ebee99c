"""Fluent-ish builders for matcher tests: plain v1 dicts in, model objects out."""

from __future__ import annotations

from typing import Any

from dractl.matcher import AllocatedState, AllocationInputs, NodeOutcome, allocate
from dractl.matcher.api import FIXED_SHARE_ID
from dractl.model.build import build_object
from dractl.model.features import Features

ALL = Features.from_mapping(
    {
        "adminAccess": True,
        "consumableCapacity": True,
        "deviceBindingAndStatus": True,
        "deviceTaints": True,
        "partitionableDevices": True,
        "prioritizedList": True,
    }
)


def node(name: str = "node-1", **labels: str) -> Any:
    return build_object({"kind": "Node", "apiVersion": "v1", "metadata": {"name": name, "labels": labels}})


def device_class(name: str = "class-a", *selectors: str, config: list[dict[str, Any]] | None = None) -> Any:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": s}} for s in selectors]}
    if config:
        spec["config"] = config
    return build_object(
        {"kind": "DeviceClass", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": name}, "spec": spec}
    )


def dev(name: str, *, attrs: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A device dict; ``attrs`` values are python scalars (str/int/bool) or lists of them."""
    out: dict[str, Any] = {"name": name}
    if attrs:
        out["attributes"] = {k: _attr(v) for k, v in attrs.items()}
    out.update(extra)
    return out


def _attr(v: Any) -> dict[str, Any]:
    if isinstance(v, list):
        kind = "bools" if isinstance(v[0], bool) else "ints" if isinstance(v[0], int) else "strings"
        return {kind: v}
    if isinstance(v, bool):
        return {"bool": v}
    return {"int": v} if isinstance(v, int) else {"string": v}


def slice_(
    name: str,
    devices: list[dict[str, Any]],
    *,
    pool: str = "pool-1",
    driver: str = "driver-a",
    node_name: str | None = "node-1",
    generation: int = 1,
    count: int = 1,
    **spec: Any,
) -> Any:
    s: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
    }
    if node_name is not None:
        s["nodeName"] = node_name
    if devices:
        s["devices"] = devices
    s.update(spec)
    return build_object(
        {"kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1", "metadata": {"name": name}, "spec": s}
    )


def req(name: str, cls: str = "class-a", count: int = 1, *selectors: str, **extra: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    exactly.update(extra)
    return {"name": name, "exactly": exactly}


def claim(
    name: str,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    config: list[dict[str, Any]] | None = None,
    namespace: str = "",
) -> Any:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    if config:
        devices["config"] = config
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return build_object(
        {
            "kind": "ResourceClaim",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": meta,
            "spec": {"devices": devices},
        }
    )


def run(
    slices: list[Any],
    claims: list[Any],
    *,
    classes: list[Any] | None = None,
    the_node: Any = None,
    features: Features = ALL,
    allocated: AllocatedState | None = None,
    taint_rules: list[Any] | None = None,
    trace: bool = True,
    implementation: str = "auto",
) -> NodeOutcome:
    inputs = AllocationInputs(
        the_node if the_node is not None else node(),
        classes if classes is not None else [device_class()],
        slices,
        claims,
        tuple(taint_rules or ()),
        allocated or AllocatedState(),
    )
    return allocate(
        inputs, features, trace=trace, share_ids=lambda: FIXED_SHARE_ID, implementation=implementation
    )


def devices_of(outcome: NodeOutcome) -> list[list[str]]:
    return [[r.device for r in res.results] for res in outcome.results]
