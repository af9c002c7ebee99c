"""Extended resources backed by DRA (DRAExtendedResource, KEP-5004).

A container that asks for ``nvidia.com/gpu: 1`` gets its device through DRA when
a DeviceClass names that resource in ``extendedResourceName`` (or through the
implicit name ``deviceclass.resource.kubernetes.io/<class>``) and the node does
not advertise it as a device-plugin resource.  kube-scheduler then allocates an
in-memory claim with one ExactCount request per container and resource, named
``container-<index>-request-<resource index>`` (index over init containers then
containers; resource index in the container's sorted request names).
"""

from __future__ import annotations

from collections.abc import Mapping

from dractl.io.world import World
from dractl.model import objects as o
from dractl.model.quantity import Quantity

IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def class_for(world: World, resource: str) -> o.DeviceClass | None:
    """The DeviceClass backing an extended resource; with several, the newest wins
    (creation time, then name), as the scheduler's resolver does."""
    if resource.startswith(IMPLICIT_PREFIX):
        return world.device_class(resource[len(IMPLICIT_PREFIX) :])
    matches = [c for c in world.device_classes if c.extended_resource_name == resource]
    if not matches:
        return None
    return max(matches, key=lambda c: (c.meta.creation_timestamp or "", c.meta.name))


def _is_extended(name: str) -> bool:
    if name.startswith(IMPLICIT_PREFIX):
        return True
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def _container_requests(c: o.ContainerClaims) -> dict[str, int]:
    """Integer requests of extended resources (requests default to limits)."""
    merged: dict[str, str] = {**c.limits, **c.requests}
    out: dict[str, int] = {}
    for name, raw in merged.items():
        if not _is_extended(name):
            continue
        try:
            exact = Quantity.parse(raw).value
        except ValueError:
            continue
        if exact.denominator != 1:
            continue  # not an integer: the scheduler skips it (AsInt64 fails)
        value = int(exact)
        if value > 0:
            out[name] = value
    return out


def extended_requests(world: World, pod: o.Pod) -> tuple[tuple[str, int], ...]:
    """(resource, pod-level count) of every DRA-backed extended resource the pod asks for."""
    totals: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in pod.containers:
        for name, n in _container_requests(c).items():
            if class_for(world, name) is None:
                continue
            if c.init:
                init_max[name] = max(init_max.get(name, 0), n)
            else:
                totals[name] = totals.get(name, 0) + n
    names = sorted(set(totals) | set(init_max))
    return tuple((n, max(totals.get(n, 0), init_max.get(n, 0))) for n in names)


def node_allocatable(node: o.Node | None, resource: str) -> bool:
    """Whether the node advertises the resource itself (a device plugin serves it there)."""
    if node is None:
        return False
    status = node.raw.get("status") if isinstance(node.raw, Mapping) else None
    alloc = status.get("allocatable") if isinstance(status, Mapping) else None
    if not isinstance(alloc, Mapping) or resource not in alloc:
        return False
    try:
        return Quantity.parse(alloc[resource]).sign() > 0
    except ValueError:
        return False


def extended_claim(world: World, pod: o.Pod, node: o.Node | None) -> o.ResourceClaim | None:
    """The scheduler's claim for the pod's DRA-backed extended resources on this node
    (None when there is nothing for DRA to allocate there)."""
    wanted = {name for name, _ in extended_requests(world, pod) if not node_allocatable(node, name)}
    if not wanted:
        return None
    containers = list(pod.containers)  # init containers first, as in the pod spec order
    requests: list[o.DeviceRequest] = []
    for resource in sorted(wanted):
        cls = class_for(world, resource)
        if cls is not None:
            requests.extend(_requests_for(containers, resource, cls.meta.name))
    requests.sort(key=lambda r: r.name)
    meta = o.ObjectMeta(
        name=f"{pod.meta.name}-extended-resources-<generated>",
        namespace=pod.meta.namespace,
        generate_name=f"{pod.meta.name}-extended-resources-",
        annotations={"resource.kubernetes.io/extended-resource-claim": "true"},
    )
    return o.ResourceClaim(meta=meta, spec=o.ResourceClaimSpec(requests=tuple(requests)))


def _requests_for(containers: list[o.ContainerClaims], resource: str, cls: str) -> list[o.DeviceRequest]:
    long_lived: dict[int, o.DeviceRequest] = {}
    for i, c in enumerate(containers):
        if not c.init:
            req = _request(i, c, resource, cls, 0)
            if req is not None:
                long_lived[i] = req
    best: o.DeviceRequest | None = None
    for i, c in enumerate(containers):
        if not c.init:
            continue
        # An init container first reuses devices of the long-lived containers after it.
        reusable = sum(r.exactly.count for j, r in long_lived.items() if j >= i and r.exactly)
        req = _request(i, c, resource, cls, reusable)
        if (
            req is not None
            and req.exactly
            and (best is None or (best.exactly and best.exactly.count < req.exactly.count))
        ):
            best = req
    return ([best] if best is not None else []) + [long_lived[i] for i in sorted(long_lived)]


def _request(
    index: int, c: o.ContainerClaims, resource: str, cls: str, reusable: int
) -> o.DeviceRequest | None:
    reqs = _container_requests(c)
    count = reqs.get(resource, 0) - reusable
    if count <= 0:
        return None
    names = sorted({**c.limits, **c.requests})
    name = f"container-{index}-request-{names.index(resource)}"
    return o.DeviceRequest(name, o.ExactDeviceRequest(cls, count=count))
