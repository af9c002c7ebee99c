"""Benchmark: ``dractl explain-allocation`` of a one-GPU claim over a 1,000-node × 8-GPU snapshot.

The whole command runs in a fresh process (loading included), once for the default
tree and once for ``-o json``; peak memory is the child's maximum resident set.
Targets (issue 6): under 2 s and under 300 MB.  Run standalone:
``python benchmarks/bench_explain.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
NODES, DEVICES = 1000, 8
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        selectors:
        - cel:
            expression: "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0"
"""


def _snapshot(folder: Path) -> Path:
    """The repo's generated snapshot (scripts/gen_snapshot.py), with version attributes made
    valid semver: some generated driver versions carry a leading zero ("550.127.05"), which
    makes every selector fail on those devices with a CEL runtime error, as in Kubernetes."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import gen_snapshot
    finally:
        sys.path.pop(0)
    from dractl.io import write_snapshot

    objects = gen_snapshot.generate(NODES, DEVICES)
    for obj in objects:
        for dev in obj.get("spec", {}).get("devices", []) if obj.get("kind") == "ResourceSlice" else ():
            for attr in dev.get("attributes", {}).values():
                if "version" in attr:
                    attr["version"] = ".".join(str(int(p)) for p in attr["version"].split("."))
    path = folder / "snapshot.yaml"
    path.write_text(
        write_snapshot(objects, server_version="v1.37.0", feature_gates={}, time="2026-01-01T00:00:00Z")
    )
    return path


_PYCACHE: list[str] = []


def _pycache() -> str:
    if not _PYCACHE:
        _PYCACHE.append(tempfile.mkdtemp(prefix="dractl-bench-pyc-"))
    return _PYCACHE[0]


def _run(args: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS in MB, exit code) of ``dractl ARGS`` in a fresh child process.
    CPU time is reported too: wall time on a shared 2-core machine varies with the load."""
    code = (  # main() as the console script calls it (argv from sys.argv, process exit included)
        "import atexit, resource, sys; from dractl.cli.app import main; "
        "atexit.register(lambda: (u := resource.getrusage(resource.RUSAGE_SELF), "
        "sys.stderr.write('\\nmaxrss=%d cpu=%f\\n' % (u.ru_maxrss, u.ru_utime + u.ru_stime)))); "
        "main()"
    )
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["COLUMNS"] = "100"
    env["PYTHONPYCACHEPREFIX"] = _pycache()  # byte code cached, as in an installed package
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, cwd=REPO, env=env, check=False, text=True
    )
    wall = time.perf_counter() - start
    stats = [
        dict(kv.split("=", 1) for kv in line.split())
        for line in proc.stderr.splitlines()
        if line.startswith("maxrss=")
    ]
    if not stats:
        return wall, float("nan"), float("nan"), proc.returncode
    return wall, float(stats[-1]["cpu"]), int(stats[-1]["maxrss"]) / 1024, proc.returncode


def _row(name: str, value: float, unit: str, target: str, note: str) -> dict[str, Any]:
    return {"name": name, "value": value, "unit": unit, "target": target, "note": note}


def run() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        snap = _snapshot(folder)
        claim = folder / "claim.yaml"
        claim.write_text(CLAIM)
        rows = []
        _run(["explain-allocation", str(claim), "--snapshot", str(snap), "-o", "json"])  # warm-up: byte code
        for label, extra in (("tree", []), ("json", ["-o", "json"])):
            wall, cpu, peak, rc = _run(["explain-allocation", str(claim), "--snapshot", str(snap), *extra])
            what = f"explain-allocation, 1 GPU, {NODES} nodes x {DEVICES} GPUs ({label})"
            rows.append(_row(f"{what}: wall", wall, "s", "< 2 s", f"loading included; exit {rc}"))
            rows.append(_row(f"{what}: CPU", cpu, "s", "< 2 s", "user+system time of the child"))
            rows.append(_row(f"{what}: peak memory", peak, "MB", "< 300 MB", "max RSS of the child"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<55} {row['value']:>9.2f} {row['unit']:<3} target {row['target']:<9} {row['note']}"
        )
