#!/usr/bin/env python3
"""Lint benchmarks: the whole shared corpus with every check (schema, API-server rules, CEL,
cross-object lint) in one process, and one file through the CLI in a fresh process.

Targets (issue 4): whole corpus < 2 s; one file < 350 ms wall.
``python benchmarks/bench_lint.py`` prints this module's rows.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"
ONE_FILE = CORPUS / "k8s-api-testdata" / "testdata__HEAD__resource.k8s.io.v1.ResourceSlice.yaml"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def corpus_once() -> tuple[float, int, int]:
    """Seconds for load + validate + lint of the corpus (cold caches), objects, findings."""
    from dractl.cel import clear_caches
    from dractl.io.loader import load_paths
    from dractl.validate import cel_checks
    from dractl.validate.engine import validate_docs
    from dractl.validate.lint import lint
    from dractl.validate.options import ValidateOptions

    clear_caches()
    cel_checks._compile.cache_clear()
    start = time.perf_counter()
    loaded = load_paths([str(CORPUS)])
    opts = ValidateOptions()
    report = validate_docs(loaded.docs, opts, input_errors=loaded.errors, files=loaded.files)
    extra = lint(loaded.docs, opts)
    elapsed = time.perf_counter() - start
    return elapsed, report.summary.objects, len(report.findings) + len(extra)


def one_file_wall(runs: int = 5) -> tuple[float, float]:
    """Median wall time of ``dractl lint FILE -o json`` in a fresh interpreter, with byte code
    cached as in an installed package (a private pycache prefix; one untimed warm-up run)."""
    cmd = [sys.executable, "-m", "dractl.cli.app", "lint", str(ONE_FILE), "-o", "json"]
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False, env=env)
        times, cpu = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False, env=env)
            times.append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(times), statistics.median(cpu)


def run() -> list[dict[str, Any]]:
    if not CORPUS.is_dir():
        return [
            {
                "name": "lint corpus",
                "value": float("nan"),
                "unit": "s",
                "target": "< 2 s",
                "note": "../shared/corpus missing",
            }
        ]
    runs = [corpus_once() for _ in range(3)]
    best = min(r[0] for r in runs)
    _, objects, findings = runs[0]
    wall, cpu = one_file_wall()
    return [
        {
            "name": "lint whole corpus (1 process, all checks)",
            "value": round(best, 3),
            "unit": "s",
            "target": "< 2 s",
            "note": f"{objects} objects, {findings} findings, best of 3, cold CEL cache",
        },
        {
            "name": "dractl lint one file (fresh process)",
            "value": round(wall, 1),
            "unit": "ms",
            "target": "< 350 ms",
            "note": f"wall, median of 5, byte code cached, {ONE_FILE.name}",
        },
        {
            "name": "dractl lint one file (fresh process, CPU)",
            "value": round(cpu, 1),
            "unit": "ms",
            "target": "< 350 ms",
            "note": "user+system CPU of the child (stable when the machine is busy)",
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<48} {row['value']:>10} {row['unit']:<3} {row['target']:<10} {row['note']}")
