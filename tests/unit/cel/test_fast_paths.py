"""The planner's shortcuts (a field of a map variable such as ``device.driver`` in one step, a
constant string index, equality and ordering with their sized cost inline, ints and strings
ordered without ``compare``, Quantity ``compareTo`` without the checks' calls) give the
answers, errors and actual costs of the general closures.  The table was recorded with the
general closures (before the shortcuts existed); each row is also run at every cost limit up
to its cost, where the limit must stop it exactly when it is below the cost."""

from __future__ import annotations

from ast import literal_eval

import pytest
from cel_helpers import gpu

from dractl.cel import compile_selector
from dractl.errors import CelRuntimeError

_LIMIT = "operation cancelled: actual cost limit exceeded"

# expression -> (result, actual cost) or the runtime error
CASES: dict[str, tuple[bool, int] | str] = {
    'device.driver == "gpu.nvidia.com"': (True, 4),
    'device.driver == ""': (False, 2),
    'device.driver != "x"': (True, 3),
    'device.driver < "h"': (True, 3),
    'device.driver >= "gpu.nvidia.com.with.a.much.longer.tail.than.ten"': (False, 4),
    'device.attributes["gpu.nvidia.com"].index < 1': (True, 5),
    'device.attributes["gpu.nvidia.com"].index >= 0': (True, 5),
    'device.attributes["gpu.nvidia.com"].index > 1u': (False, 5),
    'device.attributes["gpu.nvidia.com"].index <= 0.5': (True, 5),
    'device.attributes["gpu.nvidia.com"].productName > "NVIDIA"': (True, 5),
    'device.attributes["gpu.nvidia.com"].productName <= device.driver': (True, 8),
    'device.attributes["nope.example.com"].x == 1': "no such key: x",
    'device.attributes["nope.example.com"] == {}': (True, 3),
    "device.attributes.nope == {}": (True, 3),
    'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0': (True, 7),
    'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("80Gi")) == 0': (True, 7),
    'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("81Gi")) < 0': (True, 7),
    'device.capacity["gpu.nvidia.com"].nope.compareTo(quantity("1")) < 0': "no such key: nope",
    'device.attributes["gpu.nvidia.com"].driverVersion.compareTo(semver("550.0.0")) > 0': (True, 7),
    '[{"a": 1}].all(m, m.a == 1)': (True, 17),
    '[{"a": 1}].exists(m, m.b == 1)': "no such key: b",
    '[{"a": 1}].exists(m, m["b"] == 1)': "no such key: b",
    '[{"a": 1}, {"b": 2}].exists(m, m.b == 2)': (True, 22),
    'cel.bind(m, {"a": 1}, m.a == 1)': (True, 3),  # a bound variable: the general path
    'cel.bind(m, {"a": "xx"}, m.a > "x")': (True, 3),
    '["b", "a"].exists(s, s < "b")': (True, 13),
    "[[1, 2]].all(l, l[0] < l[1])": (True, 19),
    "[1, 2][1] > 1": (True, 2),
    '{"k": [1, 2, 3]}["k"].size() == 3': (True, 33),
    '{"k": 1}["q"] == 1': "no such key: q",
    '"abc" < "abd" && 1 < 2 && 2.0 > 1.5 && 1u <= 1u && false < true': (True, 5),
    'double("NaN") < 1.0 || double("NaN") >= 1.0': (False, 4),
    "[1, 2, 3] == [1, 2, 3]": (True, 1),
    'b"abc" > b"abb"': (True, 1),
    'duration("1s") < duration("2s")': (True, 3),
    'timestamp("2020-01-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")': (True, 3),
}


def _run(expr: str, limit: int = 1_000_000) -> tuple[bool, int] | str:
    try:
        return compile_selector(expr).evaluate(gpu(), cost_limit=limit)
    except CelRuntimeError as err:
        return err.message


@pytest.mark.parametrize(("expr", "expected"), list(CASES.items()), ids=list(CASES))
def test_shortcuts_answer_and_cost_as_the_general_closures(
    expr: str, expected: tuple[bool, int] | str
) -> None:
    assert _run(expr) == expected
    if isinstance(expected, tuple):
        cost = expected[1]
        for limit in range(cost):
            assert _run(expr, limit) == _LIMIT, limit
        assert _run(expr, cost) == expected


def test_ordering_of_ints_and_strings_is_cels() -> None:
    """Ints and strings are ordered by Python's own operators: as CEL orders them (strings by
    code point, not by locale), for every operator."""
    pairs = [
        ("1", "2"),
        ("2", "1"),
        ("-3", "-3"),
        ('"a"', '"b"'),
        ('"b"', '"ab"'),
        ('"é"', '"z"'),
        ('""', '""'),
    ]
    for left, right in pairs:
        for op in ("<", "<=", ">", ">="):
            x, y = literal_eval(left), literal_eval(right)
            expected = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
            assert _run(f"{left} {op} {right}")[0] is expected, (left, op, right)  # type: ignore[index]
