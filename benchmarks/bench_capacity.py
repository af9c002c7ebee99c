"""Benchmark: ``dractl capacity`` on generated clusters, end to end in a fresh process.

- 5,000 nodes × 8 GPUs (two NVLink domains of 4 per node), half of the GPUs allocated
  (20,000 one-GPU claims, seeded): "how many more one-GPU pods" and "how many more
  4-GPU pods in one NVLink domain" (matchAttribute);
- 1,000 nodes × 8 partitionable GPUs (a counter set of 7 memory slices per GPU, the full
  GPU and seven 1g partitions each: 64,000 devices), a quarter of the partitions in use:
  "how many more 1g pods".

Each run loads a dractl snapshot (written once per cluster as JSON, the format
``dractl snapshot --file X.json`` writes for large clusters; the 1-GPU case is also run from
the YAML snapshot), simulates, explains the copy that no longer fits and renders JSON.
Targets (issue 16): under 10 s and under 1 GB each.  ``--best-fit`` (advice) on the NVLink and
MIG cases: its own simulation under 10 s CPU, the whole command (first fit, the explanation of
the next copy, then best fit) under 20 s.
Also reported: allocation attempts per second of the simulation.  Times are wall and CPU
seconds of the child on this (shared, 2-core) machine; absolute numbers vary by machine.
Run standalone: ``python benchmarks/bench_capacity.py``.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
V1 = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"


def _class(name: str, expr: str) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expr}}]},
    }


def _claim(
    name: str,
    cls: str,
    count: int = 1,
    match: str | None = None,
    results: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"requests": [{"name": "r", "exactly": {"deviceClassName": cls, "count": count}}]}
    if match:
        spec["constraints"] = [{"matchAttribute": match}]
    out: dict[str, Any] = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {"devices": spec},
    }
    if results:
        out["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "r", "driver": DRIVER, "pool": pool, "device": dev}
                        for pool, dev in results
                    ]
                }
            }
        }
    return out


def gpu_cluster(nodes: int = 5000, gpus: int = 8, seed: int = 1) -> list[dict[str, Any]]:
    """Node-local GPUs in NVLink domains of 4; half of them allocated, one claim each."""
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = [_class("gpu", f"device.driver == '{DRIVER}'")]
    for n in range(nodes):
        name = f"node-{n:05d}"
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        devices = [
            {
                "name": f"gpu-{i}",
                "attributes": {
                    "nvlinkDomain": {"string": f"{name}-nvl{i // 4}"},
                    "productName": {"string": "H100"},
                },
                "capacity": {"memory": {"value": "80Gi"}},
            }
            for i in range(gpus)
        ]
        objs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": name,
                    "devices": devices,
                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                },
            }
        )
        for i in sorted(rng.sample(range(gpus), gpus // 2)):
            objs.append(_claim(f"{name}-used-{i}", "gpu", results=[(name, f"gpu-{i}")]))
    return objs


def mig_cluster(nodes: int = 1000, gpus: int = 8, parts: int = 7, seed: int = 2) -> list[dict[str, Any]]:
    """Partitionable GPUs: counters in their own slice (1.35+), devices in another."""
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = [_class("mig-1g", f"device.attributes['{DRIVER}'].profile == '1g'")]
    for n in range(nodes):
        name = f"node-{n:04d}"
        pool = {"name": name, "generation": 1, "resourceSliceCount": 2}
        objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        sets = [
            {"name": f"gpu-{g}", "counters": {"memorySlices": {"value": str(parts)}}} for g in range(gpus)
        ]
        objs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-counters"},
                "spec": {"driver": DRIVER, "nodeName": name, "sharedCounters": sets, "pool": pool},
            }
        )
        devices: list[dict[str, Any]] = []
        for g in range(gpus):
            devices.append(
                {
                    "name": f"gpu-{g}",
                    "attributes": {"profile": {"string": "full"}},
                    "consumesCounters": [
                        {"counterSet": f"gpu-{g}", "counters": {"memorySlices": {"value": str(parts)}}}
                    ],
                }
            )
            devices += [
                {
                    "name": f"gpu-{g}-1g-{p}",
                    "attributes": {"profile": {"string": "1g"}},
                    "consumesCounters": [
                        {"counterSet": f"gpu-{g}", "counters": {"memorySlices": {"value": "1"}}}
                    ],
                }
                for p in range(parts)
            ]
        objs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-devices"},
                "spec": {"driver": DRIVER, "nodeName": name, "devices": devices, "pool": pool},
            }
        )
        used = [d["name"] for d in devices if "-1g-" in d["name"] and rng.random() < 0.25]
        for i, dev in enumerate(used):
            objs.append(_claim(f"{name}-mig-{i}", "mig-1g", results=[(name, dev)]))
    return objs


def _write(folder: Path, name: str, objects: list[dict[str, Any]], fmt: str = "json") -> Path:
    """The cluster as a dractl snapshot: JSON (what ``dractl snapshot --file X.json`` writes,
    the format for large clusters) unless ``fmt`` says yaml."""
    sys.path.insert(0, str(REPO))
    from dractl.io import write_snapshot

    path = folder / f"{name}.{fmt}"
    path.write_text(
        write_snapshot(
            objects, server_version="v1.37.0", feature_gates={}, time="2026-01-01T00:00:00Z", fmt=fmt
        )
    )
    return path


def _run(args: list[str]) -> tuple[float, float, float, int, str]:
    """(wall s, CPU s, peak RSS MB, exit code, stdout) of ``dractl ARGS`` in a fresh process."""
    code = (
        "import atexit, resource, sys; from dractl.cli.app import main; "
        "atexit.register(lambda: (u := resource.getrusage(resource.RUSAGE_SELF), "
        "sys.stderr.write('\\nmaxrss=%d cpu=%f\\n' % (u.ru_maxrss, u.ru_utime + u.ru_stime)))); main()"
    )
    env = dict(os.environ, COLUMNS="100", PYTHONPATH=str(REPO))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, cwd=REPO, env=env, check=False, text=True
    )
    wall = time.perf_counter() - start
    stats = [
        dict(kv.split("=", 1) for kv in line.split())
        for line in proc.stderr.splitlines()
        if line.startswith("maxrss=")
    ]
    if not stats or not proc.stdout.strip():
        raise RuntimeError(f"dractl {' '.join(args)} failed (exit {proc.returncode}): {proc.stderr[-500:]}")
    return wall, float(stats[-1]["cpu"]), int(stats[-1]["maxrss"]) / 1024, proc.returncode, proc.stdout


def _row(name: str, value: float, unit: str, target: str, note: str) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "target": target, "note": note}


def _case(label: str, claim: Path, snapshot: Path) -> list[dict[str, Any]]:
    wall, cpu, peak, rc, out = _run(["capacity", str(claim), "--snapshot", str(snapshot), "-o", "json"])
    if not out.strip():
        raise RuntimeError(f"capacity {label}: no output (exit {rc})")
    doc = json.loads(out)
    copies = doc["summary"]["copies"]
    load, sim, why, attempts = _phases(claim, snapshot)
    note = f"{copies} copies; exit {rc}"
    return [
        _row(f"capacity {label}: wall", wall, "s", "< 10 s", note),
        _row(f"capacity {label}: CPU", cpu, "s", "< 10 s", "user+system time of the child, loading included"),
        _row(f"capacity {label}: peak memory", peak, "MB", "< 1000 MB", "max RSS of the child"),
        _row(f"capacity {label}: load (CPU)", load, "s", "", "snapshot parse + model, in process"),
        _row(
            f"capacity {label}: simulate (CPU)",
            sim,
            "s",
            "",
            f"{attempts:,} allocation attempts, {attempts / sim:,.0f} per second",
        ),
        _row(f"capacity {label}: explain next copy + stranded (CPU)", why, "s", "", ""),
    ]


def _best_case(label: str, claim: Path, snapshot: Path) -> list[dict[str, Any]]:
    """``capacity --best-fit``: the first-fit count, then the same simulation with explain's
    score choosing among the first 64 fitting nodes for each copy (each node's score kept
    between copies, recomputed when a placement touched its pools)."""
    args = ["capacity", str(claim), "--snapshot", str(snapshot), "-o", "json", "--best-fit"]
    wall, cpu, peak, rc, out = _run(args)
    best = json.loads(out)["bestFit"]
    _, sim, _, attempts = _phases(claim, snapshot, best_fit=True)
    note = f"first fit {best['firstFit']}, best fit {best['bestFit']} copies; exit {rc}"
    return [
        _row(f"capacity --best-fit {label}: wall", wall, "s", "< 20 s", note),
        _row(
            f"capacity --best-fit {label}: CPU",
            cpu,
            "s",
            "< 20 s",
            "user+system time of the child: load, first fit, explain, best fit",
        ),
        _row(f"capacity --best-fit {label}: peak memory", peak, "MB", "< 1000 MB", "max RSS of the child"),
        _row(
            f"capacity --best-fit {label}: best-fit simulate (CPU)",
            sim,
            "s",
            "< 10 s",
            f"{attempts:,} allocation attempts (kept scores: one per copy and touched node)",
        ),
    ]


def _phases(claim: Path, snapshot: Path, best_fit: bool = False) -> tuple[float, float, float, int]:
    """CPU seconds of loading, simulating and explaining, measured in this process (``best_fit``:
    the best-fit simulation, and no explaining)."""
    sys.path.insert(0, str(REPO))
    from dractl.explain import inputs as inp
    from dractl.explain.capacity import CapacityOptions, Shape, Simulation, _blocking
    from dractl.explain.engine import resolve
    from dractl.explain.fragmentation import fragmentation
    from dractl.explain.whatif import WhatIf

    t0 = time.process_time()
    world = inp.load_world(inp.world_sources([], str(snapshot)), "default")
    from dractl.io.release import resolve_release

    release = resolve_release(None, None, inp.header_of(world))
    version, features = release.kube_version, release.features
    spec, _ = inp.target_spec([str(claim)], [], None, "default", version, features)
    t1 = time.process_time()
    opts = CapacityOptions(features=features, kube_version=version)
    world, target = resolve(world, spec, WhatIf(), features)
    sim = Simulation(world, Shape.of(world, target), opts, best_fit=best_fit)
    sim.run()
    t2 = time.process_time()
    if not best_fit:
        _blocking(sim, opts)
        fragmentation(sim)
    t3 = time.process_time()
    return t1 - t0, t2 - t1, t3 - t2, sim.attempts


def run() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        objects = gpu_cluster()
        gpu = _write(folder, "gpu", objects)
        gpu_yaml = _write(folder, "gpu", objects, fmt="yaml")
        del objects
        one = folder / "one.yaml"
        one.write_text(json.dumps(_claim("one", "gpu")))
        four = folder / "four.yaml"
        four.write_text(json.dumps(_claim("four", "gpu", 4, f"{DRIVER}/nvlinkDomain")))
        rows += _case("5,000 nodes x 8 GPUs half used, 1-GPU pods", one, gpu)
        rows += _case("the same from the YAML snapshot", one, gpu_yaml)
        rows += _case("5,000 nodes x 8 GPUs half used, 4-GPU NVLink pods", four, gpu)
        rows += _best_case("5,000 nodes x 8 GPUs half used, 4-GPU NVLink pods", four, gpu)
        mig = _write(folder, "mig", mig_cluster())
        part = folder / "mig-claim.yaml"
        part.write_text(json.dumps(_claim("part", "mig-1g")))
        rows += _case("1,000 nodes x 8 MIG GPUs, 1g pods", part, mig)
        rows += _best_case("1,000 nodes x 8 MIG GPUs, 1g pods", part, mig)
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<62} {row['value']:>9.2f} {row['unit']:<3} target {row['target']:<9} {row['note']}"
        )
