"""Matcher benchmarks: exactly the problems in ../shared/benchmarks/allocator/.

What is timed, and what is warm (each timed run builds a fresh Allocator: fresh
selector results and indexes):

- ``warm``: as the Go figures were measured (``Allocate()`` alone, fresh allocator,
  CEL warm): a fresh :class:`dractl.cel.cache.CelCache` per run whose selectors were
  compiled beforehand, untimed; devices are converted for CEL inside the timed run.
  Timed: constructing the Allocator and ``allocate()`` on every node; the answers are
  ``AllocationResult`` objects (Go's are structs), turned into dicts for checking untimed.
  The warm runs are taken in rounds over all problems (``_warm_rounds``), so each problem's
  median spans the whole benchmark rather than the fraction of a second its runs would take
  in one go (this machine's speed changes within seconds).
- ``cold``: a fresh, empty CelCache per run: compiling the selectors is timed too.
- ``e2e``: from the case file's JSON text to the answer (parse, build the model, warm
  CEL as above), compared with Go's e2e column.
- ``parse``: JSON text to model objects alone (``load_case``).

Each problem's answer is checked against ``<name>.out.json`` first (for ``b2``: the
fixed allocator's answer, gpu-4 … gpu-7).  Go's figures are the *recorded* side-by-side
medians at the end of ../shared/benchmarks/allocator/README.md (same machine kind,
measured interleaved with dractl); absolute times vary by machine and load, so the
ratio is what to read.

The garbage collector is set as the ``dractl`` command sets it (``GC_THRESHOLD`` in
dractl/cli/app.py) while the benchmarks run.

Values are medians of *CPU* time of this process (``time.process_time``): the
allocator is single-threaded, so on an idle machine this equals wall time (what the
Go figures are), and on the shared, loaded machine this project runs on it is the
figure that still means something.  The wall-clock median is in the note, and so are
the best (least) CPU time of the runs and the load average while the problem ran.

Why the best run is printed too: CPU time is not immune to load.  On the 2-vCPU machine
this project shares, a run whose process is switched out for others' comes back to cold
caches, and the same run in the same process takes up to ~1.6x the CPU time (a-mig-1gpu:
0.31 ms and 0.50 ms alternately in consecutive windows at load 3.5).  The medians are
the figure the targets are judged by (Go's figures are medians); on a loaded machine they
overstate dractl, and the best run is the least disturbed figure (on an idle machine the
two agree within ~10 %).  An earlier A/B script that reported minima, and this benchmark
that reports medians, timed exactly the same thing (a fresh Allocator + ``allocate()``,
trace off, warm CEL, the GC as the command sets it): that, and nothing else, is why they
disagreed by 1.5-2x.  The cyclic collector is left running across runs on purpose: a run
pays for collecting the garbage cycles the allocations before it left, the steady state
of a process that allocates again and again.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # standalone: python benchmarks/bench_matcher.py
    sys.path.insert(0, str(ROOT))

from dractl.cel.cache import CelCache  # noqa: E402
from dractl.errors import CelCompileError  # noqa: E402
from dractl.matcher.api import NodeOutcome  # noqa: E402
from dractl.matcher.conformance import LoadedCase, load_case, outcome_dict  # noqa: E402

DATA = ROOT / ".." / "shared" / "benchmarks" / "allocator"
B2_FIXED_DEVICES = ["gpu-4", "gpu-5", "gpu-6", "gpu-7"]
MAX_RUNS, TIME_BUDGET_S = 41, 3.0
# the warm rows (judged against Go): every problem timed in each of ROUNDS rounds, RUNS_PER_ROUND
# runs a round (at least MIN_ROUND_S of runs for the fast ones), so each problem's runs are spread
# over the whole benchmark (see _warm_rounds)
ROUNDS, RUNS_PER_ROUND, MIN_ROUND_S = 9, 15, 0.05
SIDE_BY_SIDE = "## Go re-measured side by side"
GO_NOTE = "Go: recorded side-by-side figures (README); absolute times vary by machine"
PARSE_CASE, PARSE_BEFORE_MS = "e-1000-nodes", 292.0  # issue 13: case parsing at least 2x faster
PARSE_TARGET_MS = PARSE_BEFORE_MS / 2


def go_figures() -> dict[str, tuple[float, float]]:
    """(Go Allocate() ms, Go e2e ms) per problem, from the README's side-by-side table."""
    text = (DATA / "README.md").read_text()
    _, _, tail = text.partition(SIDE_BY_SIDE)
    figures: dict[str, tuple[float, float]] = {}
    for line in tail.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            len(cells) >= 3
            and re.fullmatch(r"[a-z0-9-]+", cells[0])
            and all(re.fullmatch(r"[\d.]+", c) for c in cells[1:3])
        ):
            figures[cells[0]] = (float(cells[1]), float(cells[2]))
    return figures


