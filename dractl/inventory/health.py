"""``dractl health``: per device health, from every signal a cluster carries.

Three sources, combined per device (worst wins: Unhealthy > Unknown > Healthy):

* pod status ``allocatedResourcesStatus`` (KEP-4680): the kubelet's report, from the
  driver, for each device a running container was given;
* driver health taints on the device (and DeviceTaintRules with such a key):
  :data:`HEALTH_TAINTS` says what each key means (NVIDIA's ``gpu.nvidia.com/xid`` with
  NoSchedule is a fatal XID, with None a non-fatal one; ``gpu-lost``; ``unmonitored``);
* ResourceClaim ``status.devices[].conditions`` (KEP-4817): ``Ready``/``Healthy`` False,
  or ``Unhealthy``/``Degraded``/``Failed`` True.

Only devices with at least one signal are listed (a cluster of 40,000 GPUs has 40,000
silent ones); ``unhealthy_only`` keeps those whose health is not Healthy.  The claims
allocated each listed device and the pods using those claims are named.  To teach dractl
another driver's health taints, add a line to :data:`HEALTH_TAINTS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import bounded
from dractl.inventory.core import Inventory, device_refs, pod_health_entries, pod_health_reports
from dractl.inventory.labels import LabelSelector
from dractl.inventory.report import envelope
from dractl.io.world import World
from dractl.matcher.taints import BLOCKING_EFFECTS, EffectiveTaint
from dractl.model import objects as o
from dractl.model.fastinit import fast_init
from dractl.model.features import Features

HEALTHY, UNKNOWN, UNHEALTHY = "Healthy", "Unknown", "Unhealthy"
_RANK = {HEALTHY: 0, UNKNOWN: 1, UNHEALTHY: 2}

# taint key -> (health when the effect blocks scheduling, health otherwise, what it means)
HEALTH_TAINTS: dict[str, tuple[str, str, str]] = {
    "gpu.nvidia.com/xid": (UNHEALTHY, HEALTHY, "XID error"),
    "gpu.nvidia.com/gpu-lost": (UNHEALTHY, UNHEALTHY, "GPU lost"),
    "gpu.nvidia.com/unmonitored": (UNKNOWN, UNKNOWN, "not monitored by NVML"),
}
BAD_WHEN_FALSE = ("Ready", "Healthy")
BAD_WHEN_TRUE = ("Unhealthy", "Degraded", "Failed")


@dataclass(frozen=True, slots=True)
class Signal:
    """One piece of evidence: ``source`` is ``pod NS/NAME``, ``taint`` or ``DeviceTaintRule NAME``,
    or ``claim NS/NAME``; ``detail`` says what it reported."""

    source: str
    health: str
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "health": self.health, "detail": bounded(self.detail)}


_Signal = fast_init(Signal)  # the same objects, without a setattr per field


@dataclass(frozen=True, slots=True)
class DeviceHealth:
    device: str  # driver/pool/device
    node: str | None
    health: str
    signals: tuple[Signal, ...]
    claims: tuple[str, ...]
    pods: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "node": self.node,
            "health": self.health,
            "signals": [s.to_dict() for s in self.signals],
            "claims": list(self.claims),
            "pods": list(self.pods),
        }


@dataclass(frozen=True, slots=True)
class HealthSummary:
    devices: int  # published devices in scope
    reported: int  # devices with a signal
    healthy: int
    unknown: int
    unhealthy: int
    affected_pods: int
    affected_claims: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": self.devices,
            "reported": self.reported,
            "healthy": self.healthy,
            "unknown": self.unknown,
            "unhealthy": self.unhealthy,
            "affectedPods": self.affected_pods,
            "affectedClaims": self.affected_claims,
        }


@dataclass(frozen=True)
class HealthReport:
    report_type: ClassVar[str] = "health"

    items: tuple[DeviceHealth, ...]
    summary: HealthSummary
    context: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 0

    def to_dict(self) -> dict[str, Any]:
        return envelope(
            "HealthReport",
            self.context,
            [i.to_dict() for i in self.items],
            self.summary.to_dict(),
            self.warnings,
        )


@dataclass(frozen=True)
class HealthOptions:
    features: Features
    kube_version: str = "1.37"
    node: str | None = None
    selector: LabelSelector | None = None
    unhealthy_only: bool = False
    context: dict[str, Any] = field(default_factory=dict)


def worst(healths: list[str]) -> str:
    """The worst of the reported healths; a value outside the API's three counts as Unknown."""
    if len(healths) == 1 and healths[0] in _RANK:  # the usual device: one pod's report
        return healths[0]
    known = [h if h in _RANK else UNKNOWN for h in healths]
    return max(known, key=lambda h: _RANK[h]) if known else HEALTHY


def taint_signal(et: EffectiveTaint) -> Signal | None:
    """The health a driver health taint stands for, or None for other taints."""
    meaning = HEALTH_TAINTS.get(et.taint.key)
    if meaning is None:
        return None
    blocking, other, what = meaning
    health = blocking if et.taint.effect in BLOCKING_EFFECTS else other
    source = f"DeviceTaintRule {et.rule}" if et.rule else "slice taint"
    t = et.taint
    value = f" {t.value}" if t.value else ""
    text = f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"
    return Signal(source, health, f"{what}{value}: {text}")


