"""Cases of cel-go ext/sets_test.go (ext.Sets) without variables: each expression holds, with the
upstream estimated cost.  Run-time costs are not compared: the upstream test runs without
OptOptimize, while DRA's list literals of constants are built once (cost 0 at run time).
"""

from __future__ import annotations

import pytest
from cel_upstream import DUMMY

from dractl.cel import compile_selector

CASES: list[tuple[str, int]] = [
    ("sets.contains([], [])", 21),
    ("sets.contains([1], [])", 21),
    ("sets.contains([1], [1])", 22),
    ("sets.contains([1], [1, 1])", 23),
    ("sets.contains([1, 1], [1])", 23),
    ("sets.contains([2, 1], [1])", 23),
    ("sets.contains([1, 2, 3, 4], [2, 3])", 29),
    ("sets.contains([1], [1.0, 1])", 23),
    ("sets.contains([1, 2], [2u, 2.0])", 25),
    ("sets.contains([1, 2u], [2, 2.0])", 25),
    ("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30),
    ("sets.contains([[1], [2, 3]], [[2, 3.0]])", 53),
    ("!sets.contains([1], [2])", 23),
    ("!sets.contains([1], [1, 2])", 24),
    ('!sets.contains([1], ["1", 1])', 24),
    ("!sets.contains([1], [1.1, 1u])", 24),
    ("sets.equivalent([], [])", 21),
    ("sets.equivalent([1], [1])", 23),
    ("sets.equivalent([1], [1, 1])", 25),
    ("sets.equivalent([1, 1], [1])", 25),
    ("sets.equivalent([1], [1u, 1.0])", 25),
    ("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39),
    ("sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69),
    ("!sets.equivalent([2, 1], [1])", 26),
    ("!sets.equivalent([1], [1, 2])", 26),
    ("!sets.equivalent([1, 2], [2u, 2, 2.0])", 34),
    ("!sets.equivalent([1, 2], [1u, 2, 2.3])", 34),
    ("sets.intersects([1], [1])", 22),
    ("sets.intersects([1], [1, 1])", 23),
    ("sets.intersects([1, 1], [1])", 23),
    ("sets.intersects([2, 1], [1])", 23),
    ("sets.intersects([1], [1, 2])", 23),
    ("sets.intersects([1], [1.0, 2])", 23),
    ("sets.intersects([1, 2], [2u, 2, 2.0])", 27),
    ("sets.intersects([1, 2], [1u, 2, 2.3])", 27),
    ("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65),
    ("!sets.intersects([], [])", 22),
    ("!sets.intersects([1], [])", 22),
    ("!sets.intersects([1], [2])", 23),
    ('!sets.intersects([1], ["1", 2])', 24),
    ("!sets.intersects([1], [1.1, 2u])", 24),
]


# Kubernetes compiles with cel.HomogeneousAggregateLiterals: a list literal mixing int, uint,
# double or string elements is a compile error there, so these upstream cases cannot hold.
MIXED = "list literal mixes element types; DRA's environment requires homogeneous literals"
_MIXED_EXPRS = {
    "sets.contains([1], [1.0, 1])",
    "sets.contains([1, 2], [2u, 2.0])",
    "sets.contains([1, 2u], [2, 2.0])",
    "sets.contains([1, 2.0, 3u], [1.0, 2u, 3])",
    "sets.contains([[1], [2, 3]], [[2, 3.0]])",
    '!sets.contains([1], ["1", 1])',
    "!sets.contains([1], [1.1, 1u])",
    "sets.equivalent([1], [1u, 1.0])",
    "sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
    "sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])",
    "!sets.equivalent([1, 2], [2u, 2, 2.0])",
    "!sets.equivalent([1, 2], [1u, 2, 2.3])",
    "sets.intersects([1], [1.0, 2])",
    "sets.intersects([1, 2], [2u, 2, 2.0])",
    "sets.intersects([1, 2], [1u, 2, 2.3])",
    "sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])",
    '!sets.intersects([1], ["1", 2])',
    "!sets.intersects([1], [1.1, 2u])",
}


def test_mixed_literals_are_rejected() -> None:
    from dractl.errors import CelCompileError

    for expr in sorted(_MIXED_EXPRS):
        with pytest.raises(CelCompileError, match="expected type"):
            compile_selector(expr, env="new")


@pytest.mark.parametrize(
    ("expr", "cost"), [pytest.param(e, c, id=e) for e, c in CASES if e not in _MIXED_EXPRS]
)
def test_upstream_sets(expr: str, cost: int) -> None:
    sel = compile_selector(expr, env="new")
    assert sel.matches(DUMMY) is True
    assert (sel.min_cost, sel.max_cost) == (cost, cost)
