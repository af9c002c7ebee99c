"""The engine's setup around the search, made cheaper without changing an answer.

Work it skips only where that provably changes nothing: each skip is checked both ways
(taken and forced off) on the shared conformance table and the benchmark problems,
comparing whole outcomes (results, errors, steps, pruned, the trace).  The result objects
it builds with fast_init constructors are the classes' own objects."""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from matcher_builders import ALL, claim, dev, device_class, node, req, run, slice_

from dractl.matcher import engine, pruning
from dractl.matcher.api import AllocationTrace, NodeOutcome
from dractl.matcher.conformance import load_case
from dractl.matcher.engine import Allocator
from dractl.matcher.pruning import Pruner, may_activate
from dractl.matcher.requests import RequestError
from dractl.model.objects import AllocationResult, DeviceRequestAllocationResult

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
CASES = sorted((SHARED / "conformance" / "allocator").glob("*.json"))
PROBLEMS = sorted(p for p in (SHARED / "benchmarks" / "allocator").glob("*.json") if ".out." not in p.name)


def _outcomes(path: Path, trace: bool = True) -> Iterator[NodeOutcome]:
    case = load_case(json.loads(path.read_text()))
    allocator = case.allocator()
    for the_node in case.nodes[:3]:
        yield allocator.allocate(the_node, case.claims, trace=trace)


def test_problem_files_found() -> None:
    assert len(CASES) > 200 and len(PROBLEMS) >= 5


# ------------------------------------------------------------------ the pruner


@pytest.mark.parametrize(
    ("slots", "candidates", "expected"),
    [
        pytest.param(0, 64, False, id="no-slot"),
        pytest.param(1, 10**6, False, id="one-slot-is-one-call"),
        pytest.param(2, 64, False, id="two-slots-65-calls"),
        pytest.param(2, 255, True, id="two-slots-256-calls"),
        pytest.param(2, 254, False, id="two-slots-255-calls"),
        pytest.param(3, 64, True, id="three-slots"),
        pytest.param(255, 1, False, id="one-candidate-255-slots"),
        pytest.param(256, 1, True, id="one-candidate-256-slots"),
        pytest.param(300, 0, False, id="no-candidate"),
    ],
)
def test_may_activate_bound(slots: int, candidates: int, expected: bool) -> None:
    assert pruning.ACTIVATE_AFTER == 256
    assert may_activate(slots, candidates) is expected


def test_may_activate_reads_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 1)
    assert may_activate(1, 1) and not may_activate(0, 1)


