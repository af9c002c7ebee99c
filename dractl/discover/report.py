"""The discovery inventory and report: plain frozen dataclasses, no I/O.

Probes fill these; the builder turns them into ResourceSlice dicts; the CLI
renders :meth:`DiscoverReport.tables` or :meth:`Inventory.to_dict`.  Optional
fields are ``None`` when the hardware, kernel or driver did not say.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Message:
    """A diagnostic from a probe or the builder (``level``: info | warning)."""

    level: str
    source: str
    text: str


@dataclass(frozen=True, slots=True)
class ProbeStatus:
    """Whether a probe ran; ``detail`` says why not, or what it found."""

    name: str
    available: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    effect: str
    value: str | None = None


@dataclass(frozen=True, slots=True)
class MigPlacement:
    start: int
    size: int


@dataclass(frozen=True, slots=True)
class MigProfile:
    """One GPU-instance profile as NVML reports it (``id`` is NVML's profile id, e.g. 19)."""

    index: int  # the NVML_GPU_INSTANCE_PROFILE_* constant it was queried with
    id: int
    name: str  # e.g. "1g.10gb", "1g.10gb+me"
    slice_count: int
    instance_count: int
    multiprocessors: int
    copy_engines: int
    decoders: int
    encoders: int
    jpeg_engines: int
    ofa_engines: int
    memory_mib: int
    placements: tuple[MigPlacement, ...] = ()


@dataclass(frozen=True, slots=True)
class MigDevice:
    """A MIG device that exists now (static MIG)."""

    uuid: str
    gpu_instance_id: int
    compute_instance_id: int
    profile: MigProfile | None
    placement: MigPlacement | None
    memory_bytes: int | None


@dataclass(frozen=True, slots=True)
class GpuHealth:
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    ecc_uncorrected_volatile: int | None = None
    lost: bool = False

    @property
    def summary(self) -> str:
        if self.lost:
            return "lost"
        problems = [
            name
            for name, bad in (
                ("row-remap-failure", self.remapped_rows_failure),
                ("row-remap-pending", self.remapped_rows_pending),
                ("retired-pages-pending", self.retired_pages_pending),
            )
            if bad
        ]
        if self.ecc_uncorrected_volatile:
            problems.append(f"ecc-uncorrected={self.ecc_uncorrected_volatile}")
        return ",".join(problems) or "ok"


@dataclass(frozen=True, slots=True)
class Gpu:
    index: int
    minor: int | None
    uuid: str | None
    name: str | None
    brand: str | None
    architecture: str | None
    cuda_compute_capability: str | None
    memory_bytes: int | None
    pci_bus_id: str | None
    numa_node: int | None
    pcie_root: str | None
    addressing_mode: str | None
    mig_capable: bool
    mig_enabled: bool
    mig_pending: bool | None
    mig_profiles: tuple[MigProfile, ...] = ()
    mig_devices: tuple[MigDevice, ...] = ()
    nvlinks_active: int | None = None
    nvlinks_total: int | None = None
    fabric_clique_id: int | None = None
    fabric_cluster_uuid: str | None = None
    health: GpuHealth = field(default_factory=GpuHealth)
    taints: tuple[Taint, ...] = ()


@dataclass(frozen=True, slots=True)
class NvmlSystem:
    driver_version: str | None
    cuda_driver_version: str | None  # "12.4" (from NVML's integer 12040)
    nvml_version: str | None = None


@dataclass(frozen=True, slots=True)
class PciDevice:
    address: str
    vendor_id: str | None
    device_id: str | None
    class_id: str | None
    subsystem_vendor_id: str | None
    subsystem_device_id: str | None
    vendor_name: str | None
    device_name: str | None
    driver: str | None
    numa_node: int | None
    iommu_group: int | None
    pcie_root: str | None
    sriov_total_vfs: int | None = None
    sriov_num_vfs: int | None = None
    physfn: str | None = None
    virtfns: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RdmaDevice:
    name: str
    pci_address: str | None
    node_type: str | None = None
    ports: int = 0


@dataclass(frozen=True, slots=True)
class NetInterface:
    name: str
    pci_address: str | None
    mac: str | None
    mtu: int | None
    speed_mbps: int | None
    operstate: str | None
    encapsulation: str | None
    kind: str | None  # "device" for hardware links, else the kernel DEVTYPE when known
    alias: str | None
    virtual: bool
    is_sriov_vf: bool
    sriov_total_vfs: int | None = None
    sriov_num_vfs: int | None = None
    rdma_devices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Cpu:
    id: int
    socket: int | None
    core: int | None
    numa_node: int | None
    l3_cache_id: int | None
    core_type: str
    siblings: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class NumaNode:
    id: int
    cpus: tuple[int, ...]
    memory_bytes: int | None
    distances: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CpuTopology:
    cpus: tuple[Cpu, ...]
    numa_nodes: tuple[NumaNode, ...]
    smt_enabled: bool

    @property
    def sockets(self) -> tuple[int, ...]:
        return tuple(sorted({c.socket for c in self.cpus if c.socket is not None}))


@dataclass
class Inventory:
    """Everything the probes found on one node.  ``None``/empty means "not probed or absent"."""

    node: str
    nvml: NvmlSystem | None = None
    gpus: list[Gpu] = field(default_factory=list)
    pci: list[PciDevice] = field(default_factory=list)
    nics: list[NetInterface] = field(default_factory=list)
    rdma: list[RdmaDevice] = field(default_factory=list)
    cpu: CpuTopology | None = None
    probes: list[ProbeStatus] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)

    def pci_by_address(self) -> dict[str, PciDevice]:
        return {d.address: d for d in self.pci}

    def to_dict(self) -> dict[str, Any]:
        """The inventory as a JSON-ready dict with camelCase keys (stable order)."""
        return {
            "apiVersion": "dractl/v1alpha1",
            "kind": "DiscoveryInventory",
            "node": self.node,
            "probes": [_plain(p) for p in self.probes],
            "nvml": _plain(self.nvml) if self.nvml else None,
            "gpus": [_plain(g) for g in self.gpus],
            "pci": [_plain(p) for p in self.pci],
            "nics": [_plain(n) for n in self.nics],
            "rdma": [_plain(r) for r in self.rdma],
            "cpu": _plain(self.cpu) if self.cpu else None,
            "messages": [_plain(m) for m in self.messages],
        }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {_camel(f.name): _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        if isinstance(obj, GpuHealth):
            out["summary"] = obj.summary
        if isinstance(obj, CpuTopology):
            out["sockets"] = list(obj.sockets)
        return out
    if isinstance(obj, list | tuple):
        return [_plain(x) for x in obj]
    return obj