def _expressions(raw: Any) -> Iterator[str]:
    if isinstance(raw, dict):
        cel = raw.get("cel")
        if isinstance(cel, dict) and isinstance(cel.get("expression"), str):
            yield cel["expression"]
        for v in raw.values():
            yield from _expressions(v)
    elif isinstance(raw, list):
        for v in raw:
            yield from _expressions(v)


def warm_cache(expressions: list[str]) -> CelCache:
    """A fresh CelCache with the case's selectors already compiled (as Go's CEL was)."""
    cache = CelCache()
    for e in expressions:
        with contextlib.suppress(CelCompileError):  # a compile error is part of some answers
            cache.compile(e, "stored")
    return cache


def _outcomes(case: LoadedCase, cache: CelCache, trace: bool = False) -> list[NodeOutcome]:
    """What is timed: a fresh Allocator and ``allocate()`` on every node of the case.  The
    answers are model objects (``AllocationResult``), as Go's ``Allocate()`` returns structs."""
    allocator = case.allocator(cel_cache=cache)
    return [allocator.allocate(node, case.claims, trace=trace) for node in case.nodes]


def _allocate(case: LoadedCase, cache: CelCache, trace: bool = False) -> list[dict[str, Any]]:
    """The answers as the case format records them (for checking them; not timed)."""
    return [outcome_dict(o) for o in _outcomes(case, cache, trace)]


def _median(
    fn: Callable[[], Callable[[], object]], budget_s: float = TIME_BUDGET_S
) -> tuple[float, float, int, float]:
    """(median CPU ms, median wall ms, runs, best CPU ms); ``fn`` prepares one run (untimed)
    and returns the callable to time."""
    cpu: list[float] = []
    wall: list[float] = []
    end = time.perf_counter() + budget_s
    while len(cpu) < MAX_RUNS and (len(cpu) < 5 or time.perf_counter() < end):
        timed = fn()
        t0, c0 = time.perf_counter(), time.process_time()
        timed()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
    return statistics.median(cpu), statistics.median(wall), len(cpu), min(cpu)


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
    return bool(got == _expected(name))


def measure(name: str, *, budget_s: float = TIME_BUDGET_S) -> dict[str, Any]:
    text = (DATA / f"{name}.json").read_text()
    raw = json.loads(text)
    exprs = list(dict.fromkeys(_expressions(raw)))
    case = load_case(raw)
    ok = check_answer(name, _allocate(case, warm_cache(exprs)))
    cold = _median(lambda: lambda: _outcomes(case, CelCache()), budget_s)
    parse = _median(lambda: lambda: load_case(json.loads(text)), budget_s / 2)

    def e2e_run() -> Callable[[], object]:
        cache = warm_cache(exprs)
        return lambda: _allocate(load_case(json.loads(text)), cache)

    e2e = _median(e2e_run, budget_s / 2)
    outcome = case.allocator(cel_cache=warm_cache(exprs)).allocate(case.nodes[0], case.claims, trace=False)
    return {
        "name": name,
        "case": case,
        "exprs": exprs,
        "cold": cold,
        "parse": parse,
        "e2e": e2e,
        "ok": ok,
        "steps": outcome.trace.steps,
        "pruned": outcome.trace.pruned,
        "implementation": outcome.implementation,
    }


