"""Checks shared by every kind: names, drivers, pools, qualified names, metadata (FMT-…, META-…)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dractl.validate.rules import formats as F
from dractl.validate.rules.ctx import Ctx, as_map, as_str

CLUSTER_SCOPED = frozenset({"ResourceSlice", "DeviceClass", "DeviceTaintRule", "ResourcePoolStatusRequest"})
ANNOTATIONS_MAX = 262144


def dns_label(ctx: Ctx, rule: str, value: str, path: str) -> None:
    ctx.format_errors(rule, path, value, F.is_dns_label(value))


def dns_subdomain(ctx: Ctx, rule: str, value: str, path: str) -> None:
    ctx.format_errors(rule, path, value, F.is_dns_subdomain(value))


def required_label(ctx: Ctx, rule: str, value: Any, path: str) -> None:
    """A required DNS label (device, request, counter names)."""
    text = as_str(value)
    if not text:
        ctx.required(rule, path)
    else:
        dns_label(ctx, rule, text, path)


def driver_name(ctx: Ctx, rule: str, value: Any, path: str) -> None:
    """FMT-DRIVER: required, ≤63, a DNS subdomain after lower-casing (upper case is accepted)."""
    name = as_str(value)
    if not name:
        ctx.required(rule, path)
        return
    if len(name) > ctx.limits.driver_name:
        ctx.too_long(rule, path, ctx.limits.driver_name)
    ctx.format_errors(rule, path, name, F.is_dns_subdomain(name.lower()))
    if name != name.lower():
        ctx.warn(
            "ADV-DRIVER-LOWERCASE",
            path,
            f"driver name {name!r} contains upper-case letters; it is accepted but should be lower case",
        )


def pool_name(ctx: Ctx, rule: str, value: Any, path: str) -> None:
    """FMT-POOL: required, ≤253, every '/'-separated segment a DNS subdomain."""
    name = as_str(value)
    if not name:
        ctx.required(rule, path)
        return
    if len(name) > ctx.limits.pool_name:
        ctx.too_long(rule, path, ctx.limits.pool_name)
    for part in name.split("/"):
        ctx.format_errors(rule, path, part, F.is_dns_subdomain(part))


def c_identifier(ctx: Ctx, rule: str, ident: str, path: str) -> None:
    if len(ident) > ctx.limits.identifier:
        ctx.too_long(rule, path, ctx.limits.identifier)
    ctx.format_errors(rule, path, ident, F.is_c_identifier(ident))


def qualified_name(ctx: Ctx, rule: str, name: str, path: str) -> None:
    """FMT-QUALIFIED: ``id`` or ``domain/id``; errors are reported on the map's path."""
    parts = name.split("/")
    if len(parts) == 1:
        c_identifier(ctx, rule, parts[0], path)
    elif len(parts) == 2:
        if not parts[0]:
            ctx.invalid(rule, path, "", "the domain must not be empty")
        else:
            driver_name(ctx, rule, parts[0], path)
        if not parts[1]:
            ctx.invalid(rule, path, "", "the name must not be empty")
        else:
            c_identifier(ctx, rule, parts[1], path)
    else:
        ctx.invalid(rule, path, name, "must not contain more than one slash")


def fully_qualified_name(ctx: Ctx, rule: str, name: str, path: str) -> None:
    """FMT-FQN: a qualified name that has a domain."""
    qualified_name(ctx, rule, name, path)
    if "/" not in name:
        ctx.invalid(
            rule, path, name, "a fully qualified name must be a domain and a name separated by a slash"
        )


def fqn_problems(name: str) -> bool:
    """True when ``name`` is not a valid fully qualified name (used to skip follow-up checks)."""
    probe = Ctx(opts=_PROBE_OPTS)
    fully_qualified_name(probe, "", name, "")
    return any(f.error_type for f in probe.findings)


def label_name(ctx: Ctx, rule: str, value: str, path: str) -> None:
    ctx.format_errors(rule, path, value, F.is_label_key(value))


