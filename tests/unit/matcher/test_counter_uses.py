"""A device's counter consumption as exact numbers: ints for whole numbers, without building
a Fraction first; the same values as the exact Fraction."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dractl.matcher.counters import Left, _any_negative, uses
from dractl.matcher.pools import Pool, exact
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


def _pool_with_sets(*totals: str) -> Pool:
    sets = {
        f"set-{i}": {"mem": Quantity.parse(t), "compute": Quantity.parse("7")} for i, t in enumerate(totals)
    }
    return Pool("d", "p", counter_totals=sets)


@pytest.mark.parametrize("totals", [("80Gi", "40Gi", "1.5"), ("80Gi", "-1", "3")])
def test_totals_made_per_set_read_as_the_whole_left(totals: tuple[str, ...]) -> None:
    """``Left.totals`` makes a counter set when it is first read: every read, ``take`` and
    ``sets`` answer as the eager ``Left`` of the pool's exact totals."""
    pool = _pool_with_sets(*totals)
    eager = Left(pool.counter_sets)
    lazy = Left.totals(pool)
    assert lazy.negative == eager.negative
    for key in [("set-1", "mem"), ("set-1", "none"), ("nope", "mem"), ("set-0", "compute")]:
        got = lazy.amounts.get(key)
        if got is None:
            got = lazy.fill(key)
        assert got == eager.amounts.get(key), key
    lazy.take((("set-2", "mem", 1),))
    eager.take((("set-2", "mem", 1),))
    assert lazy.amounts == eager.amounts and list(lazy.amounts) == list(eager.amounts)
    assert lazy.negative == eager.negative
    assert Left.totals(pool).sets() == Left(pool.counter_sets).sets()


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        pytest.param({}, False, id="no-sets"),
        pytest.param({"a": {}}, False, id="empty-set"),
        pytest.param({"a": {"c": "0"}, "b": {}}, False, id="zero"),
        pytest.param({"a": {"c": "80Gi", "d": "7"}, "b": {"c": "1"}}, False, id="positive"),
        pytest.param({"a": {"c": "80Gi"}, "b": {}, "z": {"c": "1", "d": "-500m"}}, True, id="last-negative"),
        pytest.param({"a": {"c": "-1"}, "b": {"c": "1"}}, True, id="first-negative"),
    ],
)
def test_any_negative(sets: dict[str, dict[str, str]], expected: bool) -> None:
    totals = {name: {c: Quantity.parse(q) for c, q in counters.items()} for name, counters in sets.items()}
    assert _any_negative(totals) is expected
    exact_totals = [exact(q) for counters in totals.values() for q in counters.values()]
    assert expected == any(v < 0 for v in exact_totals)
