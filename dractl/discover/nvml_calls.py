"""Calling NVML safely: error codes, string decoding and the few out-parameter calls.

Every NVML call in discovery goes through :class:`Calls`, which turns NVML
errors into ``None`` plus a message (or :class:`GpuLost`), so a missing
feature never becomes a traceback.  Only *query* functions are ever called.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

# NVML return codes (nvml.h; stable ABI values).
UNINITIALIZED = 1
INVALID_ARGUMENT = 2
NOT_SUPPORTED = 3
NO_PERMISSION = 4
NOT_FOUND = 6
DRIVER_NOT_LOADED = 9
LIBRARY_NOT_FOUND = 12
FUNCTION_NOT_FOUND = 13
GPU_IS_LOST = 15
RESET_REQUIRED = 16
LIB_RM_VERSION_MISMATCH = 18
UNKNOWN = 999

ERROR_TEXT = {
    UNINITIALIZED: "NVML is not initialized",
    INVALID_ARGUMENT: "invalid argument",
    NOT_SUPPORTED: "not supported",
    NO_PERMISSION: "insufficient permissions",
    NOT_FOUND: "not found",
    DRIVER_NOT_LOADED: "the NVIDIA kernel driver is not loaded",
    LIBRARY_NOT_FOUND: "the NVML library (libnvidia-ml.so.1) was not found",
    FUNCTION_NOT_FOUND: "function not found in this NVML version",
    GPU_IS_LOST: "the GPU has fallen off the bus or is otherwise inaccessible (GPU is lost)",
    RESET_REQUIRED: "the GPU requires a reset",
    LIB_RM_VERSION_MISMATCH: "the NVML library and the kernel driver versions do not match",
    UNKNOWN: "unknown NVML error",
}

# Errors that only mean "this device or NVML version lacks the feature".
QUIET = frozenset({NOT_SUPPORTED, INVALID_ARGUMENT, NOT_FOUND, FUNCTION_NOT_FOUND})


def error_code(exc: BaseException) -> int:
    value = getattr(exc, "value", UNKNOWN)
    return value if isinstance(value, int) else UNKNOWN


def describe(code: int) -> str:
    return ERROR_TEXT.get(code, f"NVML error {code}")


class GpuLost(Exception):
    """NVML answered GPU_IS_LOST for a device: the caller taints it and stops probing it."""


def text(value: Any) -> str:
    """NVML strings arrive as ``str`` (pynvml functions) or ``bytes`` (struct fields)."""
    if isinstance(value, bytes):
        return value.split(b"\0", 1)[0].decode("utf-8", errors="replace")
    return str(value)


class Calls:
    """Call NVML functions on ``nv`` (pynvml or a replay of it), collecting problems.

    ``get`` returns None for quiet errors (not supported, not found, …), records a
    message for the others, and raises :class:`GpuLost` when the GPU is lost.
    """

    def __init__(self, nv: Any, warn: Callable[[str], None]) -> None:
        self.nv = nv
        self.warn = warn
        self.denied: set[str] = set()  # functions that answered NO_PERMISSION
        self.last_code = 0  # the NVML error code of the last call (0: success)

    def get(self, func: str, *args: Any, what: str = "", **kwargs: Any) -> Any:
        fn = getattr(self.nv, func, None)
        self.last_code = 0
        if fn is None:
            self.last_code = FUNCTION_NOT_FOUND
            return None
        try:
            return fn(*args, **kwargs)
        except self.nv.NVMLError as exc:
            return self.fail(func, exc, what)

    def fail(self, func: str, exc: BaseException, what: str = "") -> None:
        """Handle an NVML error raised by ``func``: remember, warn or raise GpuLost."""
        code = self.last_code = error_code(exc)
        if code == GPU_IS_LOST:
            raise GpuLost(func) from exc
        if code == NO_PERMISSION:
            self.denied.add(func)
        if code not in QUIET:
            self.warn(f"{what or func}: {describe(code)}")
        return None

    def code_of(self, func: str, *args: Any) -> int:
        """0 when the call succeeds, else its NVML error code (for capability checks)."""
        try:
            getattr(self.nv, func)(*args)
            return 0
        except self.nv.NVMLError as exc:
            return error_code(exc)
        except AttributeError:
            return FUNCTION_NOT_FOUND

    def placements(self, handle: Any, profile_id: int) -> list[tuple[int, int]] | None:
        """``nvmlDeviceGetGpuInstancePossiblePlacements`` (count query, then fill)."""
        nv = self.nv
        count = ctypes.c_uint(0)
        if (
            self.get(
                "nvmlDeviceGetGpuInstancePossiblePlacements",
                handle,
                profile_id,
                None,
                ctypes.pointer(count),
                what=f"MIG placements of profile {profile_id}",
            )
            is None
        ):
            return None
        array = (nv.c_nvmlGpuInstancePlacement_t * max(count.value, 1))()
        if (
            self.get(
                "nvmlDeviceGetGpuInstancePossiblePlacements",
                handle,
                profile_id,
                array,
                ctypes.pointer(count),
                what=f"MIG placements of profile {profile_id}",
            )
            is None
        ):
            return None
        return [(int(array[i].start), int(array[i].size)) for i in range(count.value)]

    def fabric(self, handle: Any) -> tuple[str | None, int | None]:
        """(cluster UUID, clique id) when the GPU is attached to an NVLink fabric."""
        nv = self.nv
        make = getattr(nv, "c_nvmlGpuFabricInfoV_t", None)
        if make is None:
            return None, None
        info = make()
        if self.get("nvmlDeviceGetGpuFabricInfoV", handle, ctypes.byref(info), what="fabric info") is None:
            return None, None
        if int(info.status) != 0:
            return None, None
        raw = bytes(info.clusterUuid)
        cluster = None
        if any(raw):
            h = raw.hex()
            cluster = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
        return cluster, int(info.cliqueId)


def gpu_instance_info(nv: Any, gi: Any) -> Any:
    """``nvmlGpuInstanceGetInfo``; nvidia-ml-py 13.x's wrapper references an undefined
    name, so fall back to calling the C function through its own loader."""
    try:
        return nv.nvmlGpuInstanceGetInfo(gi)
    except NameError:
        info = nv.c_nvmlGpuInstanceInfo_t()
        fn = nv._nvmlGetFunctionPointer("nvmlGpuInstanceGetInfo")
        nv._nvmlCheckReturn(fn(gi, ctypes.byref(info)))
        return info
