"""API-server rules per object (semantic validation beyond JSON Schema).

Entry point used by the validation engine: :func:`check_object`.  The order is
the server's: version conversion to the internal (v1) shape → defaulting (§11,
applied where each rule reads a value) → dropping fields of disabled gates (§12,
with a warning) → validation (§§1–9) → the admin-access namespace check
(a warning offline).  Status rules run with ``opts.status``; update rules
(UPD-…) when ``opts.old`` holds the previous versions of the objects (``--old``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.findings import Finding
from dractl.validate.options import ValidateOptions
from dractl.validate.rules.claim import check_claim_spec, request_names
from dractl.validate.rules.common import labels_and_annotations, metadata
from dractl.validate.rules.ctx import Ctx, as_list, as_map
from dractl.validate.rules.deviceclass import check_class_spec, check_taint_rule_spec, check_taint_rule_status
from dractl.validate.rules.gates import drop_disabled
from dractl.validate.rules.internal import DRA_GROUP, to_internal
from dractl.validate.rules.slice import check_slice_spec
from dractl.validate.rules.status import check_claim_status
from dractl.validate.rules.update import check_update_pair

KINDS = frozenset(
    {"ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "DeviceTaintRule"}
)
_TEMPLATE_META_ALLOWED = frozenset({"labels", "annotations"})


def check_object(raw: dict[str, Any], opts: ValidateOptions) -> list[Finding]:
    """Semantic findings for one schema-checked object (fields: rule, message, path, error_type,
    severity; the engine fills in file/document/position/kind/name).  Objects of other kinds or
    groups give []; never raises on odd shapes (wrong types are the schema's findings)."""
    kind, api_version = raw.get("kind"), raw.get("apiVersion")
    if kind not in KINDS or not isinstance(api_version, str) or not api_version.startswith(DRA_GROUP + "/"):
        return []
    ctx = Ctx(opts=opts, kind=str(kind), api_version=api_version)
    obj = to_internal(raw)
    old = opts.old.find(obj) if opts.old is not None else None
    with_status = opts.status and kind == "ResourceClaim"
    obj = drop_disabled(ctx, obj, with_status, old)
    spec = as_map(obj.get("spec"))
    if old is not None and kind in ("ResourceClaim", "ResourceClaimTemplate"):
        # The spec is immutable: on update the server checks only that (and metadata, status).
        if kind == "ResourceClaim":
            metadata(ctx, obj)
            deleting = as_map(obj.get("metadata")).get("deletionTimestamp") is not None
            _status(
                ctx,
                obj,
                lambda st: check_claim_status(
                    ctx,
                    st,
                    request_names(as_map(spec.get("devices"))),
                    old_status=as_map(old.get("status")),
                    deleting=deleting,
                ),
            )
    else:
        metadata(ctx, obj)
        _validate(ctx, obj, spec, old)
    if old is not None:
        check_update_pair(ctx, obj, old)
    return ctx.findings


def _validate(
    ctx: Ctx, obj: Mapping[str, Any], spec: Mapping[str, Any], old: Mapping[str, Any] | None
) -> None:
    kind = ctx.kind
    if kind == "ResourceSlice":
        if old is not None:
            for dev in as_list(as_map(old.get("spec")).get("devices")):
                if isinstance(dev, Mapping) and isinstance(dev.get("name"), str):
                    ctx.old_devices.setdefault(dev["name"], dev)
        check_slice_spec(ctx, spec)
    elif kind == "ResourceClaim":
        check_claim_spec(ctx, spec, "spec")
        _admin_access(ctx, spec, "spec")
        _status(ctx, obj, lambda st: check_claim_status(ctx, st, request_names(as_map(spec.get("devices")))))
    elif kind == "ResourceClaimTemplate":
        _template_meta(ctx, as_map(spec.get("metadata")), "spec.metadata")
        check_claim_spec(ctx, as_map(spec.get("spec")), "spec.spec")
        _admin_access(ctx, as_map(spec.get("spec")), "spec.spec")
    elif kind == "DeviceClass":
        old_spec = as_map(old.get("spec")) if old is not None else None
        # RC-CEL-STORED / UPD-STORED-RELAX: unchanged selectors (config) count as stored.
        ctx.stored_cel = old_spec is not None and old_spec.get("selectors") == spec.get("selectors")
        ctx.stored_config = old_spec is not None and old_spec.get("config") == spec.get("config")
        check_class_spec(ctx, spec)
    elif kind == "DeviceTaintRule":
        check_taint_rule_spec(ctx, spec)
        _status(ctx, obj, lambda st: check_taint_rule_status(ctx, st))


def _status(ctx: Ctx, obj: Mapping[str, Any], check: Any) -> None:
    status = obj.get("status")
    if not isinstance(status, Mapping) or not status:
        return
    if ctx.opts.status:
        check(status)
    else:
        ctx.warn(
            "WARN-STATUS-IGNORED",
            "status",
            "status is discarded when the object is created "
            "(it is written through the status subresource); validate it with --status",
        )


def _admin_access(ctx: Ctx, claim_spec: Mapping[str, Any], path: str) -> None:
    for i, req in enumerate(as_list(as_map(claim_spec.get("devices")).get("requests"))):
        if as_map(as_map(req).get("exactly")).get("adminAccess") is True:
            rule = "RC-ADMIN-NS" if ctx.kind == "ResourceClaim" else "RCT-ADMIN"
            ctx.warn(
                rule,
                f"{path}.devices.requests[{i}].exactly.adminAccess",
                "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on "
                "the containing namespace (checked with --snapshot or a cluster; not offline)",
            )


def _template_meta(ctx: Ctx, meta: Mapping[str, Any], path: str) -> None:
    """RCT-TMPL-META: only labels and annotations may be set."""
    labels_and_annotations(ctx, meta, path)
    for key, value in meta.items():
        if key not in _TEMPLATE_META_ALLOWED and value not in (None, "", {}, [], 0):
            ctx.forbidden("RCT-TMPL-META", f"{path}.{key}", "cannot be set")
