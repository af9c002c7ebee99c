"""What the server is and serves: ``/version`` and the ``resource.k8s.io`` API group.

The server's version becomes the default ``--kube-version``.  DRA's group is read in the
first of v1, v1beta2, v1beta1 it serves (1.32–1.33 clusters serve only betas; objects are
converted to v1 by :mod:`dractl.model.convert`).  A server without the group is told so
plainly rather than failing on the first list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dractl.cluster.resources import DRA_GROUP, DRA_VERSIONS, RESOURCES
from dractl.cluster.transport import Call, Transport
from dractl.errors import ClusterError
from dractl.model.features import SUPPORTED_KUBE_VERSIONS


@dataclass(frozen=True)
class ServerInfo:
    """``git_version`` as the server reports it (``v1.37.1``), ``minor`` as ``"1.37"``;
    ``versions`` maps each kind dractl reads to the API version it is read in (absent: not
    served, e.g. DeviceTaintRules with their gate off); ``served`` the ``resource.k8s.io``
    group/versions discovery lists (``resource.k8s.io/v1``, …): what the cluster serves, which
    decides lint's served-version findings (KEP-3136) instead of the release defaults."""

    git_version: str
    minor: str
    versions: dict[str, str] = field(default_factory=dict)
    served: tuple[str, ...] = ()

    @property
    def patch(self) -> int | None:
        """The patch release of ``git_version`` (``v1.37.1-gke.2`` → 1), None when it has none."""
        from dractl.io.snapshot_header import SnapshotHeader

        return SnapshotHeader(self.git_version).patch

    @property
    def dra_version(self) -> str | None:
        return self.versions.get("ResourceSlice")

    @property
    def model_version(self) -> str:
        """The supported release closest to the server's: its rules apply."""
        if self.minor in SUPPORTED_KUBE_VERSIONS:
            return self.minor
        try:
            major, minor = (int(p) for p in self.minor.split("."))
        except ValueError:
            return SUPPORTED_KUBE_VERSIONS[-1]
        lo = tuple(int(p) for p in SUPPORTED_KUBE_VERSIONS[0].split("."))
        return SUPPORTED_KUBE_VERSIONS[0] if (major, minor) < lo else SUPPORTED_KUBE_VERSIONS[-1]


def server_version(transport: Transport) -> tuple[str, str]:
    """``(gitVersion, "major.minor")``; ``minor`` loses provider suffixes (GKE's ``"37+"``)."""
    doc = transport.get_json("/version", [], Call("get", "the server version (/version)", ""))
    if not isinstance(doc, dict):
        raise ClusterError("get", "/version", "the server's version document is not an object")
    major = "".join(ch for ch in str(doc.get("major") or "") if ch.isdigit())
    minor = "".join(ch for ch in str(doc.get("minor") or "") if ch.isdigit())
    git = str(doc.get("gitVersion") or (f"v{major}.{minor}" if major else "unknown"))
    if not major or not minor:  # fall back to gitVersion "v1.37.1-gke.100"
        parts = git.lstrip("v").split(".")
        major, minor = [*parts, "", ""][:2]
        minor = "".join(ch for ch in minor if ch.isdigit())
    return git, f"{major}.{minor}"


def discover(transport: Transport) -> ServerInfo:
    """The server's version and the API version of each kind dractl reads."""
    git, minor = server_version(transport)
    group = transport.get_json(
        f"/apis/{DRA_GROUP}", [], Call("get", f"API group {DRA_GROUP}", ""), allow=frozenset({404})
    )
    served = _group_versions(group)
    if not served:
        raise ClusterError(
            "discover",
            f"the DRA API ({DRA_GROUP})",
            f"the server (Kubernetes {git}) "
            "does not serve it: DRA needs Kubernetes 1.32 or later with "
            "resource.k8s.io enabled",
            "NotFound",
            404,
        )
    versions: dict[str, str] = {"Node": "v1", "Pod": "v1"}
    resources_by_version: dict[str, set[str]] = {}
    for kind, res in RESOURCES.items():
        if res.group != DRA_GROUP:
            continue
        for version in res.versions:
            if version not in served:
                continue
            if version not in resources_by_version:
                resources_by_version[version] = _resource_names(transport, version)
            if res.plural in resources_by_version[version]:
                versions[kind] = version
                break
    if "ResourceSlice" not in versions:
        raise ClusterError(
            "discover",
            f"the DRA API ({DRA_GROUP})",
            f"the server (Kubernetes {git}) serves "
            f"{DRA_GROUP} {', '.join(served)} without resourceslices; dractl reads "
            f"{', '.join(DRA_VERSIONS)}",
            "NotFound",
            404,
        )
    return ServerInfo(git, minor, versions, tuple(f"{DRA_GROUP}/{v}" for v in served))


def _group_versions(group: Any) -> list[str]:
    if not isinstance(group, dict) or group.get("kind") == "Status":
        return []
    return [str(v.get("version")) for v in group.get("versions") or [] if isinstance(v, dict)]


def _resource_names(transport: Transport, version: str) -> set[str]:
    doc = transport.get_json(
        f"/apis/{DRA_GROUP}/{version}",
        [],
        Call("get", f"API {DRA_GROUP}/{version}", ""),
        allow=frozenset({404}),
    )
    if not isinstance(doc, dict):
        return set()
    return {str(r.get("name")) for r in doc.get("resources") or [] if isinstance(r, dict)}
