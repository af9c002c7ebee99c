"""Convert ``resource.k8s.io/v1beta1`` and ``v1beta2`` objects into the v1 shape.

This is what the API server does when it stores an older version: v1beta1
nests device fields under ``basic:`` and has flat requests (the request *is*
the exact request, or carries ``firstAvailable``); v1beta2 already has the v1
shape.  ``apiVersion`` is kept as written so callers can still warn about it.
The input is never mutated; unchanged sub-trees are shared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Raw = Mapping[str, Any]

V1BETA1 = "resource.k8s.io/v1beta1"
_EXACT_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)


def _flatten_device(dev: Any) -> Any:
    if not isinstance(dev, Mapping) or "basic" not in dev:
        return dev
    basic = dev.get("basic")
    out = {k: v for k, v in dev.items() if k != "basic"}
    if isinstance(basic, Mapping):
        for k, v in basic.items():
            out.setdefault(k, v)
    return out


def _v1_request(req: Any) -> Any:
    if not isinstance(req, Mapping) or "exactly" in req:
        return req
    out: dict[str, Any] = {k: v for k, v in req.items() if k not in _EXACT_FIELDS and k != "firstAvailable"}
    if req.get("firstAvailable"):
        out["firstAvailable"] = req["firstAvailable"]
        # Exact-request fields beside firstAvailable are a validation error upstream;
        # keep them visible in the v1 shape so the validator can still point at them.
        stray = {k: req[k] for k in _EXACT_FIELDS if k in req}
        if stray:
            out["exactly"] = stray
    else:
        out["exactly"] = {k: req[k] for k in _EXACT_FIELDS if k in req}
    return out


def _claim_spec(spec: Any) -> Any:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("devices"), Mapping):
        return spec
    devices = dict(spec["devices"])
    if isinstance(devices.get("requests"), list):
        devices["requests"] = [_v1_request(r) for r in devices["requests"]]
    return {**spec, "devices": devices}


def to_v1(raw: Raw) -> Raw:
    """The object in the v1 shape (a new dict when anything changed, else ``raw``)."""
    if raw.get("apiVersion") != V1BETA1:
        return raw
    kind = raw.get("kind")
    spec = raw.get("spec")
    if not isinstance(spec, Mapping):
        return raw
    if kind == "ResourceSlice" and isinstance(spec.get("devices"), list):
        return {**raw, "spec": {**spec, "devices": [_flatten_device(d) for d in spec["devices"]]}}
    if kind == "ResourceClaim":
        return {**raw, "spec": _claim_spec(spec)}
    if kind == "ResourceClaimTemplate":
        return {**raw, "spec": {**spec, "spec": _claim_spec(spec.get("spec"))}}
    return raw
