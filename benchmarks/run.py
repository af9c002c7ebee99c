#!/usr/bin/env python3
"""Run every ``benchmarks/bench_*.py`` and print one table.

    python benchmarks/run.py                 # all modules, sorted by file name
    python benchmarks/run.py --only load     # modules whose name contains "load"
    python benchmarks/run.py --json          # the rows as JSON (one list)

Each module exposes ``run() -> list[dict]``; a row is ``{"name", "value", "unit",
"target", "note"}`` with unit one of ms, µs, s, MB, x.  A module that fails to import
or run becomes one error row; the others still run.  A target such as ``< 2 s`` is
checked against the value, and a missed target is flagged in the ``ok`` column.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COLUMNS = ("name", "value", "unit", "target", "ok", "note")
_TO_SECONDS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}
_TARGET = re.compile(r"^\s*(<=|>=|<|>)\s*([0-9.]+)\s*(\S+)\s*$")


def modules(only: str | None = None) -> list[Path]:
    """The benchmark files, sorted; ``only`` keeps those whose stem contains it."""
    files = sorted(HERE.glob("bench_*.py"))
    return [f for f in files if only is None or only in f.stem]


def _import(path: Path) -> ModuleType:
    for p in (str(HERE), str(ROOT)):
        if p not in sys.path:
            sys.path.insert(0, p)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def run_module(path: Path) -> list[dict[str, Any]]:
    """The module's rows (each with ``module`` added), or one error row."""
    start = time.perf_counter()
    try:
        rows = list(_import(path).run())
        for row in rows:
            row.setdefault("note", "")
            row.setdefault("target", "")
            row["module"] = path.stem
        return rows
    except Exception as e:  # a broken benchmark must not hide the others
        last = traceback.extract_tb(e.__traceback__)[-1:]
        where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
        note = f"{type(e).__name__}: {e}{where} after {time.perf_counter() - start:.1f} s"
        return [
            {
                "module": path.stem,
                "name": f"{path.stem}: ERROR",
                "value": math.nan,
                "unit": "",
                "target": "",
                "note": note,
            }
        ]


def meets(row: dict[str, Any]) -> bool | None:
    """Whether the value meets the row's target (None when there is none or it can't be compared)."""
    m = _TARGET.match(str(row.get("target", "")))
    value = row.get("value")
    if m is None or not isinstance(value, int | float) or math.isnan(value):
        return None
    op, limit, unit = m.group(1), float(m.group(2)), m.group(3)
    have = str(row.get("unit", ""))
    if unit != have:
        if unit not in _TO_SECONDS or have not in _TO_SECONDS:
            return None
        limit = limit * _TO_SECONDS[unit] / _TO_SECONDS[have]
    return {"<": value < limit, "<=": value <= limit, ">": value > limit, ">=": value >= limit}[op]


def _fmt_value(value: Any) -> str:
    if not isinstance(value, int | float):
        return str(value)
    if math.isnan(value):
        return "-"
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def format_table(rows: list[dict[str, Any]]) -> str:
    """Aligned text table of the rows (value right-aligned)."""
    cells = []
    for row in rows:
        ok = meets(row)
        cells.append(
            [
                str(row.get("name", "")),
                _fmt_value(row.get("value")),
                str(row.get("unit", "")),
                str(row.get("target", "")),
                {True: "yes", False: "NO", None: ""}[ok],
                str(row.get("note", "")),
            ]
        )
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(COLUMNS)]
    lines = []
    for line in [list(COLUMNS), ["-" * w for w in widths], *cells]:
        parts = [cell.rjust(widths[i]) if i == 1 else cell.ljust(widths[i]) for i, cell in enumerate(line)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run dractl's benchmarks and print one table.")
    parser.add_argument("--only", metavar="SUBSTR", help="run only modules whose name contains SUBSTR")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    files = modules(args.only)
    if not files:
        print(f"no benchmark module matches {args.only!r}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = []
    for f in files:
        rows.extend(run_module(f))
    if args.json:
        print(
            json.dumps(
                [
                    {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                    for r in rows
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print(format_table(rows))
    return 1 if any(r["name"].endswith(": ERROR") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
