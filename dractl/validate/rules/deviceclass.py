"""DeviceClass (DC-…) and DeviceTaintRule (DTR-…) specs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.rules.claim import selectors
from dractl.validate.rules.common import dns_subdomain, driver_name, opaque_config, pool_name, required_label
from dractl.validate.rules.ctx import Ctx, as_map, as_str
from dractl.validate.rules.formats import is_extended_resource_name
from dractl.validate.rules.status import conditions
from dractl.validate.rules.taints import taint


def check_class_spec(ctx: Ctx, spec: Mapping[str, Any], path: str = "spec") -> None:
    selectors(ctx, spec.get("selectors"), f"{path}.selectors", "DC-SEL")
    ctx.each(
        "DC-CFG",
        spec.get("config"),
        ctx.limits.config,
        f"{path}.config",
        lambda c, p: opaque_config(ctx, c, p, rule_prefix="DC-CFG"),
    )
    name = spec.get("extendedResourceName")
    if name is not None and not is_extended_resource_name(as_str(name)):
        ctx.invalid(
            "DC-EXTRES",
            f"{path}.extendedResourceName",
            as_str(name),
            "must be a valid extended resource name",
        )


def check_taint_rule_spec(ctx: Ctx, spec: Mapping[str, Any], path: str = "spec") -> None:
    sel = spec.get("deviceSelector")
    if isinstance(sel, Mapping):
        spath = f"{path}.deviceSelector"
        if sel.get("driver") is not None:
            driver_name(ctx, "DTR-SEL-FIELDS", sel.get("driver"), f"{spath}.driver")
        if sel.get("pool") is not None:
            pool_name(ctx, "DTR-SEL-FIELDS", sel.get("pool"), f"{spath}.pool")
        if sel.get("device") is not None:
            required_label(ctx, "DTR-SEL-FIELDS", sel.get("device"), f"{spath}.device")
        if (
            ctx.version[1] <= 34
        ):  # v1alpha3 in 1.33–1.34: class name and CEL selectors (DTR-SEL-REMOVED later)
            if sel.get("deviceClassName") is not None:
                dns_subdomain(
                    ctx, "DTR-SEL-FIELDS", as_str(sel.get("deviceClassName")), f"{spath}.deviceClassName"
                )
            selectors(ctx, sel.get("selectors"), f"{spath}.selectors", "DC-SEL")
    taint(ctx, "DTR-TAINT", as_map(spec.get("taint")), f"{path}.taint")


def check_taint_rule_status(ctx: Ctx, status: Mapping[str, Any], path: str = "status") -> None:
    conditions(ctx, "DTR-STATUS", status.get("conditions"), ctx.limits.rule_conditions, f"{path}.conditions")
