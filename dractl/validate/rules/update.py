"""Update rules (UPD-…): compare an object with its previous version from ``--old FILE``.

The command loads the ``--old`` files once, through the loader and its limits, and passes the
objects in (:func:`old_objects`); no rule reads a file."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dractl.validate.options import OldObjects
from dractl.validate.rules.ctx import Ctx, as_map, as_str
from dractl.validate.rules.internal import to_internal

_IMMUTABLE_META = ("name", "namespace", "uid", "creationTimestamp")


def old_objects(raws: Iterable[Mapping[str, Any]]) -> OldObjects:
    """The ``--old`` objects (the documents the command loaded, with its input limits) by
    (kind, namespace, name), in the internal (v1) shape; a later document of the same object wins."""
    out: dict[tuple[str, str, str], Mapping[str, Any]] = {}
    for raw in raws:
        meta = as_map(raw.get("metadata"))
        key = (as_str(raw.get("kind")), as_str(meta.get("namespace")), as_str(meta.get("name")))
        out[key] = to_internal(raw)
    return OldObjects(out)


def _immutable(ctx: Ctx, rule: str, new: Any, old: Any, path: str) -> None:
    if new != old:
        ctx.invalid(rule, path, new, "field is immutable")


def check_update_pair(ctx: Ctx, new: Mapping[str, Any], old: Mapping[str, Any]) -> None:
    new_meta, old_meta = as_map(new.get("metadata")), as_map(old.get("metadata"))
    for fld in _IMMUTABLE_META:
        if fld in old_meta and fld in new_meta:
            _immutable(ctx, "UPD-META", new_meta.get(fld), old_meta.get(fld), f"metadata.{fld}")
    new_spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    if ctx.kind == "ResourceClaim":
        _immutable(ctx, "UPD-RC-SPEC", dict(new_spec), dict(old_spec), "spec")
        new_alloc = as_map(new.get("status")).get("allocation")
        old_alloc = as_map(old.get("status")).get("allocation")
        if ctx.opts.status and new_alloc is not None and old_alloc is not None:
            _immutable(ctx, "UPD-RCS-ALLOC", new_alloc, old_alloc, "status.allocation")
    elif ctx.kind == "ResourceClaimTemplate":
        _immutable(ctx, "UPD-RCT-SPEC", dict(new_spec), dict(old_spec), "spec")
    elif ctx.kind == "ResourceSlice":
        _immutable(
            ctx,
            "UPD-RS-FIELDS",
            as_map(new_spec.get("pool")).get("name"),
            as_map(old_spec.get("pool")).get("name"),
            "spec.pool.name",
        )
        _immutable(ctx, "UPD-RS-FIELDS", new_spec.get("driver"), old_spec.get("driver"), "spec.driver")
        _immutable(ctx, "UPD-RS-FIELDS", new_spec.get("nodeName"), old_spec.get("nodeName"), "spec.nodeName")
