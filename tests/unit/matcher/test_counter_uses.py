"""A device's counter consumption as exact numbers: ints for whole numbers, without building
a Fraction first; the same values as the exact Fraction."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dractl.matcher.counters import uses
from dractl.matcher.pools import exact
from dractl.model import objects as o
from dractl.model.quantity import Quantity


@pytest.mark.parametrize("text", ["0", "1", "7", "80Gi", "1k", "1e3", "-2", "2000m", "1.5", "500m", "0.25"])
def test_uses_are_exact_and_ints_where_whole(text: str) -> None:
    q = Quantity.parse(text)
    dev = o.Device(name="d", consumes_counters=(o.DeviceCounterConsumption("s", {"c": q}),))
    ((counter_set, name, amount),) = uses(dev)
    assert (counter_set, name) == ("s", "c")
    assert amount == exact(q)
    whole = exact(q).denominator == 1
    assert type(amount) is (int if whole else Fraction)
