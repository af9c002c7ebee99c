"""A live cluster as *context* for ``dractl lint`` and ``claim validate``: the cross-object
checks ("class gpu.nvidia.com does not exist", "selector matches 0 of 412 devices") look at
the cluster's objects the way they look at a ``--snapshot``.

The objects come as :class:`~dractl.io.documents.LoadedDoc` (as the loader gives a
snapshot's), with an origin naming the cluster, so findings about the inputs can say where
their context came from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.io.documents import LoadedDoc
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


def context_docs(
    opts: ClusterOptions, *, warn: Callable[[str], None] | None = None, kinds: Sequence[str] = CONTEXT_KINDS
) -> tuple[str, str | None, list[LoadedDoc]]:
    """``(description, server version, docs)`` of the cluster, for the cross-object checks.
    Raises ClusterError (exit 3) as :meth:`ClusterSource.load_raw`."""
    source = ClusterSource(opts, kinds=kinds, warn=warn)
    raw = source.load_raw()
    name = (
        f"cluster:{source.connection.context}"
        if source.connection and source.connection.context
        else "cluster:in-cluster"
    )
    docs = [LoadedDoc(obj, Origin(name, 0, i)) for i, obj in enumerate(raw.all_objects())]
    return source.describe(), raw.server.git_version if raw.server else None, docs
