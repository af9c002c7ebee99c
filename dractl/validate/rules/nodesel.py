"""Core node-selector validation (CORE-NS-…), as pkg/apis/core/validation words it."""

from __future__ import annotations

from typing import Any

from dractl.validate.rules import formats as F
from dractl.validate.rules.common import label_name
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str

_OPS_VALUES = ("In", "NotIn")


def node_name(ctx: Ctx, rule: str, value: str, path: str) -> None:
    ctx.format_errors(rule, path, value, F.is_dns_subdomain(value))


def node_selector(ctx: Ctx, selector: Any, path: str) -> int:
    """Validate a NodeSelector; returns the number of terms."""
    terms = as_list(as_map(selector).get("nodeSelectorTerms"))
    tpath = f"{path}.nodeSelectorTerms"
    if not terms:
        ctx.required("CORE-NS-TERMS", tpath, "must have at least one node selector term")
        return 0
    for i, term in enumerate(terms):
        term = as_map(term)
        for j, req in enumerate(as_list(term.get("matchExpressions"))):
            _expression(ctx, as_map(req), f"{tpath}[{i}].matchExpressions[{j}]")
        for j, req in enumerate(as_list(term.get("matchFields"))):
            _field(ctx, as_map(req), f"{tpath}[{i}].matchFields[{j}]")
    return len(terms)


def _expression(ctx: Ctx, req: Any, path: str) -> None:
    op, values = as_str(req.get("operator")), [v for v in as_list(req.get("values"))]
    if op in _OPS_VALUES:
        if not values:
            ctx.required(
                "CORE-NS-EXPR-OP", f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"
            )
    elif op in ("Exists", "DoesNotExist"):
        if values:
            ctx.forbidden(
                "CORE-NS-EXPR-OP",
                f"{path}.values",
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            ctx.required(
                "CORE-NS-EXPR-OP",
                f"{path}.values",
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            )
    else:
        ctx.invalid("CORE-NS-EXPR-OP", f"{path}.operator", op, "not a valid selector operator")
    label_name(ctx, "CORE-NS-EXPR-KEY", as_str(req.get("key")), f"{path}.key")
    for k, value in enumerate(values):
        ctx.format_errors("CORE-NS-EXPR-KEY", f"{path}.values[{k}]", value, F.is_label_value(as_str(value)))


def _field(ctx: Ctx, req: Any, path: str) -> None:
    op, values = as_str(req.get("operator")), as_list(req.get("values"))
    if op in _OPS_VALUES:
        if len(values) != 1:
            ctx.required(
                "CORE-NS-FIELDS",
                f"{path}.values",
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            )
    else:
        ctx.invalid("CORE-NS-FIELDS", f"{path}.operator", op, "not a valid selector operator")
    key = as_str(req.get("key"))
    if key != "metadata.name":
        ctx.invalid("CORE-NS-FIELDS", f"{path}.key", key, "not a valid field selector key")
        return
    for k, value in enumerate(values):
        node_name(ctx, "CORE-NS-FIELDS", as_str(value), f"{path}.values[{k}]")
