"""What a cluster offers, for ``generate claim --interactive`` and name completion: DeviceClasses,
and per attribute and capacity the values devices publish and how many devices publish each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Catalog:
    """``attributes``/``capacities``: qualified name → Counter of values (as text) → devices."""

    classes: list[str] = field(default_factory=list)
    attributes: dict[str, Counter[str]] = field(default_factory=dict)
    capacities: dict[str, Counter[str]] = field(default_factory=dict)
    devices: int = 0


def catalog(raw_docs: Iterable[dict[str, Any]]) -> Catalog:
    """Build the catalog from raw documents (any kinds; only DeviceClasses and ResourceSlices count)."""
    out = Catalog()
    for doc in raw_docs:
        kind, spec = doc.get("kind"), doc.get("spec")
        if kind == "DeviceClass":
            name = (doc.get("metadata") or {}).get("name")
            if isinstance(name, str) and name not in out.classes:
                out.classes.append(name)
        elif kind == "ResourceSlice" and isinstance(spec, dict):
            driver = str(spec.get("driver") or "")
            for dev in spec.get("devices") or []:
                if isinstance(dev, dict):
                    out.devices += 1
                    _add(out.attributes, driver, dev.get("attributes"), _attr_text)
                    _add(out.capacities, driver, dev.get("capacity"), _cap_text)
    return out


def _add(into: dict[str, Counter[str]], driver: str, values: Any, text: Any) -> None:
    if not isinstance(values, dict):
        return
    for name, value in values.items():
        qualified = str(name) if "/" in str(name) else f"{driver}/{name}"
        into.setdefault(qualified, Counter())[text(value)] += 1


def _attr_text(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1:
        kind, v = next(iter(value.items()))
        if kind == "string":
            return repr(str(v))
        if kind == "bool":
            return "true" if v else "false"
        return str(v)
    return str(value)


def _cap_text(value: Any) -> str:
    return str(value.get("value")) if isinstance(value, dict) else str(value)


NAME_KINDS = ("claims", "classes", "nodes", "pools", "devices", "pods", "templates")


def names(raw_docs: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Names to complete, per kind of :data:`NAME_KINDS`, sorted: claims, pods and templates as
    ``NAMESPACE/NAME``, devices as ``DRIVER/POOL/DEVICE``; nodes from Nodes and from slices."""
    found: dict[str, set[str]] = {k: set() for k in NAME_KINDS}
    namespaced = {"ResourceClaim": "claims", "Pod": "pods", "ResourceClaimTemplate": "templates"}
    for doc in raw_docs:
        kind, meta, spec = doc.get("kind"), doc.get("metadata"), doc.get("spec")
        meta = meta if isinstance(meta, dict) else {}
        name = meta.get("name")
        if kind in namespaced and isinstance(name, str):
            found[namespaced[str(kind)]].add(f"{meta.get('namespace') or 'default'}/{name}")
        elif kind == "DeviceClass" and isinstance(name, str):
            found["classes"].add(name)
        elif kind == "Node" and isinstance(name, str):
            found["nodes"].add(name)
        elif kind == "ResourceSlice" and isinstance(spec, dict):
            _slice_names(spec, found)
    return {k: sorted(v) for k, v in found.items()}


def _slice_names(spec: dict[str, Any], found: dict[str, set[str]]) -> None:
    node, pool = spec.get("nodeName"), (spec.get("pool") or {}).get("name")
    if isinstance(node, str) and node:
        found["nodes"].add(node)
    if isinstance(pool, str) and pool:
        found["pools"].add(pool)
        for dev in spec.get("devices") or []:
            if isinstance(dev, dict) and isinstance(dev.get("name"), str):
                found["devices"].add(f"{spec.get('driver')}/{pool}/{dev['name']}")
