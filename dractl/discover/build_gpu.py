"""``gpu.nvidia.com`` devices as the NVIDIA DRA driver publishes them.

Static mode: one ``type: gpu`` device per GPU without MIG, one ``type: mig``
device per existing MIG device.  Partitionable mode (DynamicMIG): per
MIG-capable GPU one counter set ``gpu-<minor>-counter-set`` (one counter per
capacity dimension plus ``memory-slice-<i>``), the full GPU consuming all of
it, and one device per MIG profile placement consuming its share.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dractl.discover.attrs import binary, i, s, v
from dractl.discover.report import Gpu, MigPlacement, MigProfile, NvmlSystem
from dractl.discover.versions import normalize

_CAPS = ("multiprocessors", "copyEngines", "decoders", "encoders", "jpegEngines", "ofaEngines")


def gpu_name(gpu: Gpu) -> str:
    return f"gpu-{gpu.minor if gpu.minor is not None else gpu.index}"


def dns_label(text: str) -> str:
    """Lower-case, every character outside ``[a-z0-9-]`` → ``-``, trimmed (device-name safe)."""
    return re.sub(r"[^a-z0-9-]", "-", text.lower()).strip("-")


def counter_name(capacity: str) -> str:
    """``copyEngines`` → ``copy-engines`` (counters are DNS labels)."""
    return dns_label(re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", capacity))


def common_attributes(
    gpu: Gpu, system: NvmlSystem | None, warn: Callable[[str], None], legacy: bool, list_numa: bool = False
) -> dict[str, Any]:
    """Attributes a GPU and its MIG devices share.  ``list_numa``: publish numaNode as a
    one-element ``ints`` list, as the NVIDIA driver does when DRAListTypeAttributes is on."""
    attrs: dict[str, Any] = {}
    for key, value in (
        ("productName", gpu.name),
        ("brand", gpu.brand),
        ("architecture", gpu.architecture),
        ("addressingMode", gpu.addressing_mode),
    ):
        if value is not None:
            attrs[key] = s(value)
    versions = (
        ("cudaComputeCapability", gpu.cuda_compute_capability),
        ("driverVersion", system.driver_version if system else None),
        ("cudaDriverVersion", system.cuda_driver_version if system else None),
    )
    for key, raw in versions:
        if raw is None:
            continue
        norm = normalize(raw)
        if norm is None:
            warn(f"{gpu_name(gpu)}: {key} {raw!r} cannot be made a SemVer 2.0 version; not published")
            continue
        attrs[key] = v(norm)
    if gpu.pci_bus_id:
        attrs["resource.kubernetes.io/pciBusID"] = s(gpu.pci_bus_id)
    if gpu.pcie_root:
        attrs["resource.kubernetes.io/pcieRoot"] = s(gpu.pcie_root)
    if gpu.numa_node is not None:
        numa = {"ints": [gpu.numa_node]} if list_numa else i(gpu.numa_node)
        attrs["resource.kubernetes.io/numaNode"] = numa
    if legacy:
        attrs["index"] = i(gpu.index)
        if gpu.minor is not None:
            attrs["minor"] = i(gpu.minor)
    return attrs


def profile_amounts(p: MigProfile) -> dict[str, int]:
    values = (p.multiprocessors, p.copy_engines, p.decoders, p.encoders, p.jpeg_engines, p.ofa_engines)
    amounts = dict(zip(_CAPS, values, strict=True))
    amounts["memory"] = p.memory_mib * 1024 * 1024  # NVML's "MB" is MiB (nvml.h)
    return amounts


def profile_capacity(p: MigProfile) -> dict[str, Any]:
    return {k: binary(n) for k, n in profile_amounts(p).items()}


def _taints(gpu: Gpu) -> list[dict[str, Any]]:
    return [{"key": t.key, "effect": t.effect, **({"value": t.value} if t.value else {})} for t in gpu.taints]


def full_gpu(gpu: Gpu, attrs: dict[str, Any], capacity: dict[str, Any] | None = None) -> dict[str, Any]:
    dev: dict[str, Any] = {"name": gpu_name(gpu), "attributes": {"type": s("gpu"), **attrs}}
    if gpu.uuid:
        dev["attributes"]["uuid"] = s(gpu.uuid)
    if capacity is None and gpu.memory_bytes is not None:
        capacity = {"memory": binary(gpu.memory_bytes)}
    if capacity:
        dev["capacity"] = capacity
    if gpu.taints:
        dev["taints"] = _taints(gpu)
    return dev


def mig_attributes(gpu: Gpu, attrs: dict[str, Any], profile: str) -> dict[str, Any]:
    out = {"type": s("mig"), **attrs, "profile": s(profile)}
    if gpu.uuid:
        out["parentUUID"] = s(gpu.uuid)
    return out


def mig_name(gpu: Gpu, p: MigProfile, placement: MigPlacement) -> str:
    return f"{gpu_name(gpu)}-mig-{dns_label(p.name.replace('.', ''))}-{p.id}-{placement.start}"


def static_devices(gpu: Gpu, attrs: dict[str, Any], warn: Callable[[str], None]) -> list[dict[str, Any]]:
    """Static MIG: the GPU itself when MIG is off, else its existing MIG devices."""
    if not gpu.mig_enabled:
        return [full_gpu(gpu, attrs)]
    if not gpu.mig_devices:
        warn(f"{gpu_name(gpu)}: MIG mode is enabled but no MIG devices exist; nothing to publish")
    out = []
    for m in gpu.mig_devices:
        if m.profile is None or m.placement is None:
            warn(f"{gpu_name(gpu)}: MIG device {m.uuid} has an unknown profile or placement; skipped")
            continue
        dev: dict[str, Any] = {
            "name": mig_name(gpu, m.profile, m.placement),
            "attributes": {**mig_attributes(gpu, attrs, m.profile.name), "uuid": s(m.uuid)},
            "capacity": profile_capacity(m.profile),
        }
        for k in range(m.placement.start, m.placement.start + m.placement.size):
            dev["capacity"][f"memorySlice{k}"] = binary(1)
        if gpu.taints:
            dev["taints"] = _taints(gpu)
        out.append(dev)
    return out


def counter_set_name(gpu: Gpu) -> str:
    return f"{gpu_name(gpu)}-counter-set"


def _counters(amounts: dict[str, int], start: int, size: int) -> dict[str, Any]:
    out = {counter_name(k): binary(n) for k, n in amounts.items()}
    for k in range(start, start + size):
        out[f"memory-slice-{k}"] = binary(1)
    return dict(sorted(out.items()))  # map keys in the order the API server writes them


def partitionable(
    gpu: Gpu, attrs: dict[str, Any], warn: Callable[[str], None]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(devices, counter set) for one GPU in partitionable (DynamicMIG) mode."""
    placed = [(p, pl) for p in gpu.mig_profiles for pl in p.placements]
    if not placed:
        return [full_gpu(gpu, attrs)], None
    if gpu.mig_devices:
        warn(
            f"{gpu_name(gpu)}: {len(gpu.mig_devices)} MIG devices exist now; partitionable mode "
            "models every placement as free"
        )
    maxcap: dict[str, int] = {}
    for p, _ in placed:
        for key, n in profile_amounts(p).items():
            maxcap[key] = max(maxcap.get(key, 0), n)
    slices = max(pl.start + pl.size for _, pl in placed)
    cset = {"name": counter_set_name(gpu), "counters": _counters(maxcap, 0, slices)}
    devices = []
    if not gpu.mig_enabled or (gpu.architecture not in (None, "Ampere")):
        full = full_gpu(gpu, attrs, capacity={k: binary(n) for k, n in maxcap.items()})
        full["consumesCounters"] = [{"counterSet": cset["name"], "counters": _counters(maxcap, 0, slices)}]
        devices.append(full)
    for p, pl in sorted(placed, key=lambda x: (x[0].slice_count, x[0].memory_mib, x[0].id, x[1].start)):
        devices.append(
            {
                "name": mig_name(gpu, p, pl),
                "attributes": mig_attributes(gpu, attrs, p.name),
                "capacity": profile_capacity(p),
                "consumesCounters": [
                    {"counterSet": cset["name"], "counters": _counters(profile_amounts(p), pl.start, pl.size)}
                ],
                **({"taints": _taints(gpu)} if gpu.taints else {}),
            }
        )
    return devices, cset
