#!/usr/bin/env python3
"""Validation benchmarks: ``dractl validate`` of one file (wall, subprocess), the whole shared
corpus at schema level in one process, and ``kubernetes-validate`` on the same inputs for
comparison (when it is installed).

    python benchmarks/bench_validate.py      # prints this module's rows
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"
ONE_FILE = ROOT / "examples" / "demo" / "claims-pending.yaml"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _median_ms(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _dractl() -> list[str]:
    script = Path(sys.executable).with_name("dractl")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dractl.cli.app"]


_ENV: dict[str, str] | None = None


def _env() -> dict[str, str]:
    """The environment for timed child processes: byte code cached (a private pycache prefix),
    as in an installed package, even where PYTHONDONTWRITEBYTECODE is set."""
    global _ENV
    if _ENV is None:
        _ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        _ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="dractl-bench-pyc-")
    return _ENV


def _run(cmd: list[str]) -> None:
    subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT, env=_env()
    )


def _wall_and_cpu_ms(cmd: list[str], runs: int = 5) -> tuple[float, float]:
    """Median wall and CPU (user+system) milliseconds of ``cmd`` in fresh processes, after one
    untimed warm-up run (file cache, byte code)."""
    _run(cmd)
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        _run(cmd)
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def _corpus_files() -> list[str]:
    return sorted(str(p) for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


def _in_process(semantic: bool) -> Callable[[], Any]:
    from dractl.io import load_paths
    from dractl.validate.engine import validate_docs
    from dractl.validate.options import ValidateOptions

    def once() -> Any:
        loaded = load_paths([str(CORPUS)])
        return validate_docs(
            loaded.docs, ValidateOptions(semantic=semantic), input_errors=loaded.errors, files=loaded.files
        )

    return once


def _validate_rows() -> list[dict[str, Any]]:
    rows = []
    one = ONE_FILE if ONE_FILE.exists() else next(iter(_corpus_files()), None)
    help_ms, help_cpu = _wall_and_cpu_ms([*_dractl(), "--help"])
    rows.append(
        {
            "name": "dractl --help (wall)",
            "value": help_ms,
            "unit": "ms",
            "target": "< 200 ms",
            "note": f"median of 5 fresh processes; CPU {help_cpu:.0f} ms",
        }
    )
    if one is not None:
        ms, cpu = _wall_and_cpu_ms([*_dractl(), "validate", str(one)])
        rows.append(
            {
                "name": "dractl validate (one file, wall)",
                "value": ms,
                "unit": "ms",
                "target": "< 300 ms",
                "note": f"{Path(one).name}; median of 5 fresh processes",
            }
        )
        rows.append(
            {
                "name": "dractl validate (one file, CPU)",
                "value": cpu,
                "unit": "ms",
                "target": "< 300 ms",
                "note": "user+system time of the child (wall varies with load)",
            }
        )
    if CORPUS.is_dir():
        fn = _in_process(semantic=False)
        fn()  # compile the schema validators once, as a long-lived process would have
        cold_start = time.perf_counter()
        report = _in_process(semantic=False)()
        cold_ms = (time.perf_counter() - cold_start) * 1000
        ms = _median_ms(fn, 3)
        s = report.summary
        rows.append(
            {
                "name": "validate corpus, schema level (one process)",
                "value": ms / 1000,
                "unit": "s",
                "target": "< 1.5 s",
                "note": f"{s.files} files, {s.objects} objects; load + validate, "
                f"median of 3 (first run {cold_ms:.0f} ms)",
            }
        )
        rows.append(
            {
                "name": "validate corpus, with API-server rules",
                "value": _median_ms(_in_process(semantic=True), 3) / 1000,
                "unit": "s",
                "target": "",
                "note": "schema + semantic rules + CEL, one process",
            }
        )
        rows.append(
            {
                "name": "dractl validate corpus (wall)",
                "value": _median_ms(lambda: _run([*_dractl(), "validate", str(CORPUS), "-o", "json"]), 3)
                / 1000,
                "unit": "s",
                "target": "",
                "note": "subprocess, all rules, JSON output",
            }
        )
    return rows


def _kubernetes_validate_rows() -> list[dict[str, Any]]:
    tool = shutil.which("kubernetes-validate") or str(Path(sys.executable).with_name("kubernetes-validate"))
    if not os.path.exists(tool) or not CORPUS.is_dir():
        return []
    files = _corpus_files()
    one = str(ONE_FILE if ONE_FILE.exists() else files[0])
    one_ms = _median_ms(lambda: _run([tool, "--strict", "-k", "1.37.0", one]), 3)
    start = time.perf_counter()
    _run([tool, "--strict", "-k", "1.37.0", *files])
    all_s = time.perf_counter() - start
    return [
        {
            "name": "kubernetes-validate (one file, wall)",
            "value": one_ms,
            "unit": "ms",
            "target": "",
            "note": "for comparison: --strict -k 1.37.0, median of 3",
        },
        {
            "name": "kubernetes-validate corpus (wall)",
            "value": all_s,
            "unit": "s",
            "target": "",
            "note": f"for comparison: --strict -k 1.37.0 on {len(files)} files, one process, one run",
        },
    ]


def run() -> list[dict[str, Any]]:
    return _validate_rows() + _kubernetes_validate_rows()


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<48} {row['value']:>9.3f} {row['unit']:<3} {row['target']:<10} {row['note']}")
