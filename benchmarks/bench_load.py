#!/usr/bin/env python3
"""Loading benchmarks: a 1,000-node x 8-GPU snapshot, the shared corpus, ``dractl --version``.

python benchmarks/bench_load.py          # prints this module's rows
"""

from __future__ import annotations

import json
import os
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
for _p in (str(ROOT), str(ROOT / "scripts"), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def _median_ms(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def _snapshot_rows(nodes: int = 1000, devices: int = 8) -> list[dict[str, Any]]:
    import gen_snapshot

    from dractl.io import read_snapshot
    from dractl.model.build import build_object

    with tempfile.TemporaryDirectory() as tmp:
        path = gen_snapshot.write(Path(tmp) / "snapshot.yaml", nodes, devices)
        size_mb = path.stat().st_size / 1e6
        parse_ms, res = _median_ms(lambda: read_snapshot(str(path)), 3)
        build_ms, objs = _median_ms(lambda: [build_object(d.raw, d.origin) for d in res.docs], 3)
        middle = res.docs[len(res.docs) // 2]  # nothing composed yet: the first lookup pays for it
        pos_ms, pos = _median_ms(lambda: middle.position("spec.devices[7].attributes.gpu.nvidia.com/uuid"), 1)
        # the same snapshot as JSON (dractl snapshot --file X.json): one document per line
        jpath = Path(tmp) / "snapshot.json"
        raws = [res.snapshot_header, *(d.raw for d in res.docs)]
        jpath.write_text("".join(json.dumps(raw) + "\n" for raw in raws))
        jsize_mb = jpath.stat().st_size / 1e6
        jparse_ms, jres = _median_ms(lambda: read_snapshot(str(jpath)), 3)
        jbuild_ms, _ = _median_ms(lambda: [build_object(d.raw, d.origin) for d in jres.docs], 3)
    label = f"{nodes}x{devices}"
    return [
        {
            "name": f"load snapshot {label} (parse)",
            "value": parse_ms / 1000,
            "unit": "s",
            "target": "< 2 s",
            "note": f"{size_mb:.1f} MB, {len(res.docs):,} objects, median of 3",
        },
        {
            "name": f"load snapshot {label} (parse + model)",
            "value": (parse_ms + build_ms) / 1000,
            "unit": "s",
            "target": "< 2 s",
            "note": f"build_object on all {len(objs):,} objects",
        },
        {
            "name": f"load snapshot {label} as JSON (parse)",
            "value": jparse_ms / 1000,
            "unit": "s",
            "target": "",
            "note": f"{jsize_mb:.1f} MB, a document a line; {parse_ms / jparse_ms:.1f}x faster than the YAML",
        },
        {
            "name": f"load snapshot {label} as JSON (parse + model)",
            "value": (jparse_ms + jbuild_ms) / 1000,
            "unit": "s",
            "target": "",
            "note": f"{(parse_ms + build_ms) / (jparse_ms + jbuild_ms):.1f}x faster than the YAML",
        },
        {
            "name": "first position lookup in that snapshot",
            "value": pos_ms,
            "unit": "ms",
            "target": "",
            "note": f"lazy: composes one document -> line {pos[0]}",
        },
    ]


def _corpus_row() -> list[dict[str, Any]]:
    from dractl.io import load_paths

    if not CORPUS.is_dir():
        return [
            {
                "name": "load shared corpus (parse)",
                "value": float("nan"),
                "unit": "ms",
                "target": "",
                "note": "../shared/corpus not present",
            }
        ]
    load_paths([str(CORPUS)])  # warm the page cache
    ms, res = _median_ms(lambda: load_paths([str(CORPUS)]), 5)
    return [
        {
            "name": "load shared corpus (parse)",
            "value": ms,
            "unit": "ms",
            "target": "",
            "note": f"{len(res.files)} files, {len(res.docs)} objects, median of 5",
        }
    ]


def _dractl_script() -> str | None:
    here = Path(sys.executable).parent / "dractl"
    if here.exists():
        return str(here)
    return shutil.which("dractl")


def _version_row() -> list[dict[str, Any]]:
    script = _dractl_script()
    if script is None:
        return [
            {
                "name": "dractl --version (wall)",
                "value": float("nan"),
                "unit": "ms",
                "target": "< 150 ms",
                "note": "dractl script not installed",
            }
        ]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([script, "--version"], capture_output=True, check=True, env=env)  # warm up
    cmd = [script, "--version"]
    ms, _ = _median_ms(lambda: subprocess.run(cmd, capture_output=True, check=True, env=env), 5)
    return [
        {
            "name": "dractl --version (wall)",
            "value": ms,
            "unit": "ms",
            "target": "< 150 ms",
            "note": "installed script, median of 5",
        }
    ]


def run() -> list[dict[str, Any]]:
    return _snapshot_rows() + _corpus_row() + _version_row()


if __name__ == "__main__":
    from run import format_table

    print(format_table(run()))
