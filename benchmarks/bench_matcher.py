"""Matcher benchmarks: exactly the problems in ../shared/benchmarks/allocator/.

Measured as the Go allocator was: model objects are built beforehand (untimed);
each timed run builds a fresh Allocator (fresh selector results, indexes and
caches; compiled CEL programs stay cached, as Go's were warm) and allocates on the
case's node, or on every node in turn for ``e-1000-nodes``.  Each problem's answer
is checked against ``<name>.out.json`` first (for ``b2``: the fixed allocator's
answer, gpu-4 … gpu-7).  Prints dractl's median next to Go's, as a ratio.

The value is the median *CPU* time of the process (``time.process_time``): the
allocator is single-threaded, so on an idle machine it equals wall time (what Go's
numbers are), and on a shared, loaded machine it is the figure that still means
something.  The wall-clock median is in the note.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # standalone: python benchmarks/bench_matcher.py
    sys.path.insert(0, str(ROOT))

from dractl.matcher.conformance import LoadedCase, load_case, outcome_dict  # noqa: E402

DATA = ROOT / ".." / "shared" / "benchmarks" / "allocator"
B2_FIXED_GO_MS = 2.0  # README: "With the fix, … (14 search steps, Go median 2.0 ms)"
B2_FIXED_DEVICES = ["gpu-4", "gpu-5", "gpu-6", "gpu-7"]
MAX_RUNS, TIME_BUDGET_S = 50, 4.0


def go_medians() -> dict[str, float]:
    """Go's median per problem, read from the README table."""
    medians: dict[str, float] = {}
    for line in (DATA / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"[a-z0-9-]+", cells[0]) and re.fullmatch(r"[\d.]+", cells[2]):
            medians[cells[0]] = float(cells[2])
    medians["b2-mig-4gpu-nvlink-backtrack"] = B2_FIXED_GO_MS
    return medians


def _run_once(case: LoadedCase, trace: bool = False) -> list[dict[str, Any]]:
    allocator = case.allocator()
    return [outcome_dict(allocator.allocate(node, case.claims, trace=trace)) for node in case.nodes]


def _cpu_median(case: LoadedCase, trace: bool, runs: int) -> float:
    times = []
    for _ in range(runs):
        c0 = time.process_time()
        _run_once(case, trace)
        times.append(time.process_time() - c0)
    return statistics.median(times)


def trace_overhead(name: str, runs: int = 15) -> float:
    """CPU time with the trace kept, divided by CPU time without it."""
    case = load_case(json.loads((DATA / f"{name}.json").read_text()))
    _run_once(case, True)
    return _cpu_median(case, True, runs) / _cpu_median(case, False, runs)


def _expected(name: str) -> Any:
    out = json.loads((DATA / f"{name}.out.json").read_text())
    if "perNode" in out:
        return [{"results": n["results"] or [], "error": n["error"]} for n in out["perNode"]]
    return [{"results": out["results"] or [], "error": out["error"]}]


def check_answer(name: str, got: list[dict[str, Any]]) -> bool:
    if name.startswith("b2-"):
        results = got[0]["results"]
        devices = [r["device"] for r in results[0]["devices"]["results"]] if results else []
        return devices == B2_FIXED_DEVICES and got[0]["error"] is None
    return got == _expected(name)


def measure(name: str) -> dict[str, Any]:
    case = load_case(json.loads((DATA / f"{name}.json").read_text()))
    started = time.perf_counter()
    first = _run_once(case)
    cold_ms = (time.perf_counter() - started) * 1000
    times: list[float] = []
    walls: list[float] = []
    budget_end = time.perf_counter() + TIME_BUDGET_S
    while len(times) < MAX_RUNS and (len(times) < 3 or time.perf_counter() < budget_end):
        t0, c0 = time.perf_counter(), time.process_time()
        _run_once(case)
        times.append((time.process_time() - c0) * 1000)
        walls.append((time.perf_counter() - t0) * 1000)
    outcome = case.allocator().allocate(case.nodes[0], case.claims, trace=False)
    return {"name": name, "median_ms": statistics.median(times), "wall_ms": statistics.median(walls),
            "cold_ms": cold_ms, "runs": len(times),
            "ok": check_answer(name, first), "steps": outcome.trace.steps, "pruned": outcome.trace.pruned}


def _target(name: str) -> tuple[str, float]:
    if name.startswith("e-"):
        return "≤2× Go", 2.0
    if name.startswith(("d2-", "d3-")):
        return "< Go", 1.0
    return "≤5× Go", 5.0


def run() -> list[dict[str, Any]]:
    """One row per problem: dractl's median CPU ms, with Go's median and the ratio in the note."""
    go = go_medians()
    rows = []
    for path in sorted(DATA.glob("*.json")):
        if path.name.endswith(".out.json"):
            continue
        m = measure(path.stem)
        go_ms = go[path.stem]
        ratio = m["median_ms"] / go_ms
        target, limit = _target(path.stem)
        met = "met" if ratio <= limit and m["ok"] else "MISSED"
        rows.append({"name": f"matcher {path.stem}", "value": round(m["median_ms"], 3), "unit": "ms",
                     "target": f"{target} ({met})",
                     "note": f"Go {go_ms} ms, ratio {ratio:.2f}x, answer {'ok' if m['ok'] else 'WRONG'}, "
                             f"steps {m['steps']} (pruned {m['pruned']}), wall {m['wall_ms']:.2f} ms, "
                             f"cold {m['cold_ms']:.1f} ms, "
                             f"{m['runs']} runs"})
    for name in ("d-backtracking-2x4", "b2-mig-4gpu-nvlink-backtrack"):
        ratio = trace_overhead(name)
        rows.append({"name": f"matcher trace overhead {name}", "value": round(ratio, 2), "unit": "x",
                     "target": f"≤1.5x ({'met' if ratio <= 1.5 else 'MISSED'})",
                     "note": "CPU time with trace on / trace off (same answer either way)"})
    return rows


def main() -> None:
    rows = run()
    width = max(len(r["name"]) for r in rows)
    print(f"{'problem':<{width}}  {'dractl ms':>10}  {'target':<16}  note")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['value']:>10.3f}  {r['target']:<16}  {r['note']}")


if __name__ == "__main__":
    main()
