"""All CEL conformance vectors (labelled by the real Kubernetes DRA CEL code) through run_vector.

Asserted for every deterministic vector: compile error presence, eval error presence, ``matches``,
the API-server validation verdict on create, and ``maxCost`` on the same side of 1,000,000.
Nondeterministic vectors accept any of ``distinctOutcomes``.  Word-for-word error texts and exact
``maxCost`` agreement are counted and printed (and written to ``$DRACTL_CEL_REPORT`` when set).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dractl.cel.conformance import run_vector

VECTORS = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "cel" / "vectors.jsonl"
LIMIT = 1_000_000


def _load() -> list[dict[str, Any]]:
    if not VECTORS.exists():
        pytest.skip(f"{VECTORS} not present")
    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _outcomes(v: dict[str, Any]) -> list[tuple[bool | None, bool]]:
    if v.get("nondeterministic"):
        out = []
        for o in v.get("distinctOutcomes") or []:
            out.append((True, False) if o == "true" else (False, False) if o == "false" else (None, True))
        return out
    return [(v.get("matches"), bool(v.get("evalError")))]


def _disagreements(v: dict[str, Any], r: dict[str, Any]) -> list[str]:
    bad = []
    if bool(v.get("compileError")) != bool(r["compileError"]):
        bad.append(f"compileError: want {v.get('compileError')!r}, got {r['compileError']!r}")
        return bad
    if not v.get("compileError") and v.get("device") is not None:
        mine = (r["matches"], bool(r["evalError"]))
        if mine not in _outcomes(v):
            bad.append(
                f"eval: want matches={v.get('matches')} error={v.get('evalError')!r}, "
                f"got matches={r['matches']} error={r['evalError']!r}"
            )
    if bool(v.get("apiserverErrorOnCreate")) != bool(r["validationError"]):
        bad.append(f"validation: want {v.get('apiserverErrorOnCreate')!r}, got {r['validationError']!r}")
    want_cost = v.get("maxCost")
    if want_cost is not None and r["maxCost"] is not None and (want_cost > LIMIT) != (r["maxCost"] > LIMIT):
        bad.append(f"maxCost: want {want_cost}, got {r['maxCost']}")
    return bad


def test_all_cel_vectors_agree() -> None:
    vectors = _load()
    assert len(vectors) >= 3000
    failures: list[str] = []
    stats: Counter[str] = Counter()
    for v in vectors:
        r = run_vector(v)
        for msg in _disagreements(v, r):
            failures.append(f"{v['id']}: {v['expression'][:80]!r}: {msg}")
        if v.get("compileError"):
            stats["compile_errors"] += 1
            stats["compile_text_equal"] += v["compileError"] == r["compileError"]
        if v.get("evalError") and not v.get("nondeterministic"):
            stats["eval_errors"] += 1
            stats["eval_text_equal"] += v["evalError"] == r["evalError"]
        if v.get("apiserverErrorOnCreate") and r["validationError"]:
            stats["validation_errors"] += 1
            stats["validation_text_equal"] += v["apiserverErrorOnCreate"].endswith(r["validationError"])
        if v.get("maxCost") is not None and r["maxCost"] is not None:
            stats["max_costs"] += 1
            stats["max_cost_equal"] += v["maxCost"] == r["maxCost"]
            stats["max_cost_same_side"] += (v["maxCost"] > LIMIT) == (r["maxCost"] > LIMIT)
    stats["vectors"] = len(vectors)
    stats["disagreements"] = len(failures)
    report = dict(sorted(stats.items()))
    print("\nCEL conformance:", json.dumps(report))
    if os.environ.get("DRACTL_CEL_REPORT"):
        Path(os.environ["DRACTL_CEL_REPORT"]).write_text(json.dumps(report, indent=2) + "\n")
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:50])
    # Texts are judged by kind; still, most should match word for word.
    assert stats["compile_text_equal"] >= 0.9 * stats["compile_errors"]
    assert stats["max_cost_equal"] >= 0.9 * stats["max_costs"]
