"""Hardware discovery (NVML, sysfs) and the ResourceSlice builder.

Entry points: :func:`discover` (probe, read-only) → :class:`Inventory`;
:func:`build` → ResourceSlice dicts; :func:`save_fixture` (capture for bug
reports).  ``pynvml`` is imported only when the GPU probe runs on real NVML.
"""

from dractl.discover.builder import BuildOptions, BuildResult, build
from dractl.discover.engine import KINDS, DiscoverOptions, Session, discover, save_fixture
from dractl.discover.report import Inventory

__all__ = [
    "KINDS",
    "BuildOptions",
    "BuildResult",
    "DiscoverOptions",
    "Inventory",
    "Session",
    "build",
    "discover",
    "save_fixture",
]
