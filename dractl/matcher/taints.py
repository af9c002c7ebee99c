"""Device taints and tolerations (DRADeviceTaints, DRADeviceTaintRules).

Only NoSchedule and NoExecute taints block allocation; None (and unknown
effects) never do.  DeviceTaintRules add their taint to every device their
selector names (driver, pool, device; an unset field matches all).  Rules of the
1.33–1.34 API may also name a DeviceClass and CEL selectors: the device must then
match the class's selectors and every rule selector (``cel_match`` evaluates them;
a selector that fails to evaluate does not match).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dractl.model.objects import Device, DeviceClass, DeviceTaint, DeviceTaintRule, DeviceToleration

CelMatch = Callable[[str, Device], bool]

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


def blocking_taint(taints: Sequence[EffectiveTaint],
                   tolerations: Sequence[DeviceToleration]) -> EffectiveTaint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates, else None."""
    for et in taints:
        if et.taint.effect in BLOCKING_EFFECTS and not any(tolerates(t, et.taint) for t in tolerations):
            return et
    return None


def rule_matches(rule: DeviceTaintRule, device: Device, cel_match: CelMatch | None = None,
                 classes: Mapping[str, DeviceClass] | None = None) -> bool:
    sel = rule.device_selector
    if sel is None:
        return True
    if not ((sel.driver is None or sel.driver == device.driver)
            and (sel.pool is None or sel.pool == device.pool)
            and (sel.device is None or sel.device == device.name)):
        return False
    exprs: list[str] = list(sel.selectors)
    if sel.device_class_name is not None:
        cls = (classes or {}).get(sel.device_class_name)
        if cls is None:
            return False
        exprs = [*cls.selectors, *exprs]
    if not exprs:
        return True
    return cel_match is not None and all(cel_match(e, device) for e in exprs)


def effective_taints(device: Device, rules: Sequence[DeviceTaintRule], cel_match: CelMatch | None = None,
                     classes: Mapping[str, DeviceClass] | None = None) -> tuple[EffectiveTaint, ...]:
    """The slice's taints followed by those of matching rules (in rule order)."""
    own = tuple(EffectiveTaint(t) for t in device.taints)
    extra = tuple(EffectiveTaint(r.taint, r.meta.name) for r in rules
                  if rule_matches(r, device, cel_match, classes))
    return own + extra
