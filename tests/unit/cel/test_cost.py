"""Estimated costs: upstream unit-test numbers and the rejections SEMANTICS.md describes."""

from __future__ import annotations

import pytest

from dractl.cel import compile_selector, validate_selector
from dractl.model.features import Features


@pytest.mark.parametrize(
    ("expr", "cost"),
    [
        ('device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].type == "gpu"', 9),
        ('device.attributes["dra.example.com"].attr.includes("fish")', 52),
        ('device.attributes["dra.example.com"].ids.exists(x, x == 2)', 389),
        ("lists.range(100).size() == 100", 113),
        ("lists.range(100).all(i, lists.range(100).all(j, i + j >= 0))", 81612),
        ('has(device.attributes["gpu.example.com"].productName)', 3),
        ('!(semver("1.2.3") == semver("1.2.4"))', 4),
        ("cel.bind(x, [1, 2, 3], x.exists(y, y == 2) && x.size() == 3)", 43),
        ("[[1, 2], [3]].all(l, l.all(x, x > 0))", 61),
    ],
)
def test_upstream_costs(expr: str, cost: int) -> None:
    assert compile_selector(expr).max_cost == cost


@pytest.mark.parametrize(
    "expr",
    [
        'quantity("1Gi") != quantity("1G")',
        'type(device.attributes["gpu.nvidia.com"].index) == int',
        '["a", "b", "c"].join("-") == "a-b-c"',
    ],
)
def test_cheap_looking_but_rejected(expr: str) -> None:
    assert compile_selector(expr).max_cost > 10**18
    assert validate_selector(expr) == "too complex, exceeds cost limit"


def test_validation_length_is_in_bytes() -> None:
    expr = '"' + "é" * 5200 + '".size() > 0'
    assert validate_selector(expr, features=Features()).startswith("Too long")
    assert validate_selector('"' + "e" * 5200 + '".size() > 0') is None


# Derived by hand from cel-go's checker/cost.go and Kubernetes' library/cost.go (driver: 0..63 code
# points, select on an object +1, string traversal factor 0.1, list/map literal 10/30):
@pytest.mark.parametrize(
    ("expr", "want"),
    [
        # replace: cost 2 + ceil(63*0.2); result size 63 replacements of "bb" -> [0, 126];
        # contains: ceil(126*0.1) * ceil(1*0.1) = 13
        ('device.driver.replace("a", "bb").contains("x")', (2, 28)),
        # bytes(): [0, 63*4] bytes; string(): [0/4, 252] code points; contains: ceil(25.2) * 1
        ('string(bytes(device.driver)).contains("ab")', (2, 61)),
        # strings.quote: size [0+2, 63*2+2]; contains: [1, 13] * [1, 1]
        ('strings.quote(device.driver).contains("a")', (3, 22)),
        # cel.bind keeps the empty range's 10; x has the concatenation's size [7, 70]
        ('cel.bind(x, device.driver + "-suffix", x.contains("a"))', (15, 27)),
        # the map literal's entry sizes reach m[k] (value [0, 63]) inside exists() over the bound map
        ('cel.bind(m, {"a": device.driver}, m.exists(k, m[k].contains("x")))', (48, 58)),
        # an empty list's element has size 0
        ('[][0] == "x"', (11, 11)),
        ('[][0].contains("abc")', (11, 11)),
        ('["abc", device.driver][1].contains("x")', (13, 20)),
    ],
)
def test_estimated_costs_follow_cel_go_and_kubernetes(expr: str, want: tuple[int, int]) -> None:
    sel = compile_selector(expr)
    assert (sel.min_cost, sel.max_cost) == want
    assert validate_selector(expr, features=Features(list_type_attributes=True)) is None
