"""Partitionable devices decode their counter consumption once per distinct shape (shared,
read-only), with the same result as building it field by field."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.model import build as b
from dractl.model import objects as o
from dractl.model.quantity import QuantityError


def field_by_field(raw: Any) -> tuple[o.DeviceCounterConsumption, ...]:
    """What the builder made of consumesCounters before the shared path (the reference)."""
    return tuple(
        o.DeviceCounterConsumption(b._s(b._m(c).get("counterSet")), b._counters(b._m(c).get("counters")))
        for c in b._l(raw)
    )


VALUE = st.one_of(st.sampled_from(["1", "7", "0.5", "2000m", "1Gi"]), st.integers(0, 3), st.none())
COUNTER = st.one_of(
    st.fixed_dictionaries({"value": VALUE}),
    st.fixed_dictionaries({"value": VALUE, "extra": st.just(1)}),
    st.just({}),
    st.just("1"),
)
USE = st.one_of(
    st.fixed_dictionaries(
        {
            "counterSet": st.one_of(st.sampled_from(["gpu-0", "gpu-1"]), st.integers(0, 1)),
            "counters": st.dictionaries(st.sampled_from(["memorySlices", "sm"]), COUNTER, max_size=2),
        }
    ),
    st.fixed_dictionaries({"counterSet": st.just("gpu-0")}),
    st.fixed_dictionaries({"counterSet": st.just("gpu-0"), "counters": st.just({}), "other": st.just(True)}),
    st.just("gpu-0"),
)
CONSUMES = st.one_of(st.lists(USE, max_size=3), st.none(), st.just({}), st.just("x"))


@settings(max_examples=300, deadline=None)
@given(CONSUMES)
def test_consumption_decodes_as_field_by_field(raw: Any) -> None:
    try:
        want: Any = field_by_field(raw)
    except QuantityError as e:
        want = e
    for _ in range(2):  # cold, then from the shared entry
        if isinstance(want, QuantityError):
            with pytest.raises(QuantityError):
                b._consumes(raw)
        else:
            assert b._consumes(raw) == want
    b._CONSUMPTIONS.clear()


def test_partitions_share_one_consumption_and_devices_stay_their_own() -> None:
    use = [{"counterSet": "gpu-0", "counters": {"memorySlices": {"value": "1"}}}]
    one = b.device({"name": "p0", "attributes": {"profile": {"string": "1g"}}, "consumesCounters": use})
    two = b.device({"name": "p1", "consumesCounters": [dict(u) for u in use]})
    assert one.consumes_counters is two.consumes_counters  # equal lists: one shared tuple
    assert one.consumes_counters == field_by_field(use)
    assert (one.name, two.name) == ("p0", "p1") and one.attributes["profile"].value == "1g"
    other = b.device({"name": "p2", "consumesCounters": [{**use[0], "counterSet": "gpu-1"}]})
    assert other.consumes_counters[0].counter_set == "gpu-1"
    # a partition with more fields takes the general path: the same consumption
    general = b.device({"name": "p3", "consumesCounters": use, "allowMultipleAllocations": False})
    assert general.consumes_counters == one.consumes_counters
    assert general.allow_multiple_allocations is False


def test_a_bad_quantity_still_fails_and_is_not_kept() -> None:
    bad = [{"counterSet": "gpu-0", "counters": {"memorySlices": {"value": "lots"}}}]
    for _ in range(2):
        with pytest.raises(QuantityError):
            b.device({"name": "p", "consumesCounters": bad})


def test_the_shared_consumptions_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(b, "_INTERN_MAX", 4)
    b._CONSUMPTIONS.clear()
    for i in range(20):
        use = [{"counterSet": f"gpu-{i}", "counters": {"memorySlices": {"value": "1"}}}]
        assert b.device({"name": "p", "consumesCounters": use}).consumes_counters[0].counter_set == f"gpu-{i}"
    assert len(b._CONSUMPTIONS) <= 4