class _Spy:
    """Counts the pruners built and the feasible calls each one answered."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.built: list[Pruner] = []
        build = Pruner.build.__func__  # type: ignore[attr-defined]

        def spy(cls: type[Pruner], *args: Any, **kw: Any) -> Pruner | None:
            pruner = build(cls, *args, **kw)
            if pruner is not None:
                self.built.append(pruner)
            return pruner

        monkeypatch.setattr(Pruner, "build", classmethod(spy))


def _backtracking() -> tuple[list[Any], list[Any]]:
    """Three requests that must share a numa value only the last group offers: the search
    tries many placements before it finds it."""
    devices = [dev(f"g{g}-{i}", attrs={"numa": g}) for g in range(4) for i in range(g + 1)]
    match = [{"matchAttribute": "driver-a/numa"}]
    return [slice_("s", devices)], [claim("c0", req("a"), req("b"), req("c"), req("d"), constraints=match)]


def test_bound_holds_on_a_backtracking_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # a pruner that never activates counts every feasible call: never more than the bound
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 10**9)
    monkeypatch.setattr(engine, "may_activate", lambda slots, cands: True)
    spy = _Spy(monkeypatch)
    slices, claims = _backtracking()
    outcome = run(slices, claims)
    assert outcome.status == "allocated" and len(spy.built) == 1
    calls, n, slots = spy.built[0].calls, 10, 4
    assert 4 < calls <= sum(n**d for d in range(slots))


def test_pruner_still_built_where_it_may_activate(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    slices, claims = _backtracking()
    run(slices, claims)
    assert len(spy.built) == 1  # 4 slots over 10 candidates: it may activate


@pytest.mark.parametrize("path", CASES + PROBLEMS, ids=lambda p: p.stem)
def test_skipping_the_pruner_changes_nothing(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    skipped = list(_outcomes(path))
    untraced = list(_outcomes(path, trace=False))
    monkeypatch.setattr(engine, "may_activate", lambda slots, cands: True)
    assert list(_outcomes(path)) == skipped
    assert list(_outcomes(path, trace=False)) == untraced


def test_the_pruner_is_skipped_somewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(monkeypatch)
    for path in PROBLEMS:
        if path.stem.startswith("a-"):
            list(_outcomes(path))
    assert spy.built == []  # one device among 64: one feasible call at most
    monkeypatch.setattr(engine, "may_activate", lambda slots, cands: True)
    for path in PROBLEMS:
        if path.stem.startswith("a-"):
            list(_outcomes(path))
    assert len(spy.built) == 1


# ------------------------------------------------------------- the constructors


def _made_by_the_class(obj: Any) -> None:
    """``obj`` (built by a fast_init constructor) is what its class's own __init__ builds."""
    again = dataclasses.replace(obj)  # through the class's __init__
    assert type(obj) is type(again) and obj == again and repr(obj) == repr(again)
    assert pickle.loads(pickle.dumps(obj)) == obj
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.__setattr__(dataclasses.fields(obj)[0].name, None)


@pytest.mark.parametrize("trace", [True, False], ids=["traced", "untraced"])
def test_outcomes_are_the_classes_objects(trace: bool) -> None:
    seen: set[str] = set()
    for path in PROBLEMS + CASES[:40]:
        for outcome in _outcomes(path, trace):
            seen.add(outcome.status)
            assert type(outcome) is NodeOutcome
            _made_by_the_class(outcome)
            assert type(outcome.trace) is AllocationTrace
            _made_by_the_class(outcome.trace)
            for result in outcome.results:
                assert type(result) is AllocationResult
                _made_by_the_class(result)
                for device in result.results:
                    assert type(device) is DeviceRequestAllocationResult
                    _made_by_the_class(device)
    assert seen == {"allocated", "unallocatable", "error"}


# --------------------------------------------------------------------- the view


def test_a_view_whose_gathering_failed_is_empty() -> None:
    bad = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Bogus"}]}]}
    a = Allocator([device_class()], [slice_("s", [dev("d0")], node_name=None, nodeSelector=bad)], ALL)
    with pytest.raises(RequestError, match="gather pool information"):
        a.view(node())
    view = a._views["node-1"]
    assert view.found == [] and view.flat.cands == [] and not view.flat.any_multi
    assert dict(view.by_pool) == {} and not view.any_multi and not view.invalid
    assert a.candidate_ids(node()) == []
    assert a.allocate(node(), [claim("c", req("r"))]).status == "error"


# ---------------------------------------------------------- prepared requests


@pytest.mark.parametrize("path", PROBLEMS + CASES[::10], ids=lambda p: p.stem)
def test_prepared_requests_kept_from_the_second_call(path: Path) -> None:
    # one Allocator asked again and again answers as fresh ones do, whether its requests were
    # prepared afresh (the first and second calls) or kept (later calls)
    case = load_case(json.loads(path.read_text()))
    the_node = case.nodes[0]
    fresh = case.allocator().allocate(the_node, case.claims)
    a = case.allocator()
    assert a.allocate(the_node, case.claims) == fresh
    assert a._prepared == {}
    for _ in range(3):
        assert a.allocate(the_node, case.claims) == fresh
    if path.stem.startswith(("a-", "b-")):  # ExactCount requests: kept since the second call
        assert len(a._prepared) == len(case.claims) == 1
