#!/usr/bin/env python3
"""Memory benchmarks (issue 11): peak RSS of ``dractl validate`` and ``dractl lint`` on a large
generated manifest, as a multiple of the input size.

Each command runs in a fresh process; its peak RSS comes from ``os.wait4``.  The ratio is reported
twice: raw (peak / input) and above the start-up baseline (peak on a one-object file subtracted),
which is what grows with the input.  Target: above-baseline peak ≤ 5× input.
``python benchmarks/bench_memory.py [MB]`` prints this module's rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZE_MB = 16


def slice_doc(i: int, devices: int = 32) -> str:
    rows = "".join(
        f"  - name: gpu-{d}\n    attributes:\n      model: {{string: H100-{d % 4}}}\n"
        f"      index: {{int: {d}}}\n    capacity:\n      memory: {{value: 80Gi}}\n"
        for d in range(devices)
    )
    return (
        f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: node-{i}-gpu\nspec:\n"
        f"  driver: gpu.example.com\n  nodeName: node-{i}\n  pool:\n    name: node-{i}\n"
        f"    generation: 1\n    resourceSliceCount: 1\n  devices:\n{rows}---\n"
    )


# A class and a claim first, so that lint's selector matching (xmatch) runs over every device.
CLAIM = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: two-h100
  namespace: default
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu
        count: 2
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "H100-1"
---
"""


def write_input(path: Path, size_mb: float) -> int:
    target = int(size_mb * 2**20)
    with path.open("w") as f:
        f.write(CLAIM)
        i = written = 0
        while written < target:
            doc = slice_doc(i)
            f.write(doc)
            written += len(doc)
            i += 1
    return path.stat().st_size


def write_list_input(path: Path, size_mb: float) -> int:
    """The same slices as one ``kind: List`` document (what ``kubectl get -o yaml`` writes)."""
    target = int(size_mb * 2**20)
    with path.open("w") as f:
        f.write("apiVersion: v1\nkind: List\nitems:\n")
        i = written = 0
        while written < target:
            doc = "- " + slice_doc(i).replace("---\n", "").rstrip().replace("\n", "\n  ") + "\n"
            f.write(doc)
            written += len(doc)
            i += 1
    return path.stat().st_size


def peak_rss(args: list[str]) -> int:
    """Peak RSS in bytes of ``python -m dractl.cli.app ARGS`` (Linux ru_maxrss is in KiB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dractl.cli.app", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(proc.pid, 0)
    return int(usage.ru_maxrss) * 1024


def run(size_mb: float = SIZE_MB) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        small, big, listed = Path(tmp) / "small.yaml", Path(tmp) / "big.yaml", Path(tmp) / "list.yaml"
        write_input(small, 0.001)
        size = write_input(big, size_mb)
        list_size = write_list_input(listed, size_mb)
        for command, path, what in (
            ("validate", big, ""),
            ("lint", big, ""),
            ("lint", listed, " kind: List"),
        ):
            base = peak_rss([command, "--max-input-size", "2G", str(small)])
            peak = peak_rss([command, "--max-input-size", "2G", str(path)])
            n = list_size if path is listed else size
            rows.append(
                {
                    "name": f"{command}{what} peak RSS / input ({n / 2**20:.0f} MB)",
                    "value": round(peak / n, 1),
                    "unit": "x",
                    "target": "<= 5 x" if n >= 8 * base else "",  # start-up no longer dominates
                    "note": f"peak {peak / 2**20:.0f} MB",
                }
            )
            rows.append(
                {
                    "name": f"{command}{what} RSS above start-up / input",
                    "value": round((peak - base) / n, 1),
                    "unit": "x",
                    "target": "<= 5 x",
                    "note": f"start-up {base / 2**20:.0f} MB",
                }
            )
    return rows


if __name__ == "__main__":
    for row in run(float(sys.argv[1]) if len(sys.argv) > 1 else SIZE_MB):
        print(f"{row['name']:48} {row['value']:>8} {row['unit']:3} {row['target']:8} {row['note']}")
