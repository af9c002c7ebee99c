"""Turning the search's placements into resource.k8s.io/v1 AllocationResults.

Per claim: the device results in placement order, the configuration (each
class's config once, then the claim's config for the chosen requests; a config
that covers every request loses its request list), and the node selector the
devices imply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dractl.matcher.api import new_allocation, new_device_result
from dractl.matcher.nodes import merge_requirements
from dractl.matcher.placement import Placed
from dractl.matcher.requests import Req, RequestError
from dractl.matcher.serialize import allocation_to_dict, toleration_to_dict
from dractl.model.features import Features
from dractl.model.objects import (
    AllocationResult,
    DeviceConfig,
    DeviceRequestAllocationResult,
    ResourceClaim,
)

__all__ = ["allocation_to_dict", "build", "toleration_to_dict"]


def build(
    claim: ResourceClaim,
    placed: Sequence[Placed],
    chosen: Sequence[Req],
    node_name: str,
    features: Features,
    *,
    stable: bool = False,
) -> AllocationResult:
    """``chosen``: the entry used for each request (the selected subrequest).  ``stable``:
    the stable implementation, which does not know ``bindsToNode`` (no node pinning for it)."""
    made = []
    for p in placed:  # a loop, not a generator (most claims get one device)
        made.append(_device_result(p, features))
    devices = tuple(made)
    config = _config(claim, chosen)
    return new_allocation(devices, config, _node_selector(claim, placed, node_name, not stable))


def _device_result(p: Placed, features: Features) -> DeviceRequestAllocationResult:
    d = p.cand.device
    binding = features.device_binding_and_status
    return new_device_result(
        p.req.full_name,
        p.cand.pool.driver,
        p.cand.pool.name,
        d.name,
        True if p.req.admin else None,
        p.req.tolerations,
        d.binding_conditions if binding else (),
        d.binding_failure_conditions if binding else (),
        p.share_id,
        dict(p.consumed) if p.consumed else None,
    )


def _config(claim: ResourceClaim, chosen: Sequence[Req]) -> tuple[DeviceConfig, ...]:
    out: list[DeviceConfig] = []
    class_ranges: dict[str, tuple[int, int]] = {}
    for req in chosen:
        cls = req.device_class
        if cls.meta.name in class_ranges:
            lo, hi = class_ranges[cls.meta.name]
            for i in range(lo, hi):
                out[i] = _with_requests(out[i], (*out[i].requests, req.full_name))
            continue
        lo = len(out)
        if cls.config:  # no generator for a class without config (the usual case)
            out.extend(
                DeviceConfig((req.full_name,), c.driver, c.parameters, "FromClass") for c in cls.config
            )
        class_ranges[cls.meta.name] = (lo, len(out))
    for c in claim.spec.config:
        if not c.requests or any(_chosen_name(n, chosen) for n in c.requests):
            out.append(DeviceConfig(c.requests, c.driver, c.parameters, "FromClaim"))
    if not out:
        return ()
    return tuple(_with_requests(c, ()) if c.requests and _covers_all(c.requests, chosen) else c for c in out)


def _chosen_name(name: str, chosen: Sequence[Req]) -> bool:
    """A claim config applies when it names a request, or the chosen subrequest."""
    return any(name == (r.parent or r.name) or (r.parent is not None and name == r.full_name) for r in chosen)


def _covers_all(requests: Sequence[str], chosen: Sequence[Req]) -> bool:
    return all(
        (r.parent or r.name) in requests or (r.parent is not None and r.full_name in requests) for r in chosen
    )


def _with_requests(c: DeviceConfig, requests: tuple[str, ...]) -> DeviceConfig:
    return DeviceConfig(requests, c.driver, c.parameters, c.source)


def _node_selector(
    claim: ResourceClaim, placed: Sequence[Placed], node_name: str, binds_to_node: bool
) -> dict[str, Any] | None:
    fields: list[dict[str, Any]] = []
    exprs: list[dict[str, Any]] = []
    for p in placed:
        per_device = bool(p.cand.slice.per_device_node_selection)
        src = p.cand.device if per_device else p.cand.slice
        if src.node_name is not None or (binds_to_node and p.cand.device.binds_to_node):
            return {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
                ]
            }
        terms = (src.node_selector or {}).get("nodeSelectorTerms") if src.node_selector is not None else None
        if not terms:
            continue
        if len(terms) > 1:
            raise RequestError(
                f"create NodeSelector for claim {claim.meta.name}: unsupported "
                f"ResourceSlice.NodeSelector with {len(terms)} terms"
            )
        merge_requirements(fields, terms[0].get("matchFields") or [])
        merge_requirements(exprs, terms[0].get("matchExpressions") or [])
    if not fields and not exprs:
        return None
    term: dict[str, Any] = {}
    if exprs:
        term["matchExpressions"] = exprs
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}
