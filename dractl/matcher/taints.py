"""Device taints and tolerations (DRADeviceTaints, DRADeviceTaintRules).

Only NoSchedule and NoExecute taints block allocation; None (and unknown
effects) never do.  DeviceTaintRules add their taint to every device their
selector names (driver, pool, device; an unset field matches all).  A rule without a
selector matches every device here, as the scheduler's tracker did until kubernetes PR
#141648 (v1.37.1); the Allocator leaves such rules out for releases that have the fix.  Rules of the
1.33–1.34 API may also name a DeviceClass and CEL selectors: the device must then
match the class's selectors and every rule selector (``cel_match`` evaluates them).

A selector that fails to evaluate on a device (``cel_match`` raises
:class:`RuleSelectorError`) does what Kubernetes' ResourceSlice tracker does: the rule
does not taint that device, and the failure is reported (the tracker emits a Warning
event ``CELRuntimeError`` on the DeviceTaintRule; dractl hands it to ``on_error``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dractl.model.objects import Device, DeviceClass, DeviceTaint, DeviceTaintRule, DeviceToleration

CelMatch = Callable[[str, Device], bool]
OnRuleError = Callable[[DeviceTaintRule, str, str], None]  # (rule, which selector, message)


class RuleSelectorError(Exception):
    """A DeviceTaintRule selector (or its class's) failed on a device."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True, slots=True)
class EffectiveTaint:
    """A taint on a device, and the DeviceTaintRule it came from (None: the slice)."""

    taint: DeviceTaint
    rule: str | None = None

    def describe(self) -> str:
        t = self.taint
        text = f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
        return f"{text} (DeviceTaintRule {self.rule})" if self.rule else text


def tolerates(toleration: DeviceToleration, taint: DeviceTaint) -> bool:
    """resourceclaim.ToleratesTaint."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def blocking_taint(
    taints: Sequence[EffectiveTaint], tolerations: Sequence[DeviceToleration]
) -> EffectiveTaint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates, else None."""
    for et in taints:
        if et.taint.effect in BLOCKING_EFFECTS and not any(tolerates(t, et.taint) for t in tolerations):
            return et
    return None


def rule_matches(
    rule: DeviceTaintRule,
    device: Device,
    cel_match: CelMatch | None = None,
    classes: Mapping[str, DeviceClass] | None = None,
    on_error: OnRuleError | None = None,
) -> bool:
    sel = rule.device_selector
    if sel is None:
        return True
    if not (
        (sel.driver is None or sel.driver == device.driver)
        and (sel.pool is None or sel.pool == device.pool)
        and (sel.device is None or sel.device == device.name)
    ):
        return False
    exprs: list[tuple[str, str]] = [(f"selector #{i}", e) for i, e in enumerate(sel.selectors)]
    if sel.device_class_name is not None:
        cls = (classes or {}).get(sel.device_class_name)
        if cls is None:
            return False
        exprs = [(f"class {cls.meta.name}: selector #{i}", e) for i, e in enumerate(cls.selectors)] + exprs
    if not exprs:
        return True
    if cel_match is None:
        return False
    for which, expr in exprs:
        try:
            if not cel_match(expr, device):
                return False
        except RuleSelectorError as err:
            if on_error is not None:
                on_error(rule, which, err.message)
            return False
    return True


def own_taints(device: Device) -> tuple[EffectiveTaint, ...]:
    """The device's own taints (from its slice): its effective taints when no DeviceTaintRule
    applies."""
    return tuple(EffectiveTaint(t) for t in device.taints)


def effective_taints(
    device: Device,
    rules: Sequence[DeviceTaintRule],
    cel_match: CelMatch | None = None,
    classes: Mapping[str, DeviceClass] | None = None,
    on_error: OnRuleError | None = None,
) -> tuple[EffectiveTaint, ...]:
    """The slice's taints followed by those of matching rules (in rule order)."""
    own = own_taints(device)
    extra = tuple(
        EffectiveTaint(r.taint, r.meta.name)
        for r in rules
        if rule_matches(r, device, cel_match, classes, on_error)
    )
    return own + extra
