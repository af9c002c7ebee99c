"""Consumable capacity: request policy rounding, validity, remaining capacity."""

from __future__ import annotations

from fractions import Fraction

import pytest
from matcher_builders import ALL, claim, dev, devices_of, req, run, slice_

from dractl.matcher import AllocatedState, capacity
from dractl.model.build import device
from dractl.model.quantity import Quantity

Q = Quantity.parse
POLICY = {"default": "2", "validRange": {"min": "2", "max": "8", "step": "2"}}


def _cap(value: str, policy: dict | None = None) -> object:
    raw = {"name": "d", "capacity": {"c": {"value": value, **({"requestPolicy": policy} if policy else {})}}}
    return device(raw).capacity["c"]


@pytest.mark.parametrize(
    ("requested", "policy", "expected"),
    [
        (None, None, "10"),
        (None, POLICY, "2"),
        ("3", POLICY, "4"),
        ("1", POLICY, "2"),
        ("5", None, "5"),
        ("3", {"validValues": ["2", "4", "8"]}, "4"),
        ("9", {"validValues": ["2", "4", "8"]}, "9"),
    ],
)
def test_consumed_for(requested: str | None, policy: dict | None, expected: str) -> None:
    got = capacity.consumed_for(Q(requested) if requested else None, _cap("10", policy))  # type: ignore[arg-type]
    assert got.value == Q(expected).value


def test_violations() -> None:
    assert capacity.violates_policy(Q("10"), _cap("10", POLICY).request_policy)  # type: ignore[attr-defined]
    assert not capacity.violates_policy(Q("6"), _cap("10", POLICY).request_policy)  # type: ignore[attr-defined]
    assert capacity.violates_policy(Q("3"), _cap("10", {"validValues": ["2"]}).request_policy)  # type: ignore[attr-defined]


def test_fits_counts_committed_and_in_flight() -> None:
    caps = {"c": _cap("4")}
    assert capacity.fits({"c": Fraction(2)}, {"c": Q("2")}, caps, None)  # type: ignore[arg-type]
    assert not capacity.fits({"c": Fraction(2)}, {"c": Q("2")}, caps, {"c": Fraction(1)})  # type: ignore[arg-type]
    with pytest.raises(capacity.UndefinedCapacity):
        capacity.fits(None, {"other": Q("1")}, caps, None)  # type: ignore[arg-type]


def test_multi_allocatable_device_shared_between_requests() -> None:
    d = dev("d", allowMultipleAllocations=True, capacity={"c": {"value": "4"}})
    c = claim("c", req("r0", capacity={"requests": {"c": "2"}}), req("r1", capacity={"requests": {"c": "2"}}))
    outcome = run([slice_("s", [d])], [c], features=ALL)
    assert devices_of(outcome) == [["d", "d"]]
    res = outcome.results_dicts()[0]["devices"]["results"]
    assert [r["consumedCapacity"] for r in res] == [{"c": "2"}, {"c": "2"}]
    assert all(r["shareID"] == "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa" for r in res)
    state = AllocatedState(capacity={"driver-a/pool-1/d": {"c": Q("1")}})
    assert run([slice_("s", [d])], [c], allocated=state).status == "unallocatable"
