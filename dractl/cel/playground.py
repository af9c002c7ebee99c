"""The selector playground behind ``dractl selector check`` and ``dractl selector eval``.

Returns plain data (dataclasses); the CLI renders it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.cel.activation import DeviceActivationCache, split_name
from dractl.cel.env import MAX_COST, MAX_EXPRESSION_BYTES
from dractl.cel.selector import compile_selector
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import Device


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What the API server says about one selector in a new object."""

    expression: str
    error: str | None
    error_type: str | None  # TooLong, Invalid, Forbidden, InternalError
    max_cost: int | None
    hint: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "valid": self.ok,
            "maxCost": self.max_cost,
            "error": self.error,
            "errorType": self.error_type,
            "hint": self.hint,
        }


def check_expression(expression: str, features: Features) -> CheckResult:
    """Length (bytes), compile in the NewExpressions environment, estimated cost."""
    size = len(expression.encode("utf-8"))
    if size > MAX_EXPRESSION_BYTES:
        return CheckResult(
            expression,
            f"Too long: may not be more than {MAX_EXPRESSION_BYTES} bytes (it has {size})",
            "TooLong",
            None,
        )
    try:
        sel = compile_selector(expression, env="new", features=features)
    except CelCompileError as e:
        kind = "InternalError" if e.error_type == "InternalError" else "Invalid"
        return CheckResult(expression, e.message, kind, None)
    if sel.max_cost > MAX_COST:
        hint = None
        if sel.max_cost >= 10**18 and "!=" in expression:
            hint = (
                "Kubernetes estimates '!=' between quantities, versions or types at ~1.8e18; "
                "'!(a == b)' costs almost nothing"
            )
        return CheckResult(
            expression,
            f"too complex, exceeds cost limit (estimated cost {sel.max_cost} > {MAX_COST})",
            "Forbidden",
            sel.max_cost,
            hint,
        )
    return CheckResult(expression, None, None, sel.max_cost)


@dataclass(frozen=True, slots=True)
class DeviceOutcome:
    device: Device
    matches: bool | None
    error: str | None
    node: str | None = None  # the node the device is on (its slice's), when known

    def to_dict(self) -> dict[str, Any]:
        d = self.device
        return {
            "driver": d.driver,
            "pool": d.pool,
            "device": d.name,
            "node": self.node or d.node_name,
            "matches": self.matches,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class Reference:
    """An attribute/capacity a selector names, and on how many input devices it exists."""

    kind: str  # attributes | capacity
    qualified: str  # domain/name
    present_on: int
    total: int
    other_kind_on: int = 0  # devices publishing the name as the other kind (a capacity named as attribute)

    @property
    def other_kind(self) -> str:
        return "capacity" if self.kind == "attributes" else "attributes"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.qualified,
            "presentOn": self.present_on,
            "devices": self.total,
            "otherKindOn": self.other_kind_on,
        }


@dataclass(slots=True)
class EvalResult:
    expression: str
    compile_error: str | None = None
    max_cost: int | None = None
    outcomes: list[DeviceOutcome] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return sum(1 for o in self.outcomes if o.matches)

    @property
    def errors(self) -> int:
        return sum(1 for o in self.outcomes if o.error is not None)

    @property
    def missing(self) -> list[Reference]:
        """Referenced names no input device publishes (likely typos)."""
        return [r for r in self.references if r.present_on == 0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "compileError": self.compile_error,
            "maxCost": self.max_cost,
            "devices": len(self.outcomes),
            "matched": self.matched,
            "errors": self.errors,
            "results": [o.to_dict() for o in self.outcomes],
            "references": [r.to_dict() for r in self.references],
        }


def _published(device: Device, kind: str) -> set[str]:
    names = device.attributes if kind == "attributes" else device.capacity
    return {"/".join(split_name(n, device.driver)) for n in names}


def evaluate(
    expression: str,
    devices: Sequence[Device],
    features: Features,
    cost_limit: int = MAX_COST,
    activations: DeviceActivationCache | None = None,
    nodes: Mapping[int, str] | None = None,
) -> EvalResult:
    """Evaluate one selector on every device as the scheduler's allocator would.  ``nodes`` maps
    ``id(device)`` to the node its slice is on (for the report; None: the device's own nodeName)."""
    where = nodes or {}
    result = EvalResult(expression)
    try:
        sel = compile_selector(expression, env="stored", features=features)
    except CelCompileError as e:
        result.compile_error = e.message
        return result
    result.max_cost = sel.max_cost
    cache = activations or DeviceActivationCache(max_entries=max(len(devices), 1) + 1)
    for d in devices:
        try:
            result.outcomes.append(
                DeviceOutcome(
                    d, sel.matches(d, cost_limit=cost_limit, activations=cache), None, where.get(id(d))
                )
            )
        except CelRuntimeError as e:
            result.outcomes.append(DeviceOutcome(d, None, e.message, where.get(id(d))))
    published = {kind: [_published(d, kind) for d in devices] for kind in ("attributes", "capacity")}
    for kind, domain, name in sel.referenced:
        qualified = f"{domain}/{name}"
        count = sum(1 for names in published[kind] if qualified in names)
        other = "capacity" if kind == "attributes" else "attributes"
        elsewhere = sum(1 for names in published[other] if qualified in names)
        result.references.append(Reference(kind, qualified, count, len(devices), elsewhere))
    return result
