"""CelCache: one bounded owner for compiled selectors and converted devices; scoped recursion."""

from __future__ import annotations

import sys

import pytest
from cel_helpers import gpu

from dractl.cel import DEFAULT_CACHE, CelCache, compile_selector, validate_selector
from dractl.cel.limits import DEEP_RECURSION_LIMIT, deep_recursion
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features


def test_compile_is_cached_in_the_given_cache_only() -> None:
    a, b = CelCache(), CelCache()
    sel = a.compile("device.driver == 'x'", "stored", Features())
    assert a.compile("device.driver == 'x'", "stored", Features()) is sel
    assert (a.hits, a.misses) == (1, 1)
    assert b.compile("device.driver == 'x'") is not sel
    assert compile_selector("device.driver == 'x'", cache=a) is sel
    assert len(a) == 1 and len(b) == 1


def test_compiled_selectors_are_bounded_lru() -> None:
    cache = CelCache(max_entries=3)
    first = cache.compile("1 == 1")
    for i in range(2, 5):
        cache.compile(f"{i} == {i}")
        cache.compile("1 == 1")  # keep the first one recently used
    assert len(cache) == 3
    assert cache.compile("1 == 1") is first
    assert cache.compile("2 == 2") is not None and len(cache) == 3


def test_compile_errors_are_cached_and_raised_each_time() -> None:
    cache = CelCache()
    for _ in range(3):
        with pytest.raises(CelCompileError, match="Syntax error"):
            cache.compile("1 +")
    assert (cache.hits, cache.misses) == (2, 1)


def test_new_environment_follows_the_gates() -> None:
    cache = CelCache()
    expr = 'device.attributes["x"].a.includes(1)'
    with pytest.raises(CelCompileError, match="includes"):
        cache.compile(expr, "new", Features(list_type_attributes=False))
    assert cache.compile(expr, "new", Features(list_type_attributes=True)).max_cost > 0
    assert cache.compile(expr, "stored", Features(list_type_attributes=False)) is not None
    with pytest.raises(ValueError, match="env must be"):
        cache.compile("true", "bogus")  # type: ignore[arg-type]


def test_selectors_convert_devices_in_the_cache_that_compiled_them() -> None:
    cache = CelCache(max_devices=2)
    sel = cache.compile('device.attributes["gpu.nvidia.com"].index == 0')
    devices = [gpu(f"g{i}") for i in range(5)]
    assert all(sel.matches(d) for d in devices)
    assert len(cache.activations) == 2  # bounded
    assert cache.matches(sel, devices[0]) is True
    bad = gpu(driverVersion=("version", "1.2"))
    with pytest.raises(CelRuntimeError, match="parse semantic version"):
        sel.matches(bad)


def test_validate_verdicts() -> None:
    cache = CelCache()
    assert cache.validate("device.driver == 'a'") is None
    assert cache.validate("x" * 10241).startswith("Too long")
    assert "undeclared reference" in (cache.validate("nope") or "")
    assert validate_selector("device.driver == 'a'", cache=cache) is None


def test_clear_forgets_everything() -> None:
    cache = CelCache()
    sel = cache.compile("true")
    sel.matches(gpu())
    cache.clear()
    assert len(cache) == 0 and len(cache.activations) == 0 and cache.compile("true") is not sel


def test_sizes_must_be_positive() -> None:
    with pytest.raises(ValueError):
        CelCache(max_entries=0)


def test_default_cache_is_bounded() -> None:
    assert DEFAULT_CACHE.max_entries <= 65536 and DEFAULT_CACHE.activations.max_entries <= 1 << 20


def test_deep_recursion_restores_the_limit() -> None:
    before = sys.getrecursionlimit()
    with deep_recursion():
        assert sys.getrecursionlimit() >= DEEP_RECURSION_LIMIT
    assert sys.getrecursionlimit() == before
    with pytest.raises(KeyError), deep_recursion():
        raise KeyError("x")
    assert sys.getrecursionlimit() == before


def test_deep_expressions_compile_and_evaluate_without_raising_the_limit_for_good() -> None:
    before = sys.getrecursionlimit()
    cache = CelCache()
    expr = "(" * 200 + "device.driver == 'gpu.nvidia.com'" + ")" * 200
    nested = " && ".join(["true"] * 2) + " && " + "[" * 120 + "1" + "]" * 120 + " != []"
    assert cache.compile(expr).matches(gpu()) is True
    sel = cache.compile(nested)
    assert sys.getrecursionlimit() == before
    assert sel.matches(gpu()) is True
    assert sys.getrecursionlimit() == before
    with pytest.raises(CelCompileError, match="recursion limit exceeded: 250"):
        cache.compile("[" * 260 + "]" * 260 + " == []")
    assert sys.getrecursionlimit() == before
