"""An object in the API server's internal (v1) shape: the version conversion every rule reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.model.convert import to_v1
from dractl.validate.rules.ctx import as_list, as_map

DRA_GROUP = "resource.k8s.io"


def to_internal(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object in the internal (v1) shape, with v1beta1's 'empty means unset' conversions."""
    obj = to_v1(raw)
    if raw.get("apiVersion") != f"{DRA_GROUP}/v1beta1":
        return obj
    spec = obj.get("spec")
    if raw.get("kind") == "ResourceSlice" and isinstance(spec, Mapping):
        drop = [k for k in ("nodeName", "allNodes") if spec.get(k) in ("", False)]
        if drop:
            obj = {**obj, "spec": {k: v for k, v in spec.items() if k not in drop}}
    if raw.get("kind") in ("ResourceClaim", "ResourceClaimTemplate"):
        obj = _drop_empty_exactly(obj)
    return obj


def _drop_empty_exactly(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = as_map(obj.get("spec"))
    inner = as_map(spec.get("spec")) if obj.get("kind") == "ResourceClaimTemplate" else spec
    devices = as_map(inner.get("devices"))
    reqs = as_list(devices.get("requests"))
    if not any(isinstance(r, Mapping) and r.get("exactly") == {} for r in reqs):
        return obj
    fixed = [
        {k: v for k, v in r.items() if not (k == "exactly" and v == {})} if isinstance(r, Mapping) else r
        for r in reqs
    ]
    new_inner = {**inner, "devices": {**devices, "requests": fixed}}
    if obj.get("kind") == "ResourceClaimTemplate":
        return {**obj, "spec": {**spec, "spec": new_inner}}
    return {**obj, "spec": new_inner}
