"""Benchmark: ``dractl discover`` replaying the 8-GPU HGX H100 fixture.

Rows: discovery (probes only) replaying the recorded NVML answers and sysfs tree, the
same plus the ResourceSlice builder (static and partitionable MIG), the whole node
(GPU, PCI, CPU: 224 CPUs), the whole command in a fresh process, and this machine's
live sysfs.  Target (issue 7): discovery replaying the 8-GPU fixture under 300 ms.
Each in-process figure is the median of several runs.  Run standalone:
``python benchmarks/bench_discover.py``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
H100 = REPO / "tests" / "fixtures" / "discover" / "h100-8gpu"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _median_ms(fn: Callable[[], Any], runs: int = 7) -> float:
    fn()  # warm caches (imports, page cache)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def run() -> list[dict[str, Any]]:
    from dractl.discover import BuildOptions, DiscoverOptions, build, discover

    def replay(kinds: tuple[str, ...]) -> Any:
        return discover(
            DiscoverOptions(
                node="dgx-01",
                kinds=frozenset(kinds),
                sysfs_root=H100 / "sys",
                nvml_fixture=H100 / "nvml.json",
            )
        ).inventory

    gpu_only = _median_ms(lambda: replay(("gpu", "pci")))
    inv = replay(("gpu", "pci", "cpu"))
    gpus = frozenset({"gpu"})
    static = _median_ms(lambda: build(replay(("gpu", "pci")), BuildOptions(node="dgx-01", kinds=gpus)))
    part = build(inv, BuildOptions(node="dgx-01", kinds=gpus, mig_mode="partitionable"))
    partitionable = _median_ms(
        lambda: build(inv, BuildOptions(node="dgx-01", kinds=gpus, mig_mode="partitionable"))
    )
    node = _median_ms(lambda: replay(("gpu", "pci", "cpu")), runs=5)
    live = _median_ms(lambda: discover(DiscoverOptions(node="this")), runs=5)
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dractl.cli.app",
            "discover",
            "--sysfs-root",
            str(H100 / "sys"),
            "--nvml-fixture",
            str(H100 / "nvml.json"),
            "-o",
            "yaml",
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    process = (time.perf_counter() - start) * 1000
    devices = sum(p.devices for p in part.pools)
    return [
        {
            "name": "discover: replay 8-GPU H100 fixture",
            "value": round(gpu_only, 1),
            "unit": "ms",
            "target": "< 300 ms",
            "note": "NVML replay + PCI sysfs, 7 MIG profiles x 8 GPUs",
        },
        {
            "name": "discover + build static slices (8 GPUs)",
            "value": round(static, 1),
            "unit": "ms",
            "target": "< 300 ms",
            "note": "6 GPUs + 9 MIG devices",
        },
        {
            "name": "build partitionable slices (8 GPUs)",
            "value": round(partitionable, 1),
            "unit": "ms",
            "target": "< 300 ms",
            "note": f"{devices} devices, {len(part.slices)} slices, 8 counter sets",
        },
        {
            "name": "discover: whole H100 node replay",
            "value": round(node, 1),
            "unit": "ms",
            "target": "< 300 ms",
            "note": "GPU + PCI + 224 CPUs / 2 NUMA nodes",
        },
        {
            "name": "discover: this machine (live sysfs)",
            "value": round(live, 1),
            "unit": "ms",
            "target": "< 300 ms",
            "note": "no GPU here: NVML reports unavailable",
        },
        {
            "name": "dractl discover -o yaml (fresh process)",
            "value": round(process, 1),
            "unit": "ms",
            "target": "< 2000 ms",
            "note": "H100 fixture, imports included",
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<44} {row['value']:>9} {row['unit']:<3} {row['target']:<10} {row['note']}")
