"""What a lean read decodes of a list page: the fields the inventory views' model is built from.

:class:`~dractl.cluster.source.ClusterSource` with ``lean`` builds ResourceSlices and
ResourceClaims without keeping their JSON, and Pods with only what
:func:`dractl.model.build.lean_pod` reads; the rest of each object is decoded only to be freed
again.  On a real cluster that is most of it (``metadata.managedFields`` of every object; a
Pod's containers, volumes, environment), and at 20,000 Pods decoding and freeing them is a
large part of a view's time.  The schemas below name what is read: every field
:func:`dractl.model.build.meta` reads of the metadata, and of a Pod what the source's pod
reads (:func:`~dractl.cluster.source.uses_devices`, the names) and ``lean_pod`` read, and
of its status what the views read of it (``lean_pod`` keeps the status for them); every
other field is parsed and skipped (:func:`dractl.cluster.jsondecode.fast_typed`: a page it
refuses is decoded whole, as any other).  A field the builders or the inventory views read
must be named here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from dractl.cluster.jsondecode import typed_decoder


class _Meta(TypedDict, total=False):
    """Every field :func:`dractl.model.build.meta` reads."""

    name: Any
    namespace: Any
    uid: Any
    generateName: Any
    labels: Any
    annotations: Any
    generation: Any
    resourceVersion: Any
    creationTimestamp: Any
    deletionTimestamp: Any
    ownerReferences: Any


class _Object(TypedDict, total=False):
    """A ResourceSlice or ResourceClaim: all of it but what its metadata holds beyond ``_Meta``."""

    apiVersion: Any
    kind: Any
    metadata: _Meta
    spec: Any
    status: Any


class _ObjectPage(TypedDict, total=False):
    items: list[_Object]
    metadata: Any


class _PodMeta(TypedDict, total=False):
    name: Any
    namespace: Any


class _Container(TypedDict, total=False):
    resources: Any


class _PodSpec(TypedDict, total=False):
    nodeName: Any
    resourceClaims: Any
    initContainers: list[_Container]
    containers: list[_Container]


class _ContainerStatus(TypedDict, total=False):
    name: Any
    allocatedResourcesStatus: Any


class _PodStatus(TypedDict, total=False):
    """What lean_pod reads of a Pod's status, and what the views read of what it keeps
    (``dractl.inventory.core``: the phase, the containers' allocatedResourcesStatus)."""

    phase: Any
    resourceClaimStatuses: Any
    initContainerStatuses: list[_ContainerStatus]
    containerStatuses: list[_ContainerStatus]
    ephemeralContainerStatuses: list[_ContainerStatus]


class _Pod(TypedDict, total=False):
    apiVersion: Any
    kind: Any
    metadata: _PodMeta
    spec: _PodSpec
    status: _PodStatus


class _PodPage(TypedDict, total=False):
    items: list[_Pod]
    metadata: Any


_SCHEMAS: dict[str, Any] = {"ResourceSlice": _ObjectPage, "ResourceClaim": _ObjectPage, "Pod": _PodPage}
_DECODERS: dict[str, Callable[[bytes], Any] | None] = {}


def lean_decoder(kind: str) -> Callable[[bytes], Any] | None:
    """The page decoder of a lean read of ``kind`` (for :func:`~dractl.cluster.jsondecode.fast_typed`);
    None for a kind that is read whole."""
    schema = _SCHEMAS.get(kind)
    if schema is None:
        return None
    if kind not in _DECODERS:
        _DECODERS[kind] = typed_decoder(schema)
    return _DECODERS[kind]
