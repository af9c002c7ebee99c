"""ResourceSlice spec (RS-…, API-RULES.md §3), in validateResourceSliceSpec's order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.rules import capacity as cap
from dractl.validate.rules import slice_parts
from dractl.validate.rules.common import (
    dns_label,
    driver_name,
    pool_name,
    qualified_name,
    required_label,
)
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str, key_path, truncate_key
from dractl.validate.rules.formats import SEMVER_MSG, is_semver
from dractl.validate.rules.nodesel import node_name, node_selector
from dractl.validate.rules.taints import binding_parameters, skip_node_operations, taint

_LIST_ATTRS = ("bools", "ints", "strings", "versions")
_KEY_MAX = 63 + 1 + 32


def check_slice_spec(ctx: Ctx, spec: Mapping[str, Any], path: str = "spec") -> None:
    driver_name(ctx, "RS-DRIVER", spec.get("driver"), f"{path}.driver")
    _pool(ctx, as_map(spec.get("pool")), f"{path}.pool")
    _node_selection(ctx, spec, path)
    devices = spec.get("devices")
    if ctx.limits.devices_xor_counters and spec.get("sharedCounters") is not None and devices is not None:
        ctx.invalid(
            "RS-DEVICES-XOR-COUNTERS", path, "", "only one of `sharedCounters` or `devices` is allowed"
        )
    devs = as_list(devices)
    advanced = any(_advanced(ctx, as_map(d)) for d in devs)
    max_devices = ctx.limits.devices_advanced if advanced else ctx.limits.devices
    per_device = spec.get("perDeviceNodeSelection") is True
    ctx.each_unique(
        "RS-DEVICES-MAX",
        "RS-DEVICES-UNIQUE",
        devices,
        max_devices,
        f"{path}.devices",
        lambda d, p: _device(ctx, as_map(d), p, per_device),
        lambda d: as_str(as_map(d).get("name")),
    )
    ctx.each_unique(
        "RS-COUNTERSETS-MAX",
        "RS-COUNTERSETS-UNIQUE",
        spec.get("sharedCounters"),
        ctx.limits.counter_sets,
        f"{path}.sharedCounters",
        lambda s, p: _counter_set(ctx, as_map(s), p),
        lambda s: as_str(as_map(s).get("name")),
    )
    if spec.get("partitionTypeAttribute") is not None:
        slice_parts.partition_type(ctx, spec, path, format_check=ctx.gate("partitionable_devices_type"))
    skip_node_operations(ctx, spec.get("skipNodeOperations"), f"{path}.skipNodeOperations")


def _pool(ctx: Ctx, pool: Mapping[str, Any], path: str) -> None:
    pool_name(ctx, "RS-POOL-NAME", pool.get("name"), f"{path}.name")
    count = pool.get("resourceSliceCount", 0)
    if isinstance(count, int) and not isinstance(count, bool) and count <= 0:
        ctx.invalid("RS-POOL-COUNT", f"{path}.resourceSliceCount", count, "must be greater than zero")
    gen = pool.get("generation", 0)
    if isinstance(gen, int) and not isinstance(gen, bool) and gen < 0:
        ctx.invalid("RS-POOL-GEN", f"{path}.generation", gen, "must be greater than or equal to zero")


def _node_selection(ctx: Ctx, spec: Mapping[str, Any], path: str) -> None:
    set_fields: list[str] = []
    node = spec.get("nodeName")
    if node is not None:
        if as_str(node):
            set_fields.append("`nodeName`")
            node_name(ctx, "RS-NODENAME-FMT", as_str(node), f"{path}.nodeName")
        else:
            ctx.invalid(
                "RS-NODENAME-NONEMPTY",
                f"{path}.nodeName",
                as_str(node),
                "must be either unset or set to a non-empty string",
            )
    selector = spec.get("nodeSelector")
    if selector is not None:
        set_fields.append("`nodeSelector`")
        terms = node_selector(ctx, selector, f"{path}.nodeSelector")
        if terms != 1:
            ctx.invalid(
                "RS-NODESELECTOR",
                f"{path}.nodeSelector.nodeSelectorTerms",
                as_list(as_map(selector).get("nodeSelectorTerms")) or None,
                "must have exactly one node selector term",
            )
    for fld, rule in (("allNodes", "RS-ALLNODES-TRUE"), ("perDeviceNodeSelection", "RS-PERDEV-TRUE")):
        val = spec.get(fld)
        if val is None:
            continue
        if val is True:
            set_fields.append(f"`{fld}`")
        else:
            ctx.invalid(rule, f"{path}.{fld}", val, "must be either unset or set to true")
    fields = "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`"
    if not set_fields:
        ctx.required("RS-NODESEL-ONE", path, f"exactly one of {fields} is required")
    elif len(set_fields) > 1:
        ctx.invalid(
            "RS-NODESEL-ONE",
            path,
            "{" + ", ".join(set_fields) + "}",
            f"exactly one of {fields} is required, but multiple fields are set",
        )


def _advanced(ctx: Ctx, dev: Mapping[str, Any]) -> bool:
    if as_list(dev.get("taints")) or as_list(dev.get("consumesCounters")):
        return True
    if not ctx.limits.advanced_limit_lists:
        return False
    return any(
        isinstance(a, Mapping) and any(a.get(k) is not None for k in _LIST_ATTRS)
        for a in as_map(dev.get("attributes")).values()
    )


def _device(ctx: Ctx, dev: Mapping[str, Any], path: str, per_device: bool) -> None:
    required_label(ctx, "RS-DEV-NAME", dev.get("name"), f"{path}.name")
    attrs, caps = as_map(dev.get("attributes")), as_map(dev.get("capacity"))
    total = len(attrs) + len(caps)
    if total > ctx.limits.attrs_and_caps:
        ctx.invalid(
            "RS-DEV-ATTRCAP-MAX",
            path,
            total,
            f"the total number of attributes and capacities must not exceed {ctx.limits.attrs_and_caps}",
        )
    values = sum(_value_count(a) for a in attrs.values())
    if ctx.limits.attr_values and values > ctx.limits.attr_values:
        ctx.invalid(
            "RS-DEV-ATTRVALUES-MAX",
            path,
            values,
            f"the total number of attribute values must not exceed {ctx.limits.attr_values}",
        )
    for key, attr in attrs.items():
        qualified_name(ctx, "RS-ATTR-KEY", str(key), f"{path}.attributes")
        _attribute(ctx, as_map(attr), key_path(f"{path}.attributes", truncate_key(str(key), _KEY_MAX)))
    multi = dev.get("allowMultipleAllocations") is True
    # RS-CAP-UNCHANGED-SKIP: on update, unchanged capacity (and taints) are not re-validated.
    old = ctx.old_devices.get(as_str(dev.get("name")))
    if old is None or old.get("capacity") != dev.get("capacity"):
        for key, capacity in caps.items():
            qualified_name(ctx, "RS-CAP-KEY", str(key), f"{path}.capacity")
            cap.device_capacity(
                ctx, as_map(capacity), key_path(f"{path}.capacity", truncate_key(str(key), _KEY_MAX)), multi
            )
    if old is None or old.get("taints") != dev.get("taints"):
        ctx.each(
            "RS-TAINTS-MAX",
            dev.get("taints"),
            ctx.limits.taints,
            f"{path}.taints",
            lambda t, p: taint(ctx, "RS-TAINT", t, p),
        )
    ctx.each_unique(
        "RS-CONSUMES-MAX",
        "RS-CONSUMES-UNIQUE",
        dev.get("consumesCounters"),
        ctx.limits.consumptions_per_device,
        f"{path}.consumesCounters",
        lambda c, p: _consumption(ctx, as_map(c), p),
        lambda c: as_str(as_map(c).get("counterSet")),
    )
    slice_parts.device_node_selection(ctx, dev, path, per_device)
    binding_parameters(ctx, dev, path)
    slice_parts.node_allocatable(
        ctx, as_map(dev.get("nodeAllocatableResources")), caps, f"{path}.nodeAllocatableResources"
    )


def _value_count(attr: Any) -> int:
    a = as_map(attr)
    lists = sum(len(as_list(a.get(k))) for k in _LIST_ATTRS)
    return lists if lists else 1


def _attribute(ctx: Ctx, attr: Mapping[str, Any], path: str) -> None:
    set_fields = [k for k in ("bool", "int", "string", "version", *_LIST_ATTRS) if attr.get(k) is not None]
    if isinstance(attr.get("string"), str):
        _string_value(ctx, "RS-ATTR-STRING", attr["string"], f"{path}.string")
    if isinstance(attr.get("version"), str):
        _version_value(ctx, "RS-ATTR-VERSION", attr["version"], f"{path}.version")
    for fld in _LIST_ATTRS:
        items = attr.get(fld)
        if items is None:
            continue
        if isinstance(items, list) and not items:
            ctx.invalid("RS-ATTR-LIST-NONEMPTY", f"{path}.{fld}", [], "must not be empty if specified")
        for i, item in enumerate(as_list(items)):
            if fld == "strings" and isinstance(item, str):
                _string_value(ctx, "RS-ATTR-LIST-ITEMS", item, f"{path}.strings[{i}]")
            elif fld == "versions" and isinstance(item, str):
                _version_value(ctx, "RS-ATTR-LIST-ITEMS", item, f"{path}.versions[{i}]")
    if not set_fields:
        ctx.invalid("RS-ATTR-ONEOF", path, "", "exactly one value must be specified")
    elif len(set_fields) > 1:
        ctx.invalid("RS-ATTR-ONEOF", path, dict(attr), "exactly one value must be specified")


def _string_value(ctx: Ctx, rule: str, value: str, path: str) -> None:
    if len(value.encode()) > ctx.limits.attr_value:
        ctx.too_long(rule, path, ctx.limits.attr_value)


def _version_value(ctx: Ctx, rule: str, value: str, path: str) -> None:
    if not is_semver(value):
        ctx.invalid(rule, path, value, SEMVER_MSG)
    _string_value(ctx, rule, value, path)


def _counter_map(ctx: Ctx, rule: str, counters: Any, max_size: int, path: str) -> None:
    counters = as_map(counters)
    if not counters:
        ctx.required(rule, path)
        return
    if len(counters) > max_size:
        ctx.too_many(rule, path, len(counters), max_size)
        return
    for key in counters:
        dns_label(ctx, rule, str(key), path)


def _counter_set(ctx: Ctx, cs: Mapping[str, Any], path: str) -> None:
    required_label(ctx, "RS-COUNTERSET-NAME", cs.get("name"), f"{path}.name")
    _counter_map(
        ctx, "RS-COUNTERSET-COUNTERS", cs.get("counters"), ctx.limits.counters_per_set, f"{path}.counters"
    )


def _consumption(ctx: Ctx, c: Mapping[str, Any], path: str) -> None:
    required_label(ctx, "RS-CONSUMES-SET", c.get("counterSet"), f"{path}.counterSet")
    _counter_map(
        ctx,
        "RS-CONSUMES-COUNTERS",
        c.get("counters"),
        ctx.limits.counters_per_consumption,
        f"{path}.counters",
    )
    groups = c.get("compatibilityGroups")
    if groups is not None:
        ctx.each_unique(
            "RS-COMPAT-GROUPS",
            "RS-COMPAT-GROUPS",
            groups,
            ctx.limits.compat_groups,
            f"{path}.compatibilityGroups",
            lambda g, p: dns_label(ctx, "RS-COMPAT-GROUPS", as_str(g), p),
            as_str,
        )