def _warm_rounds(cases: dict[str, tuple[LoadedCase, list[str]]]) -> dict[str, tuple[Any, ...]]:
    """The warm rows' runs (a fresh Allocator and ``allocate()``, warm CEL; each run's cache made
    untimed), taken in ROUNDS rounds over all problems: per problem (median CPU ms, median wall
    ms, runs, best CPU ms, highest load seen).  This machine's speed changes from one second to
    the next (one fixed loop: 0.54-1.28 s within a minute, at low load); timing a problem's runs
    all at once put its median wherever such a change fell (a problem read 1.30x, 1.58x, 1.33x
    Go in three runs a minute apart).  Spread over every round, each problem's median sees the
    same mix of fast and slow moments as the others'."""
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    wall: dict[str, list[float]] = {name: [] for name in cases}
    load: dict[str, float] = {name: 0.0 for name in cases}
    for _ in range(ROUNDS):
        for name, (case, exprs) in cases.items():
            load[name] = max(load[name], _load())
            end = time.perf_counter() + MIN_ROUND_S
            runs = 0
            while runs < RUNS_PER_ROUND or (time.perf_counter() < end and runs < 10 * RUNS_PER_ROUND):
                cache = warm_cache(exprs)
                t0, c0 = time.perf_counter(), time.process_time()
                _outcomes(case, cache)
                cpu[name].append((time.process_time() - c0) * 1000)
                wall[name].append((time.perf_counter() - t0) * 1000)
                runs += 1
    return {
        name: (
            statistics.median(cpu[name]),
            statistics.median(wall[name]),
            len(cpu[name]),
            min(cpu[name]),
            load[name],
        )
        for name in cases
    }


def _load() -> float:
    """The 1-minute load average (0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def _target(name: str) -> float:
    """Ratio to Go's Allocate() that issue 13 asks for."""
    if name.startswith("e-"):
        return 1.0
    if name.startswith("d"):
        return 1.0
    return 1.5


def trace_overhead(name: str, budget_s: float = 2.0) -> tuple[float, float, int]:
    """CPU time with the trace kept over CPU time without it (warm CEL): (ratio of the medians,
    ratio of the best runs, pairs).  The two are timed *interleaved*, run by run, in alternating
    order (on/off, then off/on): timing all the traced runs first and the others after (as this
    did before) turned every change of the machine's load between the two phases into "trace
    overhead" (b2 read 2.12x one day and 1.11x another)."""
    raw = json.loads((DATA / f"{name}.json").read_text())
    exprs = list(dict.fromkeys(_expressions(raw)))
    case = load_case(raw)
    times: dict[bool, list[float]] = {True: [], False: []}
    end = time.perf_counter() + budget_s
    pairs = 0
    while pairs < 2 * MAX_RUNS and (pairs < 10 or time.perf_counter() < end):
        for trace in (True, False) if pairs % 2 == 0 else (False, True):
            cache = warm_cache(exprs)
            c0 = time.process_time()
            _outcomes(case, cache, trace)
            times[trace].append(time.process_time() - c0)
        pairs += 1
    on, off = times[True], times[False]
    return statistics.median(on) / statistics.median(off), min(on) / min(off), pairs


def run() -> list[dict[str, Any]]:
    """Per problem: the warm allocation (vs Go Allocate()), cold, and e2e (vs Go e2e) rows."""
    from dractl.cli.app import GC_THRESHOLD

    threshold = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)  # as the dractl command runs
    try:
        return _rows()
    finally:
        gc.set_threshold(*threshold)


