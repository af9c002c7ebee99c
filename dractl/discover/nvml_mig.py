"""MIG profiles, placements and existing MIG devices, all queried from NVML.

Profiles are found by asking NVML for every GPU-instance profile index
(``0 … NVML_GPU_INSTANCE_PROFILE_COUNT-1``); an index the GPU does not support
answers NOT_SUPPORTED/INVALID_ARGUMENT and is skipped.  The profile name comes
from NVML's v2 profile info (``"MIG 1g.10gb"``); only NVML versions without it
fall back to go-nvlib's naming rule (slices, rounded memory fraction, suffix).
"""

from __future__ import annotations

import math
from typing import Any

from dractl.discover.nvml_calls import FUNCTION_NOT_FOUND, Calls, gpu_instance_info, text
from dractl.discover.report import MigDevice, MigPlacement, MigProfile

# MIG memory slices per GPU (8 on every GPU so far); a placement past this is not real.
MAX_SLICES = 64

# Profile-index suffixes NVML's own names carry (nvml.h NVML_GPU_INSTANCE_PROFILE_*_REV1/_GFX/…).
_SUFFIX = {
    0x7: "+me",
    0x8: "+me",
    0xA: "+gfx",
    0xB: "+gfx",
    0xC: "+gfx",
    0xD: "-me",
    0xE: "-me",
    0xF: "+me.all",
    0x10: "+me.all",
    0x11: "+gfx",
}


def profile_name(index: int, slices: int, memory_mib: int, total_bytes: int | None) -> str:
    """go-nvlib's profile string: ``<g>g.<GB>gb[suffix]`` from the memory fraction in eighths."""
    if not total_bytes:
        gb = round(memory_mib / 1024)
    else:
        fraction = memory_mib * 1024 * 1024 / total_bytes
        fraction = math.ceil(fraction * 8) / 8
        total_gb = (total_bytes + 2**30 - 1) // 2**30
        gb = math.floor(fraction * total_gb + 0.5)  # Go's math.Round: half away from zero
    return f"{slices}g.{gb}gb{_SUFFIX.get(index, '')}"


def _profile_info(calls: Calls, h: Any, index: int) -> Any:
    info = calls.get("nvmlDeviceGetGpuInstanceProfileInfo", h, index, 2, what=f"MIG profile {index}")
    if info is None and calls.last_code == FUNCTION_NOT_FOUND:  # NVML before the V variant
        info = calls.get("nvmlDeviceGetGpuInstanceProfileInfo", h, index, 1, what=f"MIG profile {index}")
    return info


def probe_mig_profiles(calls: Calls, h: Any, total_bytes: int | None) -> tuple[MigProfile, ...]:
    """Every GPU-instance profile the GPU supports, with its possible placements."""
    out = []
    for index in range(int(getattr(calls.nv, "NVML_GPU_INSTANCE_PROFILE_COUNT", 0x12))):
        info = _profile_info(calls, h, index)
        if info is None:
            continue
        name = text(getattr(info, "name", b"") or b"").strip().removeprefix("MIG ").strip()
        memory_mib = int(info.memorySizeMB)
        if not name:
            name = profile_name(index, int(info.sliceCount), memory_mib, total_bytes)
        placements = calls.placements(h, int(info.id)) or []
        out.append(
            MigProfile(
                index=index,
                id=int(info.id),
                name=name,
                slice_count=int(info.sliceCount),
                instance_count=int(info.instanceCount),
                multiprocessors=int(info.multiprocessorCount),
                copy_engines=int(info.copyEngineCount),
                decoders=int(info.decoderCount),
                encoders=int(info.encoderCount),
                jpeg_engines=int(info.jpegCount),
                ofa_engines=int(info.ofaCount),
                memory_mib=memory_mib,
                placements=tuple(MigPlacement(s, z) for s, z in placements),
            )
        )
    return tuple(out)


def probe_mig_devices(calls: Calls, h: Any, profiles: tuple[MigProfile, ...]) -> tuple[MigDevice, ...]:
    """The MIG devices that exist now on a MIG-enabled GPU (read only; nothing is created)."""
    by_id = {p.id: p for p in profiles}
    out = []
    for j in range(int(calls.get("nvmlDeviceGetMaxMigDeviceCount", h, what="MIG device count") or 0)):
        mh = calls.get("nvmlDeviceGetMigDeviceHandleByIndex", h, j, what=f"MIG device {j}")
        if mh is None:
            continue
        gi_id = calls.get("nvmlDeviceGetGpuInstanceId", mh, what=f"MIG device {j} GPU instance")
        ci_id = calls.get("nvmlDeviceGetComputeInstanceId", mh, what=f"MIG device {j} compute instance")
        memory = calls.get("nvmlDeviceGetMemoryInfo", mh, what=f"MIG device {j} memory")
        profile = placement = None
        gi = (
            calls.get("nvmlDeviceGetGpuInstanceById", h, gi_id, what=f"GPU instance {gi_id}")
            if gi_id is not None
            else None
        )
        if gi is not None:
            info = _instance_info(calls, gi, gi_id)
            if info is not None:
                profile = by_id.get(int(info.profileId))
                start, size = int(info.placement.start), int(info.placement.size)
                if 0 <= start < MAX_SLICES and 0 < size <= MAX_SLICES - start:  # else: unknown (warned)
                    placement = MigPlacement(start, size)
        out.append(
            MigDevice(
                uuid=text(calls.get("nvmlDeviceGetUUID", mh, what=f"MIG device {j} UUID") or ""),
                gpu_instance_id=int(gi_id or 0),
                compute_instance_id=int(ci_id or 0),
                profile=profile,
                placement=placement,
                memory_bytes=int(memory.total) if memory is not None else None,
            )
        )
    return tuple(out)


def _instance_info(calls: Calls, gi: Any, gi_id: Any) -> Any:
    try:
        return gpu_instance_info(calls.nv, gi)
    except calls.nv.NVMLError as exc:
        return calls.fail("nvmlGpuInstanceGetInfo", exc, f"GPU instance {gi_id} info")
