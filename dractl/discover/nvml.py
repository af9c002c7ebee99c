"""NVIDIA GPUs through NVML (``pynvml`` from nvidia-ml-py, imported lazily).

Strictly read-only: only ``nvmlDeviceGet*``/``nvmlSystemGet*`` queries, plus
``nvmlInit``/``nvmlShutdown``.  Nothing here sets MIG mode, clocks or any other
setting, and nothing resets a GPU.  MIG profiles come from NVML
(``nvmlDeviceGetGpuInstanceProfileInfo(V)`` over every profile index, and the
possible placements of each), never from a table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dractl.discover.nvml_calls import (
    DRIVER_NOT_LOADED,
    LIBRARY_NOT_FOUND,
    NO_PERMISSION,
    Calls,
    GpuLost,
    describe,
    error_code,
    text,
)
from dractl.discover.nvml_mig import probe_mig_devices, probe_mig_profiles
from dractl.discover.pci import normalize_bus_id, pcie_root
from dractl.discover.report import Gpu, GpuHealth, Message, NvmlSystem, ProbeStatus, Taint
from dractl.discover.sysfs import SysFS

# NVML_DEVICE_ARCH_* → the names the NVIDIA DRA driver publishes (go-nvlib spelling).
ARCHITECTURES = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
    13: "Rubin",
    0xFFFFFFFF: "Unknown",
}
# NVML_BRAND_* → go-nvlib's strings.
BRANDS = {
    0: "Unknown",
    1: "Quadro",
    2: "Tesla",
    3: "NVS",
    4: "Grid",
    5: "GeForce",
    6: "Titan",
    7: "NvidiaVApps",
    8: "NvidiaVPC",
    9: "NvidiaVCS",
    10: "NvidiaVWS",
    11: "NvidiaCloudGaming",
    12: "QuadroRTX",
    13: "NvidiaRTX",
    14: "Nvidia",
    15: "GeForceRTX",
    16: "TitanRTX",
}
ADDRESSING_MODES = {0: "None", 1: "HMM", 2: "ATS"}
HOPPER = 9
TAINT_GPU_LOST = Taint("gpu.nvidia.com/gpu-lost", "NoSchedule")
TAINT_UNMONITORED = Taint("gpu.nvidia.com/unmonitored", "None")
HEALTH_FUNCTIONS = frozenset(
    {"nvmlDeviceGetRetiredPagesPendingStatus", "nvmlDeviceGetRemappedRows", "nvmlDeviceGetTotalEccErrors"}
)


def import_pynvml() -> tuple[Any | None, str]:
    """The real pynvml module, or (None, why not)."""
    try:
        import pynvml
    except ImportError as exc:  # pragma: no cover - nvidia-ml-py is a dependency
        return None, f"the nvidia-ml-py package is not installed ({exc})"
    return pynvml, ""


def init_nvml(nv: Any) -> ProbeStatus:
    """``nvmlInit``; a ProbeStatus saying why NVML is unavailable, if it is."""
    try:
        nv.nvmlInit()
    except nv.NVMLError as exc:
        code = error_code(exc)
        hint = {
            LIBRARY_NOT_FOUND: "no NVIDIA driver is installed on this machine",
            DRIVER_NOT_LOADED: "check that the nvidia module is built for the running kernel",
            NO_PERMISSION: "run as root or as a member of the group that owns /dev/nvidia*",
        }.get(code)
        return ProbeStatus("nvml", False, describe(code) + (f" ({hint})" if hint else ""))
    except OSError as exc:
        return ProbeStatus("nvml", False, f"cannot load NVML: {exc}")
    return ProbeStatus("nvml", True, "initialised")


def probe_system(calls: Calls) -> NvmlSystem:
    cuda = calls.get("nvmlSystemGetCudaDriverVersion", what="CUDA driver version")
    cuda_text = f"{cuda // 1000}.{(cuda % 1000) // 10}" if isinstance(cuda, int) and cuda > 0 else None
    driver = calls.get("nvmlSystemGetDriverVersion", what="driver version")
    nvml_version = calls.get("nvmlSystemGetNVMLVersion", what="NVML version")
    return NvmlSystem(
        driver_version=text(driver) if driver is not None else None,
        cuda_driver_version=cuda_text,
        nvml_version=text(nvml_version) if nvml_version is not None else None,
    )


def probe_gpus(nv: Any, sys: SysFS, warn: Callable[[Message], None]) -> tuple[NvmlSystem, list[Gpu]]:
    """Every GPU NVML reports (``nv`` already initialised).  Never raises NVML errors."""
    system = probe_system(Calls(nv, lambda m: warn(Message("warning", "nvml", m))))
    count = Calls(nv, lambda m: warn(Message("warning", "nvml", f"device count: {m}")))
    try:
        n = count.get("nvmlDeviceGetCount") or 0
    except GpuLost:
        n = 0
    return system, [_probe_one(nv, sys, i, warn) for i in range(n)]


def _probe_one(nv: Any, sys: SysFS, index: int, warn: Callable[[Message], None]) -> Gpu:
    notes: list[str] = []
    calls = Calls(nv, notes.append)
    partial: dict[str, Any] = {"index": index}
    try:
        gpu = _probe_device(calls, sys, index, partial)
    except GpuLost as lost:
        warn(
            Message(
                "warning",
                "nvml",
                f"GPU {index}: {describe(15)} (during {lost}); published with taint {TAINT_GPU_LOST.key}",
            )
        )
        gpu = _lost_gpu(partial)
    for note in notes:
        warn(Message("warning", "nvml", f"GPU {index} ({gpu.uuid or 'unknown UUID'}): {note}"))
    if calls.denied & HEALTH_FUNCTIONS and not gpu.health.lost:
        warn(
            Message(
                "warning",
                "nvml",
                f"GPU {index}: health cannot be monitored without permission; "
                f"published with taint {TAINT_UNMONITORED.key}",
            )
        )
        gpu = _with_taint(gpu, TAINT_UNMONITORED)
    return gpu


def _probe_device(calls: Calls, sys: SysFS, index: int, partial: dict[str, Any]) -> Gpu:
    h = calls.get("nvmlDeviceGetHandleByIndex", index, what="device handle")
    if h is None:
        raise GpuLost("nvmlDeviceGetHandleByIndex")
    partial["uuid"] = _str(calls.get("nvmlDeviceGetUUID", h, what="UUID"))
    partial["minor"] = calls.get("nvmlDeviceGetMinorNumber", h, what="minor number")
    pci = calls.get("nvmlDeviceGetPciInfo", h, what="PCI info")
    bus_id = normalize_bus_id(text(pci.busId)) if pci is not None else None
    partial["pci_bus_id"] = bus_id
    memory = calls.get("nvmlDeviceGetMemoryInfo", h, what="memory info")
    arch = calls.get("nvmlDeviceGetArchitecture", h, what="architecture")
    brand = calls.get("nvmlDeviceGetBrand", h, what="brand")
    cc = calls.get("nvmlDeviceGetCudaComputeCapability", h, what="compute capability")
    mode = calls.get("nvmlDeviceGetAddressingMode", h, what="addressing mode")
    mig = calls.get("nvmlDeviceGetMigMode", h, what="MIG mode")
    mig_capable = mig is not None
    mig_enabled = bool(mig and int(mig[0]) == 1)
    memory_bytes = int(memory.total) if memory is not None else None
    profiles = probe_mig_profiles(calls, h, memory_bytes) if mig_capable else ()
    active, total = _nvlinks(calls, h)
    cluster, clique = calls.fabric(h)
    return Gpu(
        index=index,
        minor=partial["minor"],
        uuid=partial["uuid"],
        name=_str(calls.get("nvmlDeviceGetName", h, what="product name")),
        brand=BRANDS.get(brand) if brand is not None else None,
        architecture=ARCHITECTURES.get(arch) if arch is not None else None,
        cuda_compute_capability=f"{cc[0]}.{cc[1]}" if cc is not None else None,
        memory_bytes=memory_bytes,
        pci_bus_id=bus_id,
        numa_node=_numa(calls, sys, h, bus_id),
        pcie_root=pcie_root(sys, bus_id) if bus_id else None,
        addressing_mode=ADDRESSING_MODES.get(mode) if mode is not None else None,
        mig_capable=mig_capable,
        mig_enabled=mig_enabled,
        mig_pending=bool(int(mig[1]) == 1) if mig is not None else None,
        mig_profiles=profiles,
        mig_devices=probe_mig_devices(calls, h, profiles) if mig_enabled else (),
        nvlinks_active=active,
        nvlinks_total=total,
        fabric_clique_id=clique,
        fabric_cluster_uuid=cluster,
        health=_health(calls, h),
    )


def _str(value: Any) -> str | None:
    return text(value) if value is not None else None


def _numa(calls: Calls, sys: SysFS, h: Any, bus_id: str | None) -> int | None:
    if bus_id:
        node = sys.read_int(f"bus/pci/devices/{bus_id}/numa_node")
        if node is not None:
            return node if node >= 0 else None
    node = calls.get("nvmlDeviceGetNumaNodeId", h, what="NUMA node")
    return node if isinstance(node, int) and node >= 0 else None


def _nvlinks(calls: Calls, h: Any) -> tuple[int | None, int | None]:
    active = total = 0
    for link in range(int(getattr(calls.nv, "NVML_NVLINK_MAX_LINKS", 18))):
        state = calls.get("nvmlDeviceGetNvLinkState", h, link, what=f"NVLink {link} state")
        if state is None:
            break
        total += 1
        active += int(state) == 1
    return (active, total) if total else (None, None)


def _health(calls: Calls, h: Any) -> GpuHealth:
    retired = calls.get("nvmlDeviceGetRetiredPagesPendingStatus", h, what="retired pages")
    rows = calls.get("nvmlDeviceGetRemappedRows", h, what="remapped rows")
    ecc = calls.get("nvmlDeviceGetTotalEccErrors", h, 1, 0, what="uncorrected ECC errors")
    return GpuHealth(
        retired_pages_pending=bool(retired) if retired is not None else None,
        remapped_rows_pending=bool(rows[2]) if rows is not None else None,
        remapped_rows_failure=bool(rows[3]) if rows is not None else None,
        ecc_uncorrected_volatile=int(ecc) if ecc is not None else None,
    )


def _lost_gpu(partial: dict[str, Any]) -> Gpu:
    return Gpu(
        index=partial["index"],
        minor=partial.get("minor"),
        uuid=partial.get("uuid"),
        name=None,
        brand=None,
        architecture=None,
        cuda_compute_capability=None,
        memory_bytes=None,
        pci_bus_id=partial.get("pci_bus_id"),
        numa_node=None,
        pcie_root=None,
        addressing_mode=None,
        mig_capable=False,
        mig_enabled=False,
        mig_pending=None,
        health=GpuHealth(lost=True),
        taints=(TAINT_GPU_LOST,),
    )


def _with_taint(gpu: Gpu, taint: Taint) -> Gpu:
    return replace(gpu, taints=(*gpu.taints, taint))