def label_value(ctx: Ctx, rule: str, value: str, path: str) -> None:
    ctx.format_errors(rule, path, value, F.is_label_value(value))


def raw_extension(ctx: Ctx, rule: str, value: Any, path: str, max_len: int) -> None:
    """FMT-RAWJSON: required, ≤max_len bytes of compact JSON, must be a JSON object."""
    if value is None:
        ctx.required(rule, path)
        return
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if len(raw.encode()) > max_len and not ctx.stored_config:
        ctx.too_long(rule, path, max_len)
    elif not isinstance(value, Mapping):
        ctx.invalid(rule, path, "<value omitted>", "must be a valid JSON object")


def opaque_config(ctx: Ctx, cfg: Any, path: str, rule_prefix: str = "RC-CFG") -> None:
    """RC-CFG-OPAQUE/DRIVER/PARAMS (also used by DeviceClass and allocation results)."""
    opaque = cfg.get("opaque") if isinstance(cfg, Mapping) else None
    if not isinstance(opaque, Mapping):
        ctx.required((f"{rule_prefix}-OPAQUE" if rule_prefix == "RC-CFG" else rule_prefix), f"{path}.opaque")
        return
    driver_name(
        ctx,
        (f"{rule_prefix}-DRIVER" if rule_prefix == "RC-CFG" else rule_prefix),
        opaque.get("driver"),
        f"{path}.opaque.driver",
    )
    raw_extension(
        ctx,
        (f"{rule_prefix}-PARAMS" if rule_prefix == "RC-CFG" else rule_prefix),
        opaque.get("parameters"),
        f"{path}.opaque.parameters",
        ctx.limits.opaque_length,
    )


def metadata(ctx: Ctx, raw: Mapping[str, Any], path: str = "metadata") -> None:
    """META-*: name/generateName, namespace scope, labels, annotations, generation."""
    meta = as_map(raw.get("metadata"))
    name, gen_name = as_str(meta.get("name")), as_str(meta.get("generateName"))
    if gen_name:
        ctx.format_errors("META-GENNAME", f"{path}.generateName", gen_name, F.is_prefix_subdomain(gen_name))
    if not name and not gen_name:
        ctx.required("META-NAME-REQ", f"{path}.name", "name or generateName is required")
    elif name:
        ctx.format_errors("META-NAME-FMT", f"{path}.name", name, F.is_dns_subdomain(name))
    namespace = as_str(meta.get("namespace"))
    if ctx.kind in CLUSTER_SCOPED:
        if namespace:
            ctx.warn(
                "META-NS-FORBID",
                f"{path}.namespace",
                f"{ctx.kind} is cluster-scoped: the namespace {namespace!r} is ignored on create",
            )
    elif namespace:
        ctx.format_errors("META-NS-REQ", f"{path}.namespace", namespace, F.is_dns_label(namespace))
    generation = meta.get("generation")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        ctx.invalid("META-GENERATION", f"{path}.generation", generation, "must be greater than or equal to 0")
    labels_and_annotations(ctx, meta, path)


def labels_and_annotations(ctx: Ctx, meta: Mapping[str, Any], path: str) -> None:
    for key, val in sorted(as_map(meta.get("labels")).items()):
        label_name(ctx, "META-LABELS", str(key), f"{path}.labels")
        label_value(ctx, "META-LABELS", as_str(val), f"{path}.labels")
    annotations = as_map(meta.get("annotations"))
    total = 0
    for key, val in sorted(annotations.items()):
        ctx.format_errors("META-ANNOT", f"{path}.annotations", str(key), F.is_label_key(str(key).lower()))
        total += len(str(key)) + len(as_str(val))
    if total > ANNOTATIONS_MAX:
        ctx.too_long("META-ANNOT", f"{path}.annotations", ANNOTATIONS_MAX)


def _probe_opts() -> Any:
    from dractl.validate.options import ValidateOptions

    return ValidateOptions()


_PROBE_OPTS = _probe_opts()
