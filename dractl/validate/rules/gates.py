"""Feature-gated fields (API-RULES.md §12): what the server drops when a gate is off.

The strategy silently removes such fields on create, which can then cause a
different error (dropping ``distinctAttribute`` makes RC-CON-ATTR fail).  dractl
drops them the same way before validating, and warns (WARN-DROPPED-FIELD).
``partitionTypeAttribute`` is the exception: Forbidden while its gate is off.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from dractl.model.features import GATE_NAMES
from dractl.validate.rules.ctx import Ctx

Pattern = tuple[str, ...]

_DEV = ("spec", "devices", "*")
_CLAIM: dict[str, list[Pattern]] = {
    "admin_access": [("devices", "requests", "*", "exactly", "adminAccess")],
    "prioritized_list": [("devices", "requests", "*", "firstAvailable")],
    "device_taints": [
        ("devices", "requests", "*", "exactly", "tolerations"),
        ("devices", "requests", "*", "firstAvailable", "*", "tolerations"),
    ],
    "consumable_capacity": [
        ("devices", "requests", "*", "exactly", "capacity"),
        ("devices", "requests", "*", "firstAvailable", "*", "capacity"),
        ("devices", "constraints", "*", "distinctAttribute"),
    ],
    "derived_attributes": [
        ("devices", "requests", "*", "exactly", "derivedAttributes"),
        ("devices", "requests", "*", "firstAvailable", "*", "derivedAttributes"),
    ],
}
_RESULTS = ("status", "allocation", "devices", "results", "*")
_STATUS: dict[str, list[Pattern]] = {
    "resource_claim_device_status": [("status", "devices")],
    "admin_access": [(*_RESULTS, "adminAccess")],
    "device_taints": [(*_RESULTS, "tolerations")],
    "consumable_capacity": [
        (*_RESULTS, "shareID"),
        (*_RESULTS, "consumedCapacity"),
        ("status", "devices", "*", "shareID"),
    ],
    "device_binding_and_status": [
        (*_RESULTS, "bindingConditions"),
        (*_RESULTS, "bindingFailureConditions"),
        ("status", "allocation", "allocationTimestamp"),
    ],
    "optional_node_operations": [(*_RESULTS, "skipNodeOperations")],
}
_SLICE: dict[str, list[Pattern]] = {
    "partitionable_devices": [
        ("spec", "sharedCounters"),
        ("spec", "perDeviceNodeSelection"),
        (*_DEV, "consumesCounters"),
        (*_DEV, "nodeName"),
        (*_DEV, "nodeSelector"),
        (*_DEV, "allNodes"),
    ],
    "device_taints": [(*_DEV, "taints")],
    "consumable_capacity": [(*_DEV, "allowMultipleAllocations"), (*_DEV, "capacity", "*", "requestPolicy")],
    "device_binding_and_status": [
        (*_DEV, "bindsToNode"),
        (*_DEV, "bindingConditions"),
        (*_DEV, "bindingFailureConditions"),
    ],
    "list_type_attributes": [(*_DEV, "attributes", "*", k) for k in ("bools", "ints", "strings", "versions")],
    "node_allocatable_resources": [(*_DEV, "nodeAllocatableResources")],
    "device_compatibility_groups": [(*_DEV, "consumesCounters", "*", "compatibilityGroups")],
    "optional_node_operations": [("spec", "skipNodeOperations")],
}
_CLASS: dict[str, list[Pattern]] = {"extended_resource": [("spec", "extendedResourceName")]}

# First minor in which the field exists at all (before it, the schema reports an unknown field).
_SINCE: dict[str, int] = {
    "list_type_attributes": 36,
    "node_allocatable_resources": 37,
    "derived_attributes": 37,
    "device_compatibility_groups": 37,
    "optional_node_operations": 37,
    "partitionable_devices_type": 37,
}


def _patterns(kind: str, with_status: bool) -> dict[str, list[Pattern]]:
    if kind == "ResourceSlice":
        return _SLICE
    if kind == "DeviceClass":
        return _CLASS
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        prefix: Pattern = ("spec",) if kind == "ResourceClaim" else ("spec", "spec")
        out = {g: [(*prefix, *p) for p in pats] for g, pats in _CLAIM.items()}
        if kind == "ResourceClaim" and with_status:
            for g, pats in _STATUS.items():
                out.setdefault(g, []).extend(pats)
        return out
    return {}


def _matches(obj: Any, pattern: Pattern, path: str = "") -> Iterator[tuple[str, Any, str]]:
    """(container path, container, key) for every place the pattern's last field is present."""
    head, rest = pattern[0], pattern[1:]
    if not rest:
        if isinstance(obj, Mapping) and obj.get(head) is not None:
            yield path, obj, head
        return
    if head == "*":
        items = obj.items() if isinstance(obj, Mapping) else enumerate(obj) if isinstance(obj, list) else ()
        for key, child in items:
            sub = f"{path}[{key}]"
            yield from _matches(child, rest, sub)
    elif isinstance(obj, Mapping) and head in obj:
        yield from _matches(obj[head], rest, f"{path}.{head}" if path else head)


def gate_name(feature: str) -> str:
    return GATE_NAMES.get(feature, feature)


def drop_disabled(
    ctx: Ctx, obj: Mapping[str, Any], with_status: bool, old: Mapping[str, Any] | None = None
) -> Mapping[str, Any]:
    """The object as the server keeps it after dropping disabled-gate fields (``obj`` is not mutated).
    On update (``old`` given) a feature the old object already used is kept, as the server does."""
    minor = ctx.version[1]
    drops: list[tuple[str, str, Pattern]] = []
    for feature, patterns in _patterns(ctx.kind, with_status).items():
        if ctx.gate(feature) or minor < _SINCE.get(feature, 34):
            continue
        if old is not None and any(True for p in patterns for _ in _matches(old, p)):
            continue
        for pattern in patterns:
            for path, _container, key in _matches(obj, pattern):
                drops.append((feature, f"{path}.{key}" if path else key, pattern))
    if ctx.kind == "ResourceSlice" and minor >= 37 and not ctx.gate("partitionable_devices_type"):
        spec = obj.get("spec")
        if isinstance(spec, Mapping) and spec.get("partitionTypeAttribute") is not None:
            ctx.forbidden(
                "RS-PARTTYPE",
                "spec.partitionTypeAttribute",
                f"disabled by feature-gate {gate_name('partitionable_devices_type')}",
            )
    if not drops:
        return obj
    out = copy.deepcopy(dict(obj))
    for feature, fpath, _pattern in drops:
        ctx.warn(
            "WARN-DROPPED-FIELD",
            fpath,
            f"field is dropped by the API server: feature gate {gate_name(feature)} is off in Kubernetes "
            f"{ctx.opts.kube_version} (enable it with --feature-gates {gate_name(feature)}=true)",
        )
    for pattern in {d[2] for d in drops}:
        for _path, container, key in list(_matches(out, pattern)):
            if isinstance(container, dict):
                container.pop(key, None)
    return out
