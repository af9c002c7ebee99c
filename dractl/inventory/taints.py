"""``dractl taints``: device taints, where each comes from, and whom it hits.

One row per (device, taint): the taint from the ResourceSlice (the driver put it there)
or from a DeviceTaintRule (named), its effect and time added; the claims allocated the
device and whether each tolerates the taint (the tolerations of its allocation result);
for NoExecute, the running pods that the eviction controller will evict (pods using an
allocated claim that does not tolerate it, after ``tolerationSeconds`` when set); and the
pending claims whose requests would tolerate it.

DeviceTaintRules are listed too, with the number of devices each selects; a rule without
a device selector taints every device of the cluster and is called out as cluster-wide.
Taints only count when DRADeviceTaints is on (rules: DRADeviceTaintRules too), as in the
allocator; with the gates off the view says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import bounded
from dractl.inventory.core import Inventory, device_refs, pod_running, request_tolerations
from dractl.inventory.labels import LabelSelector
from dractl.inventory.report import envelope
from dractl.io.world import World
from dractl.matcher.taints import EffectiveTaint, tolerates
from dractl.model import objects as o
from dractl.model.features import Features


@dataclass(frozen=True, slots=True)
class TaintRow:
    device: str
    node: str | None
    key: str
    value: str
    effect: str
    source: str  # "slice" or "DeviceTaintRule NAME"
    time_added: str | None
    allocated_to: tuple[str, ...]  # claims holding the device
    tolerated_by: tuple[str, ...]  # of those, the claims whose result tolerates it
    evicts: tuple[str, ...]  # NoExecute: running pods that will be evicted ("ns/pod")
    eviction_delay: int | None  # the shortest tolerationSeconds among tolerating results
    pending_tolerating: tuple[str, ...]  # pending claims with a request that tolerates it

    @property
    def taint(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "node": self.node,
            "key": self.key,
            "value": self.value,
            "effect": self.effect,
            "source": self.source,
            "timeAdded": self.time_added,
            "allocatedTo": list(self.allocated_to),
            "toleratedBy": list(self.tolerated_by),
            "evicts": list(self.evicts),
            "evictionDelaySeconds": self.eviction_delay,
            "pendingClaimsTolerating": list(self.pending_tolerating),
        }


@dataclass(frozen=True, slots=True)
class RuleRow:
    name: str
    selector: str  # "driver=…, pool=…, device=…" or "(none)"
    taint: str
    effect: str
    devices: int
    cluster_wide: bool
    time_added: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "selector": bounded(self.selector),
            "taint": bounded(self.taint),  # "key=value" text; each item's key and value stay exact
            "effect": self.effect,
            "devices": self.devices,
            "clusterWide": self.cluster_wide,
            "timeAdded": self.time_added,
        }


@dataclass(frozen=True)
class TaintsOptions:
    features: Features
    node: str | None = None
    selector: LabelSelector | None = None
    effect: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TaintsReport:
    report_type: ClassVar[str] = "taints"

    items: tuple[TaintRow, ...]
    rules: tuple[RuleRow, ...]
    devices: int
    context: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0

    def to_dict(self) -> dict[str, Any]:
        by_effect: dict[str, int] = {}
        for r in self.items:
            by_effect[r.effect] = by_effect.get(r.effect, 0) + 1
        summary = {
            "taints": len(self.items),
            "taintedDevices": len({r.device for r in self.items}),
            "devices": self.devices,
            "byEffect": dict(sorted(by_effect.items())),
            "podsToEvict": len({p for r in self.items for p in r.evicts}),
            "rules": [r.to_dict() for r in self.rules],
        }
        return envelope(
            "TaintsReport", self.context, [i.to_dict() for i in self.items], summary, self.warnings
        )


def taints(world: World, opts: TaintsOptions) -> TaintsReport:
    """Every device taint in scope, sorted by node, device, and slice-before-rule order."""
    inv = Inventory(world, opts.features)
    nodes = set(inv.selected_nodes(opts.node, opts.selector))
    filtered = opts.node is not None or opts.selector is not None
    pending = [c for c in world.claims if c.allocation is None and not c.meta.deletion_timestamp]
    rows: list[TaintRow] = []
    matched: dict[str, int] = {}
    refs = [r for r in device_refs(world.slices) if not filtered or r.node in nodes]
    for ref in refs:
        for et in inv.taints_of(ref.device):
            if et.rule:
                matched[et.rule] = matched.get(et.rule, 0) + 1
            if opts.effect is not None and et.taint.effect != opts.effect:
                continue
            rows.append(_row(inv, ref.id, ref.node, et, pending))
    rows.sort(key=lambda r: (r.node is None, r.node or "", r.device))
    fixed = opts.features.has_fix(NIL_SELECTOR_FIX)
    ordered = sorted(world.taint_rules, key=lambda r: r.meta.name)
    rules = tuple(_rule(r, matched.get(r.meta.name, 0), fixed) for r in ordered)
    warnings = [w for w in inv.gate_warnings() if "Taint" in w]
    if opts.features.device_taints and opts.features.device_taint_rules:
        warnings.extend(_selector_warning(r, fixed) for r in ordered if _no_device_filter(r))
    return TaintsReport(tuple(rows), rules, len(refs), dict(opts.context), tuple(warnings))


def _row(
    inv: Inventory, device_id: str, node: str | None, et: EffectiveTaint, pending: list[o.ResourceClaim]
) -> TaintRow:
    t = et.taint
    holders: list[str] = []
    tolerating: list[str] = []
    evicts: list[str] = []
    delays: list[int] = []
    for claim, res in inv.claims_of_device(device_id):
        holders.append(claim.meta.key)
        matching = [tol for tol in res.tolerations if tolerates(tol, t)]
        if matching:
            tolerating.append(claim.meta.key)
        if t.effect != "NoExecute" or et.rule in inv.unselective_rules:
            continue  # (a rule without selector never evicts: the eviction controller matches none)
        forever = any(tol.toleration_seconds is None for tol in matching)
        if matching and forever:
            continue
        if matching:
            delays.append(min(tol.toleration_seconds or 0 for tol in matching))
        evicts.extend(p.meta.key for p in inv.pods_of_claim(claim) if pod_running(p))
    pending_ok = [
        c.meta.key
        for c in pending
        if any(any(tolerates(tol, t) for tol in tols) for _, tols in request_tolerations(c))
    ]
    time_added = t.time_added
    if time_added is None and et.rule:
        rule = next((r for r in inv.world.taint_rules if r.meta.name == et.rule), None)
        time_added = rule.meta.creation_timestamp if rule is not None else None
    return TaintRow(
        device_id,
        node,
        t.key,
        t.value,
        t.effect,
        f"DeviceTaintRule {et.rule}" if et.rule else "slice",
        time_added,
        tuple(sorted(set(holders))),
        tuple(sorted(set(tolerating))),
        tuple(sorted(set(evicts))),
        min(delays) if delays else None,
        tuple(sorted(pending_ok)),
    )


NIL_SELECTOR_FIX = "dtr-nil-selector-matches-none"  # kubernetes PR #141648, in v1.37.1


def _no_device_filter(rule: o.DeviceTaintRule) -> bool:
    sel = rule.device_selector
    return sel is None or not any((sel.driver, sel.pool, sel.device, sel.device_class_name, *sel.selectors))


def _selector_warning(rule: o.DeviceTaintRule, fixed: bool) -> str:
    head = f"DeviceTaintRule {rule.meta.name}"
    if rule.device_selector is not None:
        return f"{head} has an empty device selector: it taints every device of the cluster"
    if fixed:
        return (
            f"{head} has no device selector: it matches no device (as documented; the scheduler "
            "does so since Kubernetes v1.37.1, PR #141648 — v1.37.0 and older tainted every device)"
        )
    return (
        f"{head} has no device selector: the scheduler of this release treats it as tainting every "
        "device of the cluster (no NoExecute eviction: the eviction controller matches none); "
        "fixed in Kubernetes v1.37.1 (PR #141648)"
    )


def _rule(rule: o.DeviceTaintRule, devices: int, fixed: bool = False) -> RuleRow:
    sel = rule.device_selector
    parts = []
    if sel is not None:
        for label, value in (
            ("driver", sel.driver),
            ("pool", sel.pool),
            ("device", sel.device),
            ("deviceClassName", sel.device_class_name),
        ):
            if value is not None:
                parts.append(f"{label}={value}")
        parts.extend(f"cel: {e}" for e in sel.selectors)
    t = rule.taint
    text = f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
    return RuleRow(
        rule.meta.name,
        ", ".join(parts) or ("none: matches no device" if sel is None and fixed else "(none)"),
        text,
        t.effect,
        devices,
        not parts and not (sel is None and fixed),
        t.time_added or rule.meta.creation_timestamp,
    )
