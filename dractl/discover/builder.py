"""Turn an :class:`Inventory` into the ResourceSlices real drivers would publish.

Drivers and their conventions: ``gpu.nvidia.com`` (see :mod:`build_gpu`),
``dra.net`` (see :mod:`build_net`) and ``dra.cpu`` (see :mod:`build_cpu`).  One
pool per driver, named after the node unless ``pool`` is given.  Returns plain
``resource.k8s.io/v1`` dicts; nothing is printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dractl.discover import build_gpu
from dractl.discover.build_cpu import cpu_devices
from dractl.discover.build_net import nic_devices
from dractl.discover.layout import layout
from dractl.discover.report import Inventory, Message
from dractl.model.features import Features

DEFAULT_DRIVERS = {"gpu": "gpu.nvidia.com", "nic": "dra.net", "cpu": "dra.cpu"}
SLICE_KINDS = tuple(DEFAULT_DRIVERS)


@dataclass(frozen=True)
class BuildOptions:
    """How to publish.  ``kinds`` limits the drivers; ``features`` defaults to the version's gates."""

    node: str
    pool: str | None = None
    kube_version: str = "1.37"
    features: Features | None = None
    mig_mode: str = "static"  # static | partitionable
    cpu_mode: str = "grouped"  # grouped | individual
    drivers: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_DRIVERS))
    kinds: frozenset[str] = frozenset(SLICE_KINDS)
    generation: int = 1
    legacy_gpu_attributes: bool = False


@dataclass
class PoolSummary:
    driver: str
    pool: str
    devices: int
    slices: int
    counter_sets: int


@dataclass
class BuildResult:
    slices: list[dict[str, Any]] = field(default_factory=list)
    pools: list[PoolSummary] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)

    def to_list(self) -> dict[str, Any]:
        """A ``kind: List`` of the slices (what ``kubectl apply -f -`` accepts as one JSON document)."""
        return {"apiVersion": "v1", "kind": "List", "items": self.slices}


def gpu_pool(
    inv: Inventory, opts: BuildOptions, features: Features, warn: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    devices: list[dict[str, Any]] = []
    sets: list[dict[str, Any]] = []
    for gpu in sorted(inv.gpus, key=lambda g: (g.minor if g.minor is not None else g.index, g.index)):
        attrs = build_gpu.common_attributes(
            gpu, inv.nvml, warn, opts.legacy_gpu_attributes, list_numa=features.list_type_attributes
        )
        if opts.mig_mode == "partitionable" and gpu.mig_capable:
            devs, cset = build_gpu.partitionable(gpu, attrs, warn)
            devices += devs
            sets += [cset] if cset else []
        else:
            devices += build_gpu.static_devices(gpu, attrs, warn)
    return devices, sets


def build(inv: Inventory, opts: BuildOptions) -> BuildResult:
    """The slices for every selected driver that found devices."""
    result = BuildResult()
    features = opts.features or Features.for_version(opts.kube_version)

    def warner(source: str) -> Any:
        return lambda text: result.messages.append(Message("warning", source, text))

    pools: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]] = []
    if "gpu" in opts.kinds and inv.gpus:
        devices, sets = gpu_pool(inv, opts, features, warner("gpu"))
        pools.append(("gpu", devices, sets))
    if "nic" in opts.kinds:
        pools.append(("nic", nic_devices(inv, warner("nic")), []))
    if "cpu" in opts.kinds and inv.cpu is not None:
        pools.append(("cpu", cpu_devices(inv.cpu, opts.cpu_mode), []))
    for kind, devices, sets in pools:
        if not devices and not sets:
            continue
        driver = opts.drivers.get(kind, DEFAULT_DRIVERS[kind])
        pool = opts.pool or opts.node
        slices = layout(driver, pool, opts.node, devices, sets, opts.kube_version, opts.generation)
        result.slices += slices
        result.pools.append(PoolSummary(driver, pool, len(devices), len(slices), len(sets)))
        _gate_warnings(driver, devices, sets, features, opts.kube_version, warner(kind))
    return result


def _gate_warnings(
    driver: str,
    devices: list[dict[str, Any]],
    sets: list[dict[str, Any]],
    features: Features,
    version: str,
    warn: Any,
) -> None:
    """Say when a field we publish would be dropped by an API server with default gates."""
    used = {
        "partitionable_devices": ("DRAPartitionableDevices", "shared counters", bool(sets)),
        "device_taints": ("DRADeviceTaints", "device taints", any(d.get("taints") for d in devices)),
        "consumable_capacity": (
            "DRAConsumableCapacity",
            "allowMultipleAllocations",
            any(d.get("allowMultipleAllocations") for d in devices),
        ),
    }
    for attr, (gate, what, present) in used.items():
        if present and not getattr(features, attr):
            warn(
                f"{driver}: {what} need the {gate} feature gate, which is off in Kubernetes {version} "
                "by default; the API server would drop them"
            )
