"""The public API: caching, device conversion, memoised results."""

from __future__ import annotations

import pytest
from cel_helpers import gpu

from dractl.cel import DeviceActivationCache, MatchCache, clear_caches, compile_selector
from dractl.cel.conformance import device_from_vector, run_vector
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features


def test_compile_is_cached_per_environment_and_gates() -> None:
    a = compile_selector("true")
    assert compile_selector("true") is a
    assert compile_selector("true", env="new", features=Features()) is not a
    with pytest.raises(ValueError):
        compile_selector("true", env="bogus")  # type: ignore[arg-type]


def test_compile_error_is_raised_each_time() -> None:
    for _ in range(2):
        with pytest.raises(CelCompileError):
            compile_selector("1 +")


def test_activation_cache_converts_once_and_keeps_errors() -> None:
    cache = DeviceActivationCache()
    dev = gpu()
    assert cache.get(dev) is cache.get(dev)
    bad = gpu(driverVersion=("version", "1.2"))
    sel = compile_selector("true")
    for _ in range(2):
        with pytest.raises(CelRuntimeError, match=r"No Major\.Minor\.Patch"):
            sel.matches(bad, activations=cache)
    assert len(cache) == 2
    cache.clear()
    assert len(cache) == 0


def test_match_cache_memoises_and_resets() -> None:
    cache = MatchCache()
    sel = compile_selector('device.attributes["gpu.nvidia.com"].index == 0')
    dev = gpu()
    assert cache.matches(sel, dev) is True
    assert len(cache) == 1
    with pytest.raises(CelRuntimeError):
        cache.matches(compile_selector('device.attributes["gpu.nvidia.com"].nope == 0'), dev)
    cache.reset()
    assert len(cache) == 0


def test_referenced_names() -> None:
    sel = compile_selector(
        'device.attributes["gpu.nvidia.com"].idx == 0 && '
        'device.capacity["gpu.nvidia.com"].memory.isGreaterThan(quantity("1"))'
    )
    assert set(sel.referenced) == {
        ("attributes", "gpu.nvidia.com", "idx"),
        ("capacity", "gpu.nvidia.com", "memory"),
    }


def test_run_vector_shape() -> None:
    r = run_vector(
        {
            "expression": 'device.attributes["x.com"].a == 1',
            "envType": "StoredExpressions",
            "features": {},
            "device": {"driver": "x.com", "attributes": {"a": {"int": 1}}},
        }
    )
    assert r == {
        "compileError": None,
        "maxCost": 5,
        "matches": True,
        "evalError": None,
        "validationError": None,
    }


def test_vector_devices_pick_values_like_kubernetes() -> None:
    d = device_from_vector(
        {
            "driver": "d",
            "attributes": {
                "a": {"int": 1, "string": "x"},
                "b": {"ints": [], "int": 3},
                "c": {"ints": None, "int": 3},
                "e": {},
            },
        }
    )
    assert (d.attributes["a"].kind, d.attributes["b"].kind, d.attributes["c"].kind) == ("int", "ints", "int")
    assert d.unknown_attributes == ("e",)


def teardown_module() -> None:
    clear_caches()
