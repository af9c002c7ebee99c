#!/usr/bin/env python3
"""Memory benchmarks (issue 11): peak RSS of ``dractl validate`` and ``dractl lint`` on a large
generated manifest, as a multiple of the input size.

Each command runs in a fresh process; its peak RSS comes from ``os.wait4``.  The ratio is reported
twice: raw (peak / input) and above the start-up baseline (peak on a one-object file subtracted),
which is what grows with the input.  Target: above-baseline peak ≤ 5× input.
The JSON rows read one ``kubectl get -o json`` List (8 and 32 MB, indented as kubectl prints it,
and on one line as ``jq -c`` does).  ``python benchmarks/bench_memory.py [MB [JSON-MB...]]``
prints this module's rows.
"""

from __future__ import annotations

import json
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


def _slice_object(i: int, devices: int = 32) -> dict[str, Any]:
    """``slice_doc(i)`` as the object ``kubectl get -o json`` prints."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"node-{i}-gpu"},
        "spec": {
            "devices": [
                {
                    "attributes": {"index": {"int": d}, "model": {"string": f"H100-{d % 4}"}},
                    "capacity": {"memory": {"value": "80Gi"}},
                    "name": f"gpu-{d}",
                }
                for d in range(devices)
            ],
            "driver": "gpu.example.com",
            "nodeName": f"node-{i}",
            "pool": {"generation": 1, "name": f"node-{i}", "resourceSliceCount": 1},
        },
    }


def write_json_list_input(path: Path, size_mb: float, *, compact: bool = False) -> int:
    """The same slices as one JSON ``List`` (``kubectl get resourceslices -o json``: 4-space indent,
    keys sorted, so ``items`` comes before ``kind``); ``compact``: on one line (``jq -c``)."""
    target = int(size_mb * 2**20)
    nl, pad, sep = ("", "", (",", ":")) if compact else ("\n", "    ", (", ", ": "))
    with path.open("w") as f:
        f.write(
            f'{{{nl}{pad}"apiVersion":{" " * (not compact)}"v1",{nl}{pad}"items":{" " * (not compact)}[{nl}'
        )
        i = written = 0
        while written < target:
            text = json.dumps(_slice_object(i), indent=None if compact else 4, sort_keys=True, separators=sep)
            doc = ("" if i == 0 else "," + nl) + pad * 2 + text.replace("\n", nl + pad * 2)
            f.write(doc)
            written += len(doc)
            i += 1
        f.write(f'{nl}{pad}],{nl}{pad}"kind":{" " * (not compact)}"List"{nl}}}\n')
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


JSON_LIST_MB = (8, 32)  # kubectl get -o json: one document, read item by item


def _rows(command: str, path: Path, what: str, base: int) -> list[dict[str, Any]]:
    n = path.stat().st_size
    peak = peak_rss([command, "--max-input-size", "2G", str(path)])
    return [
        {
            "name": f"{command}{what} peak RSS / input ({n / 2**20:.0f} MB)",
            "value": round(peak / n, 1),
            "unit": "x",
            "target": "<= 5 x" if n >= 8 * base else "",  # start-up no longer dominates
            "note": f"peak {peak / 2**20:.0f} MB",
        },
        {
            "name": f"{command}{what} RSS above start-up / input",
            "value": round((peak - base) / n, 1),
            "unit": "x",
            "target": "<= 5 x",
            "note": f"start-up {base / 2**20:.0f} MB",
        },
    ]


def run(size_mb: float = SIZE_MB, json_sizes: tuple[float, ...] = JSON_LIST_MB) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        small, big, listed = Path(tmp) / "small.yaml", Path(tmp) / "big.yaml", Path(tmp) / "list.yaml"
        write_input(small, 0.001)
        write_input(big, size_mb)
        write_list_input(listed, size_mb)
        base = {c: peak_rss([c, "--max-input-size", "2G", str(small)]) for c in ("validate", "lint")}
        cases: list[tuple[str, Path, str]] = [
            ("validate", big, ""),
            ("lint", big, ""),
            ("lint", listed, " kind: List"),
        ]
        for mb in json_sizes:
            indented, compact = Path(tmp) / f"list-{mb}.json", Path(tmp) / f"list-{mb}-c.json"
            write_json_list_input(indented, mb)
            write_json_list_input(compact, mb, compact=True)
            cases += [
                ("validate", indented, " JSON List"),
                ("lint", indented, " JSON List"),
                ("lint", compact, " JSON List, one line"),
            ]
        for command, path, what in cases:
            rows += _rows(command, path, what, base[command])
    return rows


if __name__ == "__main__":
    sizes = [float(a) for a in sys.argv[1:]]
    for row in run(sizes[0] if sizes else SIZE_MB, tuple(sizes[1:]) if len(sizes) > 1 else JSON_LIST_MB):
        print(f"{row['name']:48} {row['value']:>8} {row['unit']:3} {row['target']:8} {row['note']}")
