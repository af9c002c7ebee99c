"""The upstream allocator's 223-case table (../shared/conformance/allocator), run through
``dractl.matcher.conformance.run_case`` and compared with ``expect`` as the README says.

As upstream's shared test does, every case runs against every allocator implementation
that supports its features (``implementations_for`` gives the upstream reason where one
does not apply), and once more with ``auto`` (the implementation Kubernetes picks).

``test_agreement_with_actual`` also counts how many cases match what the real Go
allocator returned *exactly* (same devices in the same order, same error text) and
prints the number; it fails only if that number drops below the recorded floor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dractl.matcher.conformance import implementations_for, run_case
from dractl.matcher.implementations import IMPLEMENTATIONS, choose
from dractl.model.features import Features

CASES_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "allocator"
CASE_FILES = sorted(p for p in CASES_DIR.glob("*.json"))
EXACT_FLOOR = 220  # see test_agreement_with_actual: the 3 others differ only in error wording / device


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _normalise(results: list[dict[str, Any]], unordered: bool) -> list[dict[str, Any]]:
    out = []
    for r in results:
        r = json.loads(json.dumps(r))
        if unordered:
            r["devices"]["results"].sort(key=lambda d: json.dumps(d, sort_keys=True))
        out.append(r)
    return out


def _agrees_with_expect(got: dict[str, Any], expect: dict[str, Any]) -> bool:
    if expect["error"] is not None:
        if got["error"] is None:
            return False
        if expect["errorMatch"] == "containsSubstring":
            return str(expect["error"]) in got["error"]
        return bool(expect["error"] == got["error"])
    if got["error"] is not None:
        return False
    unordered = "devicesUnordered" in expect["resultsMatch"]
    return _normalise(got["results"], unordered) == _normalise(expect["results"], unordered)


def test_case_table_is_complete() -> None:
    assert len(CASE_FILES) == 223


def _pairs() -> list[tuple[Path, str]]:
    out = []
    for path in CASE_FILES:
        applies = implementations_for(_load(path))
        out.extend((path, impl) for impl in IMPLEMENTATIONS if applies[impl] is None)
    return out


PAIRS = _pairs()


@pytest.mark.parametrize(("path", "implementation"), PAIRS, ids=[f"{p.stem}-{i}" for p, i in PAIRS])
def test_case_matches_expect(path: Path, implementation: str) -> None:
    case = _load(path)
    got = run_case(case, implementation)
    assert _agrees_with_expect(got, case["expect"]), json.dumps(got, indent=1)[:3000]


def test_every_case_runs_against_the_implementations_upstream_runs_it_against() -> None:
    per_impl = {impl: 0 for impl in IMPLEMENTATIONS}
    for path in CASE_FILES:
        case = _load(path)
        applies = implementations_for(case)
        assert applies["experimental"] is None, path.stem  # experimental supports every feature
        for impl, why in applies.items():
            per_impl[impl] += why is None
        if case["source"] == "TestLexicographicalAllocator":
            assert applies["stable"] is not None
        # auto is the first implementation that supports the case's features
        assert choose(Features.from_mapping(case["features"])) == next(
            i for i in IMPLEMENTATIONS if "not supported" not in (applies[i] or "")
        )
    assert per_impl["experimental"] == len(CASE_FILES)
    assert 0 < per_impl["stable"] < per_impl["incubating"] < per_impl["experimental"]


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_case_matches_expect_with_the_implementation_kubernetes_picks(path: Path) -> None:
    case = _load(path)
    picked = choose(Features.from_mapping(case["features"]))
    if case["source"] == "TestLexicographicalAllocator" and picked == "stable":
        # upstream's expectation is about sorting, which the stable implementation does not do
        got = run_case(case, "incubating")
    else:
        got = run_case(case)
    assert _agrees_with_expect(got, case["expect"]), json.dumps(got, indent=1)[:3000]


def test_run_case_does_not_mutate_the_case() -> None:
    path = CASES_DIR / "partitionable-devices-with-binding-conditions-and-taints-tolerated.json"
    case = _load(path)
    before = json.dumps(case, sort_keys=True)
    run_case(case)
    assert json.dumps(case, sort_keys=True) == before


def test_agreement_with_actual(capsys: pytest.CaptureFixture[str]) -> None:
    exact = []
    for path in CASE_FILES:
        case = _load(path)
        got = run_case(case, "experimental")  # what `actual` was recorded with
        actual = case["actual"]
        if got["results"] == (actual["results"] or []) and got["error"] == actual["error"]:
            exact.append(path.stem)
    with capsys.disabled():
        print(
            f"\nallocator conformance: {len(exact)}/{len(CASE_FILES)} cases match the Go allocator's "
            "actual answer exactly"
        )
    assert len(exact) >= EXACT_FLOOR
