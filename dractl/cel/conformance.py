"""Run one line of ``../shared/conformance/cel/vectors.jsonl`` through dractl's CEL engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.cel.selector import compile_selector, validate_selector
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.model.quantity import Quantity

# The order in which Kubernetes picks the value of a DeviceAttribute (first non-nil field wins).
_ATTRIBUTE_ORDER = ("ints", "bools", "strings", "versions", "int", "bool", "string", "version")
_ENV = {"StoredExpressions": "stored", "NewExpressions": "new"}


def device_from_vector(raw: Mapping[str, Any]) -> Device:
    """The vector's device (``resource.k8s.io/v1`` Device fields plus ``driver``) as a model Device."""
    attrs: dict[str, AttributeValue] = {}
    unknown: list[str] = []
    for name, value in (raw.get("attributes") or {}).items():
        chosen = None
        for kind in _ATTRIBUTE_ORDER:
            if isinstance(value, Mapping) and value.get(kind) is not None:
                v = value[kind]
                chosen = AttributeValue(kind, tuple(v) if isinstance(v, list) else v)
                break
        if chosen is None:
            unknown.append(name)
        else:
            attrs[name] = chosen
    caps = {
        name: DeviceCapacity(Quantity.parse(c.get("value", "0")))
        for name, c in (raw.get("capacity") or {}).items()
    }
    return Device(
        name=str(raw.get("name", "device")),
        driver=str(raw.get("driver") or ""),
        attributes=attrs,
        capacity=caps,
        allow_multiple_allocations=raw.get("allowMultipleAllocations"),
        unknown_attributes=tuple(unknown),
    )


def run_vector(vector: Mapping[str, Any]) -> dict[str, Any]:
    """``{"compileError", "maxCost", "matches", "evalError", "validationError"}`` for one vector."""
    features = Features.from_mapping(dict(vector.get("features") or {}))
    env = _ENV.get(str(vector.get("envType", "StoredExpressions")), "stored")
    expression = str(vector["expression"])
    out: dict[str, Any] = {
        "compileError": None,
        "maxCost": None,
        "matches": None,
        "evalError": None,
        "validationError": validate_selector(expression, features=features, env="new"),
    }
    try:
        sel = compile_selector(expression, env=env, features=features)  # type: ignore[arg-type]
    except CelCompileError as e:
        out["compileError"] = e.message
        return out
    out["maxCost"] = sel.max_cost
    raw = vector.get("device")
    if raw is not None:
        limit = vector.get("costLimit")
        try:
            out["matches"] = sel.matches(
                device_from_vector(raw), cost_limit=1_000_000 if limit is None else int(limit)
            )
        except CelRuntimeError as e:
            out["evalError"] = e.message
    return out
