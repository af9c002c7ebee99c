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
