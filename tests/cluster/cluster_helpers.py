"""Helpers shared by the cluster tests: comparing worlds from different sources, and
rewriting the demo objects into the v1beta1 shape a 1.32–1.33 cluster serves."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from dractl.io.world import World

WORLD_FIELDS = ("nodes", "device_classes", "slices", "taint_rules", "claims", "templates", "pods")


def _norm(obj: Any) -> Any:
    changes: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(obj)}
    for name in ("origin", "raw"):
        if name in names:
            changes[name] = None
    if "api_version" in names:
        changes["api_version"] = ""
    if "meta" in names:
        changes["meta"] = dataclasses.replace(obj.meta, uid="", resource_version="", creation_timestamp=None)
    return dataclasses.replace(obj, **changes)


def comparable(world: World) -> dict[str, list[Any]]:
    """The world's objects without what a server adds (uid, resourceVersion) or where they
    were read from, sorted by key."""
    # Model classes compare by identity: compare their field values.
    return {
        f: [
            dataclasses.asdict(x)
            for x in sorted((_norm(x) for x in getattr(world, f)), key=lambda x: x.meta.key)
        ]
        for f in WORLD_FIELDS
    }


_EXACT = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity")


def to_v1beta1(obj: dict[str, Any]) -> dict[str, Any]:
    """A v1 DRA object as resource.k8s.io/v1beta1 (device fields under ``basic``, flat requests)."""
    out = copy.deepcopy(obj)
    if not str(out.get("apiVersion", "")).startswith("resource.k8s.io/"):
        return out
    out["apiVersion"] = "resource.k8s.io/v1beta1"
    kind, spec = out.get("kind"), out.get("spec") or {}
    if kind == "ResourceSlice":
        spec["devices"] = [_basic(d) for d in spec.get("devices") or []]
    elif kind == "ResourceClaim":
        _flat_requests(spec)
    elif kind == "ResourceClaimTemplate":
        _flat_requests(spec.get("spec") or {})
    return out


def _basic(dev: dict[str, Any]) -> dict[str, Any]:
    return {"name": dev["name"], "basic": {k: v for k, v in dev.items() if k != "name"}}


def _flat_requests(spec: dict[str, Any]) -> None:
    for req in (spec.get("devices") or {}).get("requests") or []:
        exact = req.pop("exactly", None)
        if isinstance(exact, dict):
            req.update(exact)
