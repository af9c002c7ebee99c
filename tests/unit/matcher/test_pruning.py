"""The pruner cuts only branches without solutions: same answers, fewer steps, and
errors surface exactly where the unpruned search would hit them."""

from __future__ import annotations

import pytest
from matcher_builders import claim, dev, devices_of, req, run, slice_

from dractl.matcher import pruning

SPECIAL = 'device.attributes["driver-a"].kind == "special"'


def _numa_world(groups: int, special_group: int | None, broken_last: bool = False) -> list:
    devices = []
    for g in range(groups):
        for i in range(4):
            kind = "special" if g == special_group and i == 3 else "normal"
            devices.append(dev(f"g{g}-{i}", attrs={"numa": g, "kind": kind}))
    if broken_last:
        devices.append(dev("zz-broken", attrs={"numa": groups}))  # no "kind": the selector fails on it
    return [slice_("s", devices)]


def _claims() -> list:
    match = [{"matchAttribute": "driver-a/numa"}]
    return [
        claim("c0", req("a"), req("b"), constraints=match),
        claim("c1", req("a"), req("b"), req("c", "class-a", 1, SPECIAL), constraints=match),
    ]


@pytest.fixture
def eager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 1)


def _unpruned(monkeypatch: pytest.MonkeyPatch, slices: list) -> object:
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 10**9)
    return run(slices, _claims())


def test_same_answer_fewer_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    slices = _numa_world(4, special_group=3)
    plain = _unpruned(monkeypatch, slices)
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 1)
    pruned = run(slices, _claims())
    assert devices_of(pruned) == devices_of(plain) == [["g0-0", "g0-1"], ["g3-0", "g3-1", "g3-3"]]
    assert pruned.trace.pruned > 0 and pruned.trace.steps < plain.trace.steps


def test_unsatisfiable_claim_dooms_the_search_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    slices = _numa_world(4, special_group=None)
    plain = _unpruned(monkeypatch, slices)
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 1)
    pruned = run(slices, _claims())
    assert plain.status == pruned.status == "unallocatable"
    assert pruned.trace.steps < plain.trace.steps // 4


def test_selector_error_disables_pruning(monkeypatch: pytest.MonkeyPatch) -> None:
    slices = _numa_world(3, special_group=None, broken_last=True)
    plain = _unpruned(monkeypatch, slices)
    monkeypatch.setattr(pruning, "ACTIVATE_AFTER", 1)
    pruned = run(slices, _claims())
    assert plain.status == pruned.status == "error"
    assert plain.error == pruned.error and "zz-broken" in (pruned.error or "")
    assert pruned.trace.pruned == 0


def test_error_on_unreached_device_stays_hidden(eager: None) -> None:
    # A solution exists before the broken device is ever looked at: no error, as upstream.
    outcome = run(_numa_world(3, special_group=0, broken_last=True), _claims()[1:])
    assert outcome.status == "allocated"
