"""What every inventory view shares: the cluster's allocation state, as the allocator sees it.

:class:`Inventory` wraps one :class:`dractl.matcher.Allocator` built over a world, so that
"allocated", "tainted", "counters left" and "capacity left" are the allocator's own
answers (its committed state, its taint rules, its pool gathering, its counter and
capacity predicates) — never a second copy of the allocation rules.  It also indexes
devices, claims and pods the views look up, and reads the health reports of pods
(KEP-4680 ``allocatedResourcesStatus``).

Nothing here mutates the world.  Extend it with lookups, never with rules: a rule about
what can be allocated belongs in :mod:`dractl.matcher`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dractl.inventory.labels import LabelSelector
from dractl.io.world import World
from dractl.matcher import AllocatedState, Allocator
from dractl.matcher import free as free_mod
from dractl.matcher import pools as pool_mod
from dractl.matcher.taints import EffectiveTaint, tolerates
from dractl.model import objects as o
from dractl.model.fastinit import fast_init
from dractl.model.features import Features

TERMINAL_PHASES = ("Succeeded", "Failed")


@dataclass(frozen=True, slots=True)
class DeviceRef:
    """One published device and where it lives."""

    device: o.Device
    slice: o.ResourceSlice
    node: str | None  # the node of a node-local device; None when network-attached

    @property
    def id(self) -> str:
        return f"{self.slice.driver}/{self.slice.pool.name}/{self.device.name}"


@dataclass(frozen=True, slots=True)
class PoolGroup:
    """The newest generation of one pool: its slices, older slices, and whether it is
    complete (all ``resourceSliceCount`` slices published)."""

    driver: str
    name: str
    generation: int
    slices: tuple[o.ResourceSlice, ...]
    expected_slices: int
    older_slices: int
    node: str | None  # all slices on one node; None: network-attached or mixed

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"

    @property
    def complete(self) -> bool:
        return len(self.slices) == self.expected_slices


class Inventory:
    """The allocator's view of a world (see the module docstring).  Cheap lookups are cached."""

    def __init__(self, world: World, features: Features) -> None:
        self.world = world
        self.features = features
        self.allocated = AllocatedState.from_claims(world.claims)
        self.allocator = Allocator(
            world.device_classes,
            world.slices,
            features,
            allocated=self.allocated,
            taint_rules=world.taint_rules,
        )
        # DeviceTaintRules without a selector: the eviction controller matches no device for them.
        self.unselective_rules = frozenset(
            r.meta.name for r in world.taint_rules if r.device_selector is None
        )
        self._nodes = {n.meta.name: n for n in world.nodes}
        self._pool_nodes: dict[tuple[str, str], str | None] | None = None
        self._claims_of_device: dict[str, list[tuple[o.ResourceClaim, o.DeviceRequestAllocationResult]]] = {}
        for claim in world.claims:
            for res in claim.allocation.results if claim.allocation else ():
                self._claims_of_device.setdefault(res.device_id, []).append((claim, res))
        self._pods_of_claim: dict[tuple[str, str], list[o.Pod]] | None = None  # made when first asked

    def gate_warnings(self) -> list[str]:
        """What the release's gates make the allocator ignore in this world (said once per view)."""
        out = []
        f = self.features
        if not f.device_taints and (
            self.world.taint_rules or any(d.taints for s in self.world.slices for d in s.devices)
        ):
            out.append("DRADeviceTaints is off in this release: the allocator ignores device taints")
        elif self.world.taint_rules and not f.device_taint_rules:
            out.append("DRADeviceTaintRules is off in this release: DeviceTaintRules taint nothing")
        if not f.partitionable_devices and any(s.shared_counters for s in self.world.slices):
            out.append(
                "DRAPartitionableDevices is off in this release: slices with shared counters are ignored"
            )
        return out

    # ------------------------------------------------------------------ nodes

    def node_names(self) -> list[str]:
        """Every node the world knows: Node objects and the nodes slices name, sorted."""
        names = set(self._nodes)
        for s in self.world.slices:
            if s.node_name:
                names.add(s.node_name)
            names.update(d.node_name for d in s.devices if d.node_name)
        return sorted(names)

    def node(self, name: str) -> o.Node:
        """The Node object, or a bare stand-in (no labels) when only slices name it."""
        return self._nodes.get(name) or o.Node(meta=o.ObjectMeta(name=name))

    def has_node_object(self, name: str) -> bool:
        return name in self._nodes

    def selected_nodes(self, node: str | None, selector: LabelSelector | None) -> list[str]:
        """Nodes named by ``--node`` and matching ``-l`` (all nodes when neither is given)."""
        names = self.node_names() if node is None else [node]
        if selector is not None:
            names = [n for n in names if selector.matches(self.node(n).meta.labels)]
        return names

    # ------------------------------------------------------------------ pools

    def pool_groups(self) -> list[PoolGroup]:
        """Every pool's newest generation, sorted by (driver, pool)."""
        by_pool: dict[tuple[str, str], list[o.ResourceSlice]] = {}
        for s in self.world.slices:
            by_pool.setdefault((s.driver, s.pool.name), []).append(s)
        out = []
        for (driver, name), members in sorted(by_pool.items()):
            newest = max(s.pool.generation for s in members)
            current = tuple(
                sorted((s for s in members if s.pool.generation == newest), key=lambda s: s.meta.name)
            )
            nodes = {s.node_name for s in current}
            node = next(iter(nodes)) if len(nodes) == 1 else None
            out.append(
                PoolGroup(
                    driver,
                    name,
                    newest,
                    current,
                    current[0].pool.resource_slice_count,
                    len(members) - len(current),
                    node or None,
                )
            )
        return out

    def gather(self, group: PoolGroup, node: str | None) -> pool_mod.Pool | None:
        """The allocator's view of the pool from ``node`` (None: no node): complete, invalid,
        the reachable slices and counter sets; None when the node cannot use the pool."""
        node_obj = self.node(node) if node is not None else None
        try:
            found = pool_mod.gather(
                group.slices, node_obj, self.features, self.allocator.all_slices, stable=self.allocator.stable
            )
        except pool_mod.PoolError:
            return None
        return next((p for p in found if p.driver == group.driver and p.name == group.name), None)

    def pool_node(self, driver: str, pool: str) -> str | None:
        """The node of a node-local pool (None for network-attached or unknown pools)."""
        if self._pool_nodes is None:
            self._pool_nodes = {}
            for s in self.world.slices:
                key = (s.driver, s.pool.name)
                if key not in self._pool_nodes or self._pool_nodes[key] != s.node_name:
                    self._pool_nodes[key] = s.node_name if key not in self._pool_nodes else None
        return self._pool_nodes.get((driver, pool))

    # ---------------------------------------------------------------- devices

    def taints_of(self, device: o.Device) -> tuple[EffectiveTaint, ...]:
        """The device's taints (slice, then DeviceTaintRules) as the allocator applies them;
        none when DRADeviceTaints is off."""
        return free_mod.applied_taints(self.allocator, device)

    def is_allocated(self, device_id: str) -> bool:
        a = self.allocated
        if device_id in a.devices:  # the usual answer, without building the share prefix
            return True
        return a.device_allocated(device_id) if a.shares or a.capacity else False

    def multi_allocatable(self, device: o.Device) -> bool:
        return free_mod.multi_allocatable(self.allocator, device)

    @property
    def _state(self) -> Any:
        # The allocated state as the chosen allocator implementation sees it (the stable one
        # sees exclusively allocated devices only).  tests/unit/inventory checks, device by
        # device, that "free" here is exactly what Allocator.allocate can allocate.
        return self.allocator._state

    def counters_left(self, pool: pool_mod.Pool) -> dict[str, dict[str, Fraction]]:
        """Shared counters minus what committed allocations consume (the allocator's numbers)."""
        return free_mod.counters_left(self.allocator, pool)

    def capacity_used(self, device_id: str) -> Mapping[str, Fraction]:
        used: Mapping[str, Fraction] = self._state.committed_capacity.get(device_id, {})
        return used

    def blocked(
        self,
        device: o.Device,
        device_id: str,
        counters_left: Mapping[str, Mapping[str, Fraction]],
        taints: tuple[EffectiveTaint, ...],
    ) -> str | None:
        """Why a new request that tolerates no taint could not get this device right now, in
        the allocator's order of checks (a Reason value, or ``tainted``); None: it is free
        (:func:`dractl.matcher.free.blocked`, the one definition)."""
        return free_mod.blocked(self.allocator, device, device_id, counters_left, taints)

    # ----------------------------------------------------------- claims, pods

    def claims_of_device(
        self, device_id: str
    ) -> list[tuple[o.ResourceClaim, o.DeviceRequestAllocationResult]]:
        return self._claims_of_device.get(device_id, [])

    def pods_of_claim(self, claim: o.ResourceClaim) -> list[o.Pod]:
        """Pods that use the claim: its ``reservedFor`` pods, then pods whose status names it."""
        ns = claim.meta.namespace
        out: list[o.Pod] = []
        for ref in claim.reserved_for:
            if ref.resource == "pods":
                pod = self.world.pod(ns, ref.name)
                if pod is not None and pod not in out:
                    out.append(pod)
        if self._pods_of_claim is None:
            self._pods_of_claim = {}
            for pod in self.world.pods:
                for name in pod_claim_names(pod):
                    self._pods_of_claim.setdefault((pod.meta.namespace, name), []).append(pod)
        for pod in self._pods_of_claim.get((ns, claim.meta.name), []):
            if pod not in out:
                out.append(pod)
        return out


