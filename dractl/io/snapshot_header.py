"""The snapshot header document: its identity and the checks on its fields."""

from __future__ import annotations

from typing import Any

SNAPSHOT_API_VERSION = "dractl/v1alpha1"
SNAPSHOT_KIND = "Snapshot"


def header_errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every problem of a header document; [] when it is usable."""
    problems: list[tuple[str, str]] = []
    api = raw.get("apiVersion")
    if api != SNAPSHOT_API_VERSION:
        problems.append(("apiVersion", f"unsupported snapshot version {api!r}; this dractl reads "
                                       f"{SNAPSHOT_API_VERSION}"))
    for fld in ("serverVersion", "time"):
        value = raw.get(fld)
        if value is not None and not isinstance(value, str):
            problems.append((fld, f"expected a string, not {type(value).__name__}"))
    gates = raw.get("featureGates")
    if gates is not None and not isinstance(gates, dict):
        problems.append(("featureGates", "expected a mapping of gate name to true/false"))
    elif isinstance(gates, dict):
        for name, value in gates.items():
            if not isinstance(value, bool):
                problems.append((f"featureGates[{name}]", f"expected true or false, not {value!r}"))
    return problems
