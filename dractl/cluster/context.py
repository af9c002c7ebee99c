"""A live cluster as *context* for ``dractl lint`` and ``claim validate``: the cross-object
checks ("class gpu.nvidia.com does not exist", "selector matches 0 of 412 devices") look at
the cluster's objects the way they look at a ``--snapshot``.

The objects come as :class:`~dractl.io.documents.LoadedDoc` (as the loader gives a
snapshot's), with an origin naming the cluster, so findings about the inputs can say where
their context came from.  :attr:`ClusterContext.header` is the snapshot header this read would
have written (server version, assumed gates, served API versions), so the validation pipeline
resolves the release and the served versions exactly as it does for a snapshot.

Least privilege: lint context is read-only advice, so any read the user is not allowed
(403) is left out and reported (``warn`` and :attr:`ClusterContext.missing`) instead of failing
the run; the checks then judge with what could be read, as they do without context.  Only a
context of which nothing at all could be read is an error (exit 3): the user asked for the
cluster and would otherwise get a silent "no context".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.cluster.lists import Progress
from dractl.cluster.options import ClusterOptions
from dractl.cluster.resources import Resource
from dractl.cluster.source import ClusterSource
from dractl.errors import ClusterError
from dractl.io.documents import LoadedDoc
from dractl.io.snapshot_header import SNAPSHOT_API_VERSION, SNAPSHOT_KIND
from dractl.model.origin import Origin

# What the cross-object checks read: no Pods, no Nodes' workloads.
CONTEXT_KINDS = (
    "DeviceClass",
    "ResourceSlice",
    "DeviceTaintRule",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "Node",
)


@dataclass(frozen=True)
class ClusterContext:
    """What :func:`context_docs` read: ``description`` (kubeconfig context, server, version),
    ``header`` (a snapshot header document for the read), ``docs`` and ``missing`` (one line per
    read that was denied or failed, as :attr:`ClusterSource.missing`)."""

    description: str
    header: dict[str, Any]
    docs: list[LoadedDoc] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def server_version(self) -> str | None:
        version = self.header.get("serverVersion")
        return version if isinstance(version, str) else None


class _ContextSource(ClusterSource):
    """A ClusterSource that leaves out every denied read (403), cluster-scoped or namespaced; a
    denied cluster-wide read of claims or templates falls back to the kubeconfig context's
    namespace when none was named (reported as missing the others)."""

    def _tolerated(self, error: ClusterError, resource: Resource) -> bool:
        return error.code == 403 or super()._tolerated(error, resource)

    def _fallback_namespace(self) -> str | None:
        return self.opts.namespace or (self.connection.namespace if self.connection else None)


def context_docs(
    opts: ClusterOptions,
    *,
    warn: Callable[[str], None] | None = None,
    kinds: Sequence[str] = CONTEXT_KINDS,
    progress: Progress | None = None,
) -> ClusterContext:
    """The cluster's objects for the cross-object checks.  Claims and templates are read in
    ``opts``' namespace (the context's by default; every namespace with ``all_namespaces``,
    falling back to the context's namespace when that is denied).  ``progress`` is called as
    the lists are read.  Raises ClusterError (exit 3) as :meth:`ClusterSource.load_raw` (401,
    transport failures, DRA not served), and when every read was denied."""
    source = _ContextSource(opts, kinds=kinds, warn=warn, progress=progress)
    raw = source.load_raw()
    assert raw.server is not None
    name = (
        f"cluster:{source.connection.context}"
        if source.connection and source.connection.context
        else "cluster:in-cluster"
    )
    objects = raw.all_objects()
    if not source.reads and raw.missing:  # no list succeeded, even an empty one
        raise ClusterError(
            "read",
            "the cluster context",
            "nothing could be read (" + "; ".join(raw.missing) + ")",
            "Forbidden",
            403,
        )
    docs = [LoadedDoc(obj, Origin(name, 0, i)) for i, obj in enumerate(objects)]
    header = {
        "apiVersion": SNAPSHOT_API_VERSION,
        "kind": SNAPSHOT_KIND,
        "serverVersion": raw.server.git_version,
        "featureGates": dict(raw.feature_gates),
        "servedVersions": list(raw.server.served),
    }
    if raw.missing:
        header["missing"] = list(raw.missing)
    return ClusterContext(source.describe(), header, docs, list(raw.missing))