def condition_signals(claim: o.ResourceClaim, device_id: str) -> list[Signal]:
    """KEP-4817 device conditions a claim's status reports for ``device_id``."""
    out = []
    for status in claim.device_statuses:
        sid = f"{status.get('driver', '')}/{status.get('pool', '')}/{status.get('device', '')}"
        if sid != device_id:
            continue
        for cond in status.get("conditions") or []:
            if not isinstance(cond, dict):
                continue
            ctype, cstatus = str(cond.get("type", "")), str(cond.get("status", ""))
            bad = (ctype in BAD_WHEN_FALSE and cstatus == "False") or (
                ctype in BAD_WHEN_TRUE and cstatus == "True"
            )
            reason = cond.get("reason") or cond.get("message") or ""
            detail = f"condition {ctype}={cstatus}" + (f" ({reason})" if reason else "")
            out.append(Signal(f"claim {claim.meta.key}", UNHEALTHY if bad else HEALTHY, detail))
    return out


def device_health(inv: Inventory) -> dict[str, tuple[str, list[Signal]]]:
    """Health of every device that has a signal: device id -> (health, signals)."""
    signals: dict[str, list[Signal]] = {}
    for pod in inv.world.pods:
        for rep in pod_health_reports(pod):
            signals.setdefault(rep.device_id, []).append(
                _Signal(f"pod {rep.pod}", rep.health, f"container {rep.container}, {rep.resource}")
            )
    for dev, sigs in _device_signals(inv).items():
        signals.setdefault(dev, []).extend(sigs)
    return {dev: (worst([s.health for s in sigs]), sigs) for dev, sigs in signals.items()}


def device_health_states(inv: Inventory) -> dict[str, str]:
    """The health :func:`device_health` gives every device that has a signal, without the
    signals (what ``availability`` reads: at 20,000 pods their texts are most of the time)."""
    healths: dict[str, list[str]] = {}
    for pod in inv.world.pods:
        for _, _, device_id, health in pod_health_entries(pod):
            healths.setdefault(device_id, []).append(health)
    for dev, sigs in _device_signals(inv).items():
        healths.setdefault(dev, []).extend(s.health for s in sigs)
    return {dev: worst(hs) for dev, hs in healths.items()}


def _device_signals(inv: Inventory) -> dict[str, list[Signal]]:
    """The signals of the devices themselves (driver health taints) and of claims (device
    conditions), after the pods' in :func:`device_health`."""
    signals: dict[str, list[Signal]] = {}
    for sl in inv.world.slices:
        for d in sl.devices:
            for et in inv.taints_of(d):  # usually none: no id is made
                sig = taint_signal(et)
                if sig is not None:
                    signals.setdefault(f"{sl.driver}/{sl.pool.name}/{d.name}", []).append(sig)
    for claim in inv.world.claims:
        for res in claim.allocation.results if claim.allocation else ():
            found = condition_signals(claim, res.device_id)
            if found:
                signals.setdefault(res.device_id, []).extend(found)
    return signals


def health(world: World, opts: HealthOptions) -> HealthReport:
    """Per device health (see the module docstring).  ``opts.node``/``opts.selector`` limit the
    devices to those of the named/labelled nodes (then network-attached devices, which belong
    to no node, are left out).  Never raises for data problems."""
    inv = Inventory(world, opts.features)
    nodes = set(inv.selected_nodes(opts.node, opts.selector))
    filtered = opts.node is not None or opts.selector is not None
    known = {r.id: r for r in device_refs(world.slices)}
    in_scope = [r for r in known.values() if not filtered or r.node in nodes]
    items = []
    for dev, (state, sigs) in sorted(device_health(inv).items()):
        ref = known.get(dev)
        node = ref.node if ref is not None else _node_of_claims(inv, dev)
        if filtered and node not in nodes:
            continue
        claims = [c for c, _ in inv.claims_of_device(dev)]
        pods = sorted(
            {p.meta.key for c in claims for p in inv.pods_of_claim(c)}
            | {s.source.split(" ", 1)[1] for s in sigs if s.source.startswith("pod ")}
        )
        items.append(
            DeviceHealth(
                dev, node, state, tuple(sigs), tuple(sorted(c.meta.key for c in claims)), tuple(pods)
            )
        )
    bad = [i for i in items if i.health != HEALTHY]
    summary = HealthSummary(
        devices=len(in_scope),
        reported=len(items),
        healthy=len(items) - len(bad),
        unknown=sum(1 for i in items if i.health == UNKNOWN),
        unhealthy=sum(1 for i in items if i.health == UNHEALTHY),
        affected_pods=len({p for i in bad for p in i.pods}),
        affected_claims=len({c for i in bad for c in i.claims}),
    )
    shown = tuple(bad if opts.unhealthy_only else items)
    warnings = tuple([w for w in inv.gate_warnings() if "Taint" in w]) + tuple(
        f"pod reports health of device {i.device}, which no ResourceSlice publishes"
        for i in shown
        if i.device not in known
    )
    shown = tuple(sorted(shown, key=lambda i: (i.node is None, i.node or "", i.device)))
    return HealthReport(shown, summary, dict(opts.context), warnings)


def _node_of_claims(inv: Inventory, device_id: str) -> str | None:
    for claim, _ in inv.claims_of_device(device_id):
        for pod in inv.pods_of_claim(claim):
            if pod.node_name:
                return pod.node_name
    return None
