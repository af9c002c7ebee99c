"""ResourceSlice parts with their own sub-rules: per-device node selection (RS-DEV-NODESEL-…),
node-allocatable mappings (RS-NODEALLOC-…) and the partition type attribute (RS-PARTTYPE)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.rules import capacity as cap
from dractl.validate.rules.common import fqn_problems, fully_qualified_name
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str, key_path
from dractl.validate.rules.formats import is_node_allocatable_name
from dractl.validate.rules.nodesel import node_name, node_selector


def device_node_selection(ctx: Ctx, dev: Mapping[str, Any], path: str, per_device: bool) -> None:
    node, selector, all_nodes = dev.get("nodeName"), dev.get("nodeSelector"), dev.get("allNodes")
    if not per_device:
        if node is not None or selector is not None or all_nodes is not None:
            ctx.invalid(
                "RS-DEV-NODESEL-FORBID",
                path,
                None,
                "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` "
                "is set to true in the ResourceSlice spec",
            )
        return
    set_fields: list[str] = []
    if node is not None:
        if as_str(node):
            set_fields.append("`nodeName`")
            node_name(ctx, "RS-DEV-NODESEL-PERDEV", as_str(node), f"{path}.nodeName")
        else:
            ctx.invalid("RS-DEV-NODESEL-PERDEV", f"{path}.nodeName", "", "must not be empty")
    if selector is not None:
        set_fields.append("`nodeSelector`")
        if node_selector(ctx, selector, f"{path}.nodeSelector") > 1:
            ctx.warn(
                "ADV-DEV-NODESEL-1TERM",
                f"{path}.nodeSelector.nodeSelectorTerms",
                "a device-level nodeSelector should use exactly one term (documented, not enforced)",
            )
    if all_nodes is not None:
        if all_nodes is True:
            set_fields.append("`allNodes`")
        else:
            ctx.invalid(
                "RS-DEV-NODESEL-PERDEV", f"{path}.allNodes", all_nodes, "must be either unset or set to true"
            )
    detail = (
        "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
        "is set to true in the ResourceSlice spec"
    )
    if not set_fields:
        ctx.required("RS-DEV-NODESEL-PERDEV", path, detail)
    elif len(set_fields) > 1:
        ctx.invalid("RS-DEV-NODESEL-PERDEV", path, "{" + ", ".join(set_fields) + "}", detail)


def node_allocatable(ctx: Ctx, mappings: Mapping[str, Any], caps: Mapping[str, Any], path: str) -> None:
    for name, entry in sorted(mappings.items()):
        kpath = key_path(path, str(name))
        if not is_node_allocatable_name(str(name)):
            ctx.invalid("RS-NODEALLOC-KEY", kpath, str(name), "must be a node allocatable resource name")
        entry = as_map(entry)
        if entry.get("mapping") is None and entry.get("overhead") is None:
            ctx.required("RS-NODEALLOC-ONEOF", kpath, "at least one of mapping or overhead must be set")
        if entry.get("mapping") is not None:
            cap.node_alloc_mapping(ctx, as_map(entry["mapping"]), caps, f"{kpath}.mapping")
        if entry.get("overhead") is not None:
            cap.node_alloc_overhead(ctx, as_map(entry["overhead"]), f"{kpath}.overhead")


def partition_type(ctx: Ctx, spec: Mapping[str, Any], path: str, format_check: bool) -> None:
    """RS-PARTTYPE; the name's format is a declarative check, skipped while the gate forbids the field."""
    name = as_str(spec.get("partitionTypeAttribute"))
    ppath = f"{path}.partitionTypeAttribute"
    if format_check:
        fully_qualified_name(ctx, "RS-PARTTYPE", name, ppath)
    devices = [as_map(d) for d in as_list(spec.get("devices"))]
    if not any(as_list(d.get("consumesCounters")) for d in devices):
        ctx.invalid(
            "RS-PARTTYPE",
            ppath,
            name,
            "may only be set on a slice which declares devices that consume counters",
        )
        return
    if fqn_problems(name):
        return
    driver = as_str(spec.get("driver"))
    bare = name[len(driver) + 1 :] if name.startswith(driver + "/") else ""
    for i, dev in enumerate(devices):
        if not as_list(dev.get("consumesCounters")):
            continue
        attrs = as_map(dev.get("attributes"))
        apath = key_path(f"{path}.devices[{i}].attributes", name)
        attr = attrs.get(name, attrs.get(bare) if bare else None)
        if attr is None:
            ctx.required(
                "RS-PARTTYPE",
                apath,
                "device consumes counters and `partitionTypeAttribute` names this attribute, "
                "so it must be set",
            )
        elif as_map(attr).get("string") is None:
            ctx.invalid(
                "RS-PARTTYPE",
                apath,
                attr,
                "must be a string value because `partitionTypeAttribute` names this attribute",
            )
