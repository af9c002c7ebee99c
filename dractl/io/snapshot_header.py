"""The snapshot header document: its identity and the checks on its fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SNAPSHOT_API_VERSION = "dractl/v1alpha1"
SNAPSHOT_KIND = "Snapshot"


def header_errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every problem of a header document; [] when it is usable."""
    problems: list[tuple[str, str]] = []
    api = raw.get("apiVersion")
    if api != SNAPSHOT_API_VERSION:
        problems.append(
            ("apiVersion", f"unsupported snapshot version {api!r}; this dractl reads {SNAPSHOT_API_VERSION}")
        )
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
    served = raw.get("servedVersions")
    if served is not None and (
        not isinstance(served, list) or not all(isinstance(v, str) and "/" in v for v in served)
    ):
        problems.append(
            ("servedVersions", "expected a list of API group/versions, e.g. [resource.k8s.io/v1]")
        )
    return problems


@dataclass(frozen=True, slots=True)
class SnapshotHeader:
    """What a snapshot header says about its cluster, typed.

    ``server_version`` is the API server's version as recorded (``v1.36.2``), None when the
    header does not say; ``feature_gates`` the gates the cluster ran with (empty when not
    recorded); ``time`` when the snapshot was taken; ``served_versions`` the ``resource.k8s.io``
    group/versions the cluster served (None: not recorded, older snapshots).  A live cluster's
    adapter builds one of these from discovery, so every command resolves versions the same way
    (:func:`dractl.io.release.resolve_release`).
    """

    server_version: str | None = None
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    time: str | None = None
    served_versions: tuple[str, ...] | None = None

    @property
    def patch(self) -> int | None:
        """``v1.37.1`` → 1; None when the version has no patch (``v1.37``) or is not a version."""
        if self.minor is None or self.server_version is None:
            return None
        parts = self.server_version.strip().lstrip("vV").split(".")
        patch = (parts[2] if len(parts) > 2 else "").split("-")[0].split("+")[0]  # "1-gke.100" → "1"
        return int(patch) if patch.isdigit() else None

    @property
    def minor(self) -> str | None:
        """``v1.36.2`` → ``"1.36"``; None when there is no version or it has no minor."""
        if not self.server_version:
            return None
        parts = self.server_version.strip().lstrip("vV").split(".")
        if len(parts) < 2 or not parts[0].isdigit():
            return None
        minor = "".join(ch for ch in parts[1] if ch.isdigit())  # "36+" (GKE) → "36"
        return f"{parts[0]}.{minor}" if minor else None

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any] | None) -> SnapshotHeader | None:
        """The typed header of a header document (as loaded); None for None.  Fields with the
        wrong type are left out (:func:`header_errors` reports them when the file is read)."""
        if raw is None:
            return None
        version = raw.get("serverVersion") or raw.get("kubeVersion")
        gates = raw.get("featureGates")
        time = raw.get("time")
        served = raw.get("servedVersions")
        return cls(
            server_version=version if isinstance(version, str) else None,
            feature_gates={str(k): v for k, v in gates.items() if isinstance(v, bool)}
            if isinstance(gates, Mapping)
            else {},
            time=time if isinstance(time, str) else None,
            served_versions=tuple(v for v in served if isinstance(v, str))
            if isinstance(served, list)
            else None,
        )