def pod_claim_names(pod: o.Pod) -> list[str]:
    """The ResourceClaim names a pod uses: direct names and generated ones from its status."""
    names = [c.resource_claim_name for c in pod.resource_claims if c.resource_claim_name]
    names.extend(v for v in pod.claim_statuses.values() if v)
    return list(dict.fromkeys(names))


def pod_running(pod: o.Pod) -> bool:
    """Bound to a node and not finished.  Snapshots may leave ``status.phase`` out: then a bound
    pod counts as running."""
    phase = _m(pod.raw.get("status")).get("phase")
    return bool(pod.node_name) and phase not in TERMINAL_PHASES


def pod_phase(pod: o.Pod) -> str:
    phase = _m(pod.raw.get("status")).get("phase")
    if isinstance(phase, str) and phase:
        return phase
    return "Running" if pod.node_name else "Pending"


@dataclass(frozen=True, slots=True)
class HealthReport:
    """One KEP-4680 entry: a pod's container reports ``health`` for a device."""

    pod: str  # namespace/name
    container: str
    resource: str  # e.g. claim:gpus/gpu
    device_id: str  # driver/pool/device
    health: str  # Healthy, Unhealthy, Unknown


_HealthReport = fast_init(HealthReport)  # the same objects, without a setattr per field


