"""ResourceClaim and DeviceTaintRule status (RCS-…, DTR-STATUS), as a status update with no old status."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.rules import formats as F
from dractl.validate.rules.claim import RequestNames, request_ref, request_refs
from dractl.validate.rules.common import (
    driver_name,
    label_name,
    opaque_config,
    pool_name,
    raw_extension,
    required_label,
)
from dractl.validate.rules.ctx import Bare, Ctx, as_list, as_map, as_str
from dractl.validate.rules.nodesel import node_selector
from dractl.validate.rules.taints import binding_parameters, skip_node_operations, toleration

_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
)


def check_claim_status(
    ctx: Ctx,
    status: Mapping[str, Any],
    names: RequestNames,
    path: str = "status",
    old_status: Mapping[str, Any] | None = None,
    deleting: bool = False,
) -> None:
    """A status update; ``old_status`` None means the old status was empty (a first allocation).
    An allocation present in both is only compared (RCS-ALLOC-IMMUTABLE, by the update rules)."""
    old_status = old_status or {}
    reserved = status.get("reservedFor")
    ctx.each_unique(
        "RCS-RESERVED-MAX",
        "RCS-RESERVED-UNIQUE",
        reserved,
        ctx.limits.reserved_for,
        f"{path}.reservedFor",
        lambda r, p: _consumer(ctx, as_map(r), p),
        lambda r: as_str(as_map(r).get("uid")),
    )
    allocation = status.get("allocation")
    allocated = _allocated_ids(as_map(allocation)) if allocation is not None else set()
    ctx.each_unique(
        "RCS-DEV-UNIQUE",
        "RCS-DEV-UNIQUE",
        status.get("devices"),
        -1,
        f"{path}.devices",
        lambda d, p: _device_status(ctx, as_map(d), p, allocated),
        _device_id,
    )
    if as_list(reserved) and allocation is None:
        ctx.forbidden(
            "RCS-RESERVED-NEEDS-ALLOC",
            f"{path}.reservedFor",
            "may not be specified when `allocated` is not set",
        )
    elif deleting and as_list(reserved):
        old_uids = {as_str(as_map(r).get("uid")) for r in as_list(old_status.get("reservedFor"))}
        if any(as_str(as_map(r).get("uid")) not in old_uids for r in as_list(reserved)):
            ctx.forbidden(
                "RCS-RESERVED-DELETING",
                f"{path}.reservedFor",
                "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set",
            )
    if isinstance(allocation, Mapping) and old_status.get("allocation") is None:
        _allocation(ctx, allocation, names, f"{path}.allocation")


def _consumer(ctx: Ctx, ref: Mapping[str, Any], path: str) -> None:
    for fld in ("resource", "name", "uid"):
        if not as_str(ref.get(fld)):
            ctx.required("RCS-RESERVED-FIELDS", f"{path}.{fld}")


def _device_id(d: Any) -> str:
    d = as_map(d)
    parts = [as_str(d.get("driver")), as_str(d.get("pool")), as_str(d.get("device"))]
    if d.get("shareID") is not None:
        parts.append(as_str(d.get("shareID")))
    return "/".join(parts)


def _allocated_ids(allocation: Mapping[str, Any]) -> set[str]:
    results = as_list(as_map(allocation.get("devices")).get("results"))
    return {_device_id(r) for r in results}


def _share_id(ctx: Ctx, rule: str, value: Any, path: str) -> None:
    if value is None:
        return
    problem = F.uid_problem(as_str(value))
    if problem:
        ctx.invalid(rule, path, as_str(value), problem)


def _allocation(ctx: Ctx, allocation: Mapping[str, Any], names: RequestNames, path: str) -> None:
    devices = as_map(allocation.get("devices"))
    dpath = f"{path}.devices"
    ctx.each(
        "RCS-RESULTS-MAX",
        devices.get("results"),
        ctx.limits.results,
        f"{dpath}.results",
        lambda r, p: _result(ctx, as_map(r), p, names),
    )
    ctx.each(
        "RCS-ALLOC-CFG-MAX",
        devices.get("config"),
        2 * ctx.limits.config,
        f"{dpath}.config",
        lambda c, p: _alloc_config(ctx, as_map(c), p, names),
    )
    if allocation.get("nodeSelector") is not None:
        node_selector(ctx, allocation["nodeSelector"], f"{path}.nodeSelector")


def _result(ctx: Ctx, result: Mapping[str, Any], path: str, names: RequestNames) -> None:
    request_ref(ctx, "RCS-RESULT-REQ", result.get("request"), f"{path}.request", names)
    driver_name(ctx, "RCS-RESULT-IDS", result.get("driver"), f"{path}.driver")
    pool_name(ctx, "RCS-RESULT-IDS", result.get("pool"), f"{path}.pool")
    required_label(ctx, "RCS-RESULT-IDS", result.get("device"), f"{path}.device")
    binding_parameters(ctx, result, path, prefix="RCS-RESULT-BINDING")
    for i, tol in enumerate(as_list(result.get("tolerations"))):
        toleration(ctx, tol, f"{path}.tolerations[{i}]", prefix="RCS-RESULT-TOL")
    _share_id(ctx, "RCS-RESULT-SHAREID", result.get("shareID"), f"{path}.shareID")
    skip_node_operations(
        ctx, result.get("skipNodeOperations"), f"{path}.skipNodeOperations", "RCS-RESULT-SKIPOPS"
    )
    if result.get("adminAccess") is True:
        ctx.warn(
            "RCS-ADMIN-NS",
            f"{path}.adminAccess",
            "admin access to devices requires the "
            "`resource.kubernetes.io/admin-access: true` label on the containing namespace "
            "(not checked offline)",
        )


def _alloc_config(ctx: Ctx, cfg: Mapping[str, Any], path: str, names: RequestNames) -> None:
    source = as_str(cfg.get("source"))
    if not source:
        ctx.required("RCS-ALLOC-CFG-SOURCE", f"{path}.source")
    elif source not in ("FromClaim", "FromClass"):
        ctx.not_supported("RCS-ALLOC-CFG-SOURCE", f"{path}.source", source, ["FromClaim", "FromClass"])
    request_refs(ctx, "RCS-ALLOC-CFG-REST", cfg.get("requests"), f"{path}.requests", names)
    opaque_config(ctx, cfg, path, rule_prefix="RCS-ALLOC-CFG-REST")


def _device_status(ctx: Ctx, dev: Mapping[str, Any], path: str, allocated: set[str]) -> None:
    driver_name(ctx, "RCS-DEV-IDS", dev.get("driver"), f"{path}.driver")
    pool_name(ctx, "RCS-DEV-IDS", dev.get("pool"), f"{path}.pool")
    required_label(ctx, "RCS-DEV-IDS", dev.get("device"), f"{path}.device")
    _share_id(ctx, "RCS-DEV-IDS", dev.get("shareID"), f"{path}.shareID")
    if _device_id(dev) not in allocated:
        ctx.invalid(
            "RCS-DEV-ALLOCATED", path, Bare(_device_id(dev)), "must be an allocated device in the claim"
        )
    conditions(
        ctx, "RCS-DEV-CONDITIONS", dev.get("conditions"), ctx.limits.status_conditions, f"{path}.conditions"
    )
    data = dev.get("data")
    if data is not None and data != {} and data != "":
        raw_extension(ctx, "RCS-DEV-DATA", data, f"{path}.data", ctx.limits.status_data_length)
    net = dev.get("networkData")
    if isinstance(net, Mapping):
        _network(ctx, net, f"{path}.networkData")


def conditions(ctx: Ctx, rule: str, items: Any, max_items: int, path: str) -> None:
    conds = as_list(items)
    if len(conds) > max_items:
        ctx.too_many(rule, path, len(conds), max_items)
    seen: set[str] = set()
    for i, cond in enumerate(conds):
        c, p = as_map(cond), f"{path}[{i}]"
        ctype = as_str(c.get("type"))
        if ctype in seen:
            ctx.duplicate(rule, f"{p}.type", ctype)
        seen.add(ctype)
        label_name(ctx, rule, ctype, f"{p}.type")
        status = as_str(c.get("status"))
        if status not in ("True", "False", "Unknown"):
            ctx.not_supported(rule, f"{p}.status", status, ["False", "True", "Unknown"])
        gen = c.get("observedGeneration", 0)
        if isinstance(gen, int) and gen < 0:
            ctx.invalid(rule, f"{p}.observedGeneration", gen, "must be greater than or equal to zero")
        if not c.get("lastTransitionTime"):
            ctx.required(rule, f"{p}.lastTransitionTime", "must be set")
        reason = as_str(c.get("reason"))
        if not reason:
            ctx.required(rule, f"{p}.reason", "must be set")
        else:
            if not F.is_condition_reason(reason):
                ctx.invalid(rule, f"{p}.reason", reason, _REASON_MSG)
            if len(reason) > 1024:
                ctx.too_long(rule, f"{p}.reason", 1024)
        if len(as_str(c.get("message"))) > 32768:
            ctx.too_long(rule, f"{p}.message", 32768)


def _network(ctx: Ctx, net: Mapping[str, Any], path: str) -> None:
    if len(as_str(net.get("interfaceName")).encode()) > ctx.limits.net_ifname:
        ctx.too_long("RCS-NET-IFNAME", f"{path}.interfaceName", ctx.limits.net_ifname)
    if len(as_str(net.get("hardwareAddress")).encode()) > ctx.limits.net_hwaddr:
        ctx.too_long("RCS-NET-HWADDR", f"{path}.hardwareAddress", ctx.limits.net_hwaddr)

    def ip(value: Any, p: str) -> None:
        problem = F.interface_address_problem(as_str(value))
        if problem:
            ctx.invalid("RCS-NET-IPS", p, as_str(value), problem)

    ctx.each_unique(
        "RCS-NET-IPS", "RCS-NET-IPS", net.get("ips"), ctx.limits.net_ips, f"{path}.ips", ip, as_str
    )
