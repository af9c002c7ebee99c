"""Estimated costs: upstream unit-test numbers and the rejections SEMANTICS.md describes."""

from __future__ import annotations

import pytest

from dractl.cel import compile_selector, validate_selector
from dractl.model.features import Features


@pytest.mark.parametrize(("expr", "cost"), [
    ('device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].type == "gpu"', 9),
    ('device.attributes["dra.example.com"].attr.includes("fish")', 52),
    ('device.attributes["dra.example.com"].ids.exists(x, x == 2)', 389),
    ("lists.range(100).size() == 100", 113),
    ("lists.range(100).all(i, lists.range(100).all(j, i + j >= 0))", 81612),
    ('has(device.attributes["gpu.example.com"].productName)', 3),
    ('!(semver("1.2.3") == semver("1.2.4"))', 4),
    ('cel.bind(x, [1, 2, 3], x.exists(y, y == 2) && x.size() == 3)', 43),
    ("[[1, 2], [3]].all(l, l.all(x, x > 0))", 61),
])
def test_upstream_costs(expr: str, cost: int) -> None:
    assert compile_selector(expr).max_cost == cost


@pytest.mark.parametrize("expr", [
    'quantity("1Gi") != quantity("1G")',
    'type(device.attributes["gpu.nvidia.com"].index) == int',
    '["a", "b", "c"].join("-") == "a-b-c"',
])
def test_cheap_looking_but_rejected(expr: str) -> None:
    assert compile_selector(expr).max_cost > 10**18
    assert validate_selector(expr) == "too complex, exceeds cost limit"


def test_validation_length_is_in_bytes() -> None:
    expr = '"' + "é" * 5200 + '".size() > 0'
    assert validate_selector(expr, features=Features()).startswith("Too long")
    assert validate_selector('"' + "e" * 5200 + '".size() > 0') is None