def _rows() -> list[dict[str, Any]]:
    go = go_figures()
    rows = []
    names = sorted(p.stem for p in DATA.glob("*.json") if not p.name.endswith(".out.json"))
    measured = {name: measure(name) for name in names}
    warm = _warm_rounds({name: (m["case"], m["exprs"]) for name, m in measured.items()})
    for name in names:
        path, m = DATA / f"{name}.json", measured[name]
        go_alloc, go_e2e = go[path.stem]
        warm_ms, warm_wall, runs, best_ms, load = warm[name]
        ratio = warm_ms / go_alloc
        limit = _target(path.stem)
        met = "met" if ratio <= limit and m["ok"] else "MISSED"
        rows.append(
            {
                "name": f"matcher {path.stem}",
                "value": round(warm_ms, 3),
                "unit": "ms",
                "target": f"≤{limit:g}× Go ({met})",
                "note": f"warm CEL; {GO_NOTE}: Go Allocate() {go_alloc} ms, ratio {ratio:.2f}x; "
                f"answer {'ok' if m['ok'] else 'WRONG'} ({m['implementation']}), "
                f"steps {m['steps']} (pruned {m['pruned']}), "
                f"best run {best_ms:.3f} ms (ratio {best_ms / go_alloc:.2f}x), "
                f"wall {warm_wall:.2f} ms, {runs} runs in {ROUNDS} rounds, load {load:.1f}",
            }
        )
        cold_ms, cold_wall, runs, _ = m["cold"]
        rows.append(
            {
                "name": f"matcher {path.stem} cold",
                "value": round(cold_ms, 3),
                "unit": "ms",
                "target": "",
                "note": f"fresh CelCache each run (compiles timed); ratio {cold_ms / go_alloc:.2f}x Go "
                f"Allocate(); wall {cold_wall:.2f} ms, {runs} runs",
            }
        )
        e2e_ms, e2e_wall, runs, _ = m["e2e"]
        parse_ms = m["parse"][0]
        rows.append(
            {
                "name": f"matcher {path.stem} e2e",
                "value": round(e2e_ms, 3),
                "unit": "ms",
                "target": "",
                "note": f"JSON text → answer, warm CEL; {GO_NOTE}: Go e2e {go_e2e} ms, "
                f"ratio {e2e_ms / go_e2e:.2f}x; of which parsing {parse_ms:.2f} ms; "
                f"wall {e2e_wall:.2f} ms, {runs} runs",
            }
        )
        if path.stem == PARSE_CASE:
            met = "met" if parse_ms <= PARSE_TARGET_MS else "MISSED"
            rows.append(
                {
                    "name": f"matcher {path.stem} parse",
                    "value": round(parse_ms, 3),
                    "unit": "ms",
                    "target": f"≤{PARSE_TARGET_MS:g} ms ({met})",
                    "note": "JSON text → model objects (load_case); issue 13: 2× faster than the "
                    f"{PARSE_BEFORE_MS:g} ms first recorded (absolute times vary by machine and load)",
                }
            )
    for name in ("d-backtracking-2x4", "b2-mig-4gpu-nvlink-backtrack"):
        ratio, best, pairs = trace_overhead(name)
        rows.append(
            {
                "name": f"matcher trace overhead {name}",
                "value": round(ratio, 2),
                "unit": "x",
                "target": f"≤1.5x ({'met' if ratio <= 1.5 else 'MISSED'})",
                "note": "CPU time with trace on / trace off (same answer either way): medians of "
                f"{pairs} interleaved pairs; best runs {best:.2f}x; load {_load():.1f}",
            }
        )
    return rows


def main() -> None:
    rows = run()
    width = max(len(r["name"]) for r in rows)
    print(
        "CPU-time medians (time.process_time); Go figures are the recorded side-by-side ones from "
        "../shared/benchmarks/allocator/README.md; absolute times vary by machine and load.  "
        "Targets are judged by the median; under load (see each row) CPU time inflates too, and "
        "the best run is the least disturbed figure."
    )
    print(f"{'problem':<{width}}  {'dractl ms':>10}  {'target':<18}  note")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['value']:>10.3f}  {r['target']:<18}  {r['note']}")


if __name__ == "__main__":
    main()