def pod_health_reports(pod: o.Pod) -> list[HealthReport]:
    """The ``allocatedResourcesStatus`` entries of every container of a pod that name a DRA
    claim (``claim:…``), in container order.  Malformed entries are skipped."""
    entries = pod_health_entries(pod)
    if not entries:
        return []
    key = pod.meta.key
    return [_HealthReport(key, *entry) for entry in entries]


HealthEntry = tuple[str, str, str, str]  # container, resource, device id, health: a HealthReport's


def pod_health_entries(pod: o.Pod) -> list[HealthEntry]:
    """:func:`pod_health_reports` without the pod in each (what a caller that reads only device
    ids and healths needs: no object per entry)."""
    status = _m(pod.raw.get("status"))
    out: list[HealthEntry] = []
    for field in _STATUS_LISTS:
        for cs in _l(status.get(field)):
            cs = _m(cs)
            entries = cs.get("allocatedResourcesStatus")
            if not entries:  # most containers report none
                continue
            container = str(cs.get("name", ""))
            for entry in _l(entries):
                entry = _m(entry)
                name = entry.get("name")
                if not isinstance(name, str) or not name.startswith("claim:"):
                    continue
                for res in _l(entry.get("resources")):
                    res = _m(res)
                    rid, health = res.get("resourceID"), res.get("health")
                    if isinstance(rid, str) and rid.count("/") >= 2:
                        out.append(
                            (
                                container,
                                name,
                                rid,
                                health if isinstance(health, str) and health else "Unknown",
                            )
                        )
    return out


_STATUS_LISTS = ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")


def result_tolerates(result: o.DeviceRequestAllocationResult, taint: o.DeviceTaint) -> bool:
    """Whether an allocation result's tolerations (copied from its request) tolerate ``taint``."""
    return any(tolerates(t, taint) for t in result.tolerations)


def request_tolerations(claim: o.ResourceClaim) -> list[tuple[str, tuple[o.DeviceToleration, ...]]]:
    """(request or request/subrequest, tolerations) of every request of a claim."""
    out: list[tuple[str, tuple[o.DeviceToleration, ...]]] = []
    for req in claim.spec.requests:
        if req.exactly is not None:
            out.append((req.name, req.exactly.tolerations))
        for sub in req.first_available:
            out.append((f"{req.name}/{sub.name}", sub.tolerations))
    return out


def device_refs(slices: Iterable[o.ResourceSlice]) -> list[DeviceRef]:
    return [DeviceRef(d, s, s.node_name or d.node_name) for s in slices for d in s.devices]


def _m(v: Any) -> Mapping[str, Any]:
    # ``type(v) is dict`` first: decoded JSON is plain dicts, and the ABC check is slow
    return v if type(v) is dict or isinstance(v, Mapping) else _EMPTY


def _l(v: Any) -> list[Any]:
    return v if type(v) is list or isinstance(v, list) else []


_EMPTY: Mapping[str, Any] = {}
