"""Device capacity: requestPolicy (RS-CAP-…) and node-allocatable mappings (RS-NODEALLOC-…).

Quantities that don't parse are a decode error reported by the schema layer
(FMT-QUANTITY); the checks here skip them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dractl.model.quantity import Quantity, QuantityError
from dractl.validate.rules.ctx import Ctx, as_list, as_map

_INT64_MAX = 2**63 - 1


def qty(value: Any) -> Quantity | None:
    """The quantity ``value`` spells, or None (not a string or number: the schema's finding)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        return Quantity.parse(value)
    except (QuantityError, ValueError, TypeError):
        return None


def device_capacity(ctx: Ctx, capacity: Mapping[str, Any], path: str, multi: bool) -> None:
    policy = capacity.get("requestPolicy")
    if policy is None:
        return
    if not multi:
        ctx.forbidden(
            "RS-CAP-POLICY-NEEDS-MULTI", f"{path}.requestPolicy", "allowMultipleAllocations must be true"
        )
        return
    value = qty(capacity.get("value", "0")) or Quantity.parse("0")
    _policy(ctx, value, as_map(policy), f"{path}.requestPolicy")


def _policy(ctx: Ctx, value: Quantity, policy: Mapping[str, Any], path: str) -> None:
    valid_values = as_list(policy.get("validValues"))
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        ctx.forbidden(
            "RS-CAP-POLICY-ONEOF",
            path,
            'exactly one policy can be specified, cannot specify "validValues" and "validRange" '
            "at the same time",
        )
        return
    default = qty(policy.get("default"))
    if valid_values:
        if policy.get("default") is None:
            ctx.required("RS-CAP-POLICY-DEFAULT", f"{path}.default", "required when validValues is defined")
        elif default is not None:
            _valid_values(ctx, default, value, valid_values, f"{path}.validValues")
    elif valid_range is not None:
        if policy.get("default") is None:
            ctx.required("RS-CAP-POLICY-DEFAULT", f"{path}.default", "required when validRange is defined")
        elif default is not None:
            _range(ctx, default, value, as_map(valid_range), f"{path}.validRange")


def _valid_values(ctx: Ctx, default: Quantity, capacity: Quantity, raw: list[Any], path: str) -> None:
    values = [qty(v) for v in raw]
    if any(v is None for v in values):
        return
    opts = [v for v in values if v is not None]
    for i in range(len(opts) - 1):
        if opts[i].value > opts[i + 1].value:
            ctx.invalid(
                "RS-CAP-VALIDVALUES",
                f"{path}[{i + 1}]",
                str(opts[i + 1]),
                "values must be sorted in ascending order",
            )
    if len(opts) > ctx.limits.valid_values:
        ctx.too_many("RS-CAP-VALIDVALUES", path, len(opts), ctx.limits.valid_values)
        found = False
    else:
        found = False
        seen: set[Any] = set()
        fractional = ctx.gate("fractional_capacity_range")
        for i, opt in enumerate(opts):
            if opt.value > capacity.value:
                ctx.invalid(
                    "RS-CAP-VALIDVALUES",
                    f"{path}[{i}]",
                    str(opt),
                    f"option is larger than capacity value: {capacity}",
                )
            if opt.value == default.value:
                found = True
            key: Any = opt.value if fractional else _go_value(opt)
            if key in seen:
                ctx.duplicate("RS-CAP-VALIDVALUES", f"{path}[{i}]", str(key) if not fractional else str(opt))
            seen.add(key)
    if not found:
        ctx.invalid(
            "RS-CAP-VALIDVALUES",
            path,
            str(default),
            "default value is not valid according to the requestPolicy",
        )


def _go_value(q: Quantity) -> int:
    """Quantity.Value(): rounded up to an integer."""
    v = q.value
    return -((-v.numerator) // v.denominator)


def _fractional(q: Quantity) -> bool:
    return q.value.denominator != 1


def _range(ctx: Ctx, default: Quantity, capacity: Quantity, rng: Mapping[str, Any], path: str) -> None:
    rule = "RS-CAP-RANGE"
    if rng.get("min") is None:
        ctx.required(rule, f"{path}.min", "required when validRange is defined")
        return
    lo, hi, step = qty(rng.get("min")), qty(rng.get("max")), qty(rng.get("step"))
    if lo is None:
        return
    if lo.value > capacity.value:
        ctx.invalid(rule, f"{path}.min", str(lo), f"min is larger than capacity value: {capacity}")
    if default.value < lo.value:
        ctx.invalid(rule, f"{path}.default", str(default), f"default is less than min: {lo}")
    if hi is not None:
        if lo.value > hi.value:
            ctx.invalid(rule, f"{path}.max", str(lo), f"min is larger than max: {hi}")
        if hi.value > capacity.value:
            ctx.invalid(rule, f"{path}.max", str(hi), f"max is larger than capacity value: {capacity}")
        if default.value > hi.value:
            ctx.invalid(rule, f"{path}.default", str(default), f"default is more than max: {hi}")
    named = [("default", default), ("min", lo), ("max", hi), ("step", step)]
    use_milli = ctx.gate("fractional_capacity_range") and any(
        q is not None and _fractional(q) for _, q in named
    )
    if use_milli:
        bad = False
        for name, q in named:
            if q is not None and (q.value * 1000).denominator != 1:
                ctx.invalid(
                    "RS-CAP-RANGE-MILLI",
                    f"{path}.{name}",
                    str(q),
                    "value cannot be represented as a milli value",
                )
                bad = True
        if bad:
            return
    if step is None:
        return
    if step.value <= 0:
        ctx.invalid(rule, f"{path}.step", str(step), "must be greater than zero")
        return
    added = lo.value + step.value
    if added > capacity.value:
        ctx.invalid(
            rule,
            f"{path}.step",
            str(step),
            f"one step {Quantity.parse(_fmt(added))} is larger than capacity value: {capacity}",
        )
    if not use_milli:
        unsafe = False
        for name, q in named:
            if q is None:
                continue
            if q.value < 0:
                ctx.invalid(
                    "RS-CAP-RANGE-INT", f"{path}.{name}", str(q), "must be greater than or equal to 0"
                )
                unsafe = True
            elif q.value > _INT64_MAX:
                ctx.invalid(
                    "RS-CAP-RANGE-INT",
                    f"{path}.{name}",
                    str(q),
                    "must not be larger than 9223372036854775807",
                )
                unsafe = True
        if unsafe:
            return
    conv = _milli if use_milli else _go_value
    for target in (default, hi):
        if target is not None and (conv(target) - conv(lo)) % conv(step) != 0:
            ctx.invalid(
                rule,
                f"{path}.step",
                str(target),
                f"value is not a multiple of a given step ({step}) from ({lo})",
            )


def _milli(q: Quantity) -> int:
    return int(q.value * 1000)


def _fmt(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value)}"


def node_alloc_mapping(ctx: Ctx, mapping: Mapping[str, Any], caps: Mapping[str, Any], path: str) -> None:
    rule = "RS-NODEALLOC-MAPPING"
    key, cmul, dmul = (
        mapping.get("capacityKey"),
        mapping.get("capacityMultiplier"),
        mapping.get("deviceMultiplier"),
    )
    if key is not None:
        if key == "":
            ctx.invalid(rule, f"{path}.capacityKey", "", "capacityKey must not be an empty string")
        elif key not in caps:
            ctx.not_found(rule, f"{path}.capacityKey", key)
        if cmul is None:
            ctx.required(
                rule, f"{path}.capacityMultiplier", "capacityMultiplier is required when capacityKey is set"
            )
        elif (q := qty(cmul)) is not None and q.sign() <= 0:
            ctx.invalid(rule, f"{path}.capacityMultiplier", str(q), "must be positive")
    if dmul is not None and (q := qty(dmul)) is not None and q.sign() <= 0:
        ctx.invalid(rule, f"{path}.deviceMultiplier", str(q), "must be positive")
    if cmul is not None and key is None:
        ctx.required(rule, f"{path}.capacityKey", "capacityKey is required when capacityMultiplier is set")
    union = "`capacityKey`, `deviceMultiplier`"
    if key is not None and dmul is not None:
        ctx.invalid(rule, path, "{" + union + "}", f"must specify exactly one of: {union}")
    elif key is None and dmul is None and cmul is None:
        ctx.invalid(rule, path, "", f"must specify one of: {union}")


def node_alloc_overhead(ctx: Ctx, overhead: Mapping[str, Any], path: str) -> None:
    rule = "RS-NODEALLOC-OVERHEAD"
    per_pod, per_container = overhead.get("perPod"), overhead.get("perContainer")
    if per_pod is None and per_container is None:
        ctx.invalid(rule, path, "", "at least one of perPod or perContainer must be set")
        return
    for name, raw in (("perPod", per_pod), ("perContainer", per_container)):
        q = qty(raw)
        if q is not None and q.sign() < 0:
            ctx.invalid(rule, f"{path}.{name}", str(q), "must be non-negative")
