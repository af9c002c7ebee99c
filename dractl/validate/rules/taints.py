"""Device taints, tolerations, binding conditions and skipNodeOperations (shared by slices and claims)."""

from __future__ import annotations

from typing import Any

from dractl.validate.rules.common import label_name, label_value
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str

SKIP_OPS = ("*", "NodePrepareResources", "NodeUnprepareResources")


def _rule(prefix: str, suffix: str, detailed: str) -> str:
    """``RC-TOL`` → ``RC-TOL-KEY`` etc.; other prefixes (status results) are one rule id."""
    return f"{prefix}-{suffix}" if prefix == detailed else prefix


def effects(ctx: Ctx) -> list[str]:
    return (
        ["NoExecute", "NoSchedule", "None"] if ctx.limits.taint_effect_none else ["NoExecute", "NoSchedule"]
    )


def taint(ctx: Ctx, rule: str, raw: Any, path: str) -> None:
    """RS-TAINT-KEY/VALUE/EFFECT and DTR-TAINT (``rule`` is the prefix: RS-TAINT or DTR-TAINT)."""
    t = as_map(raw)
    label_name(ctx, f"{rule}-KEY" if rule == "RS-TAINT" else rule, as_str(t.get("key")), f"{path}.key")
    value = as_str(t.get("value"))
    if value:
        label_value(ctx, f"{rule}-VALUE" if rule == "RS-TAINT" else rule, value, f"{path}.value")
    effect = as_str(t.get("effect"))
    erule = f"{rule}-EFFECT" if rule == "RS-TAINT" else rule
    if not effect:
        ctx.required(erule, f"{path}.effect")
    elif effect not in effects(ctx):
        ctx.not_supported(erule, f"{path}.effect", effect, effects(ctx))


def toleration(ctx: Ctx, raw: Any, path: str, prefix: str = "RC-TOL") -> None:
    """RC-TOL-*: operator defaults to Equal (DEF-TOL-OP)."""
    t = as_map(raw)
    key = as_str(t.get("key"))
    r = lambda suffix: _rule(prefix, suffix, "RC-TOL")  # noqa: E731
    if key:
        label_name(ctx, r("KEY"), key, f"{path}.key")
    op = t.get("operator") if "operator" in t else "Equal"
    op = as_str(op)
    value = as_str(t.get("value"))
    if op == "Exists":
        if value:
            ctx.invalid(r("VALUE"), f"{path}.value", value, "must be empty for operator `Exists`")
    elif op == "Equal":
        label_value(ctx, r("VALUE"), value, f"{path}.value")
    elif op == "":
        ctx.required(r("OP"), f"{path}.operator")
    else:
        ctx.not_supported(r("OP"), f"{path}.operator", op, ["Equal", "Exists"])
    effect = as_str(t.get("effect"))
    if effect and effect not in effects(ctx):
        ctx.not_supported(r("EFFECT"), f"{path}.effect", effect, effects(ctx))


def binding_parameters(ctx: Ctx, obj: Any, path: str, prefix: str = "RS-BINDING") -> None:
    """RS-BINDING-MAX/FMT/UNIQUE/DISJOINT/PAIR on a device or an allocation result."""
    o = as_map(obj)
    conds = [as_str(c) for c in as_list(o.get("bindingConditions"))]
    fails = [as_str(c) for c in as_list(o.get("bindingFailureConditions"))]
    limit = ctx.limits.binding_conditions
    for fld, items in (("bindingConditions", conds), ("bindingFailureConditions", fails)):
        ctx.each(
            _rule(prefix, "MAX", "RS-BINDING"),
            items,
            limit,
            f"{path}.{fld}",
            lambda c, p: label_name(ctx, _rule(prefix, "FMT", "RS-BINDING"), c, p),
        )
    seen: set[str] = set()
    for i, c in enumerate(conds):
        if c in seen:
            ctx.duplicate(_rule(prefix, "UNIQUE", "RS-BINDING"), f"{path}.bindingConditions[{i}]", c)
        seen.add(c)
    seen_f: set[str] = set()
    for i, c in enumerate(fails):
        if c in seen_f:
            ctx.duplicate(_rule(prefix, "UNIQUE", "RS-BINDING"), f"{path}.bindingFailureConditions[{i}]", c)
        seen_f.add(c)
        if c in seen:
            ctx.invalid(
                _rule(prefix, "DISJOINT", "RS-BINDING"),
                f"{path}.bindingFailureConditions[{i}]",
                c,
                "bindingFailureConditions must not overlap with bindingConditions",
            )
    if not conds and fails:
        ctx.invalid(
            _rule(prefix, "PAIR", "RS-BINDING"),
            f"{path}.bindingConditions",
            None,
            "bindingConditions are required to use bindingFailureConditions",
        )
    if not fails and conds:
        ctx.invalid(
            _rule(prefix, "PAIR", "RS-BINDING"),
            f"{path}.bindingFailureConditions",
            None,
            "bindingFailureConditions are required to use bindingConditions",
        )


def skip_node_operations(ctx: Ctx, raw: Any, path: str, rule: str = "RS-SKIPOPS") -> None:
    ops = as_list(raw)
    seen: set[str] = set()
    for i, op in enumerate(ops):
        text = as_str(op)
        if text not in SKIP_OPS:
            ctx.not_supported(rule, f"{path}[{i}]", text, list(SKIP_OPS))
        elif text in seen:
            ctx.duplicate(rule, f"{path}[{i}]", text)
        seen.add(text)
    if "NodePrepareResources" in seen and not seen & {"NodeUnprepareResources", "*"}:
        ctx.invalid(
            rule,
            path,
            ops,
            "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped",
        )
