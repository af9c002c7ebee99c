"""An Allocator and everything an allocation builds are freed by reference counting alone:
no reference cycle (a capacity simulation or a many-node benchmark makes thousands of them;
cycles would leave each to the cyclic garbage collector, whose passes then cost more than the
allocations).  Worlds with tainted, multi-allocatable, counter-consuming and binding devices, a
DeviceTaintRule, traced and untraced runs, two nodes (shared answers), and an error outcome."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from matcher_builders import ALL, claim, dev, device_class, node, req, slice_

from dractl.matcher import Allocator
from dractl.model.build import build_object
from dractl.model.features import Features

TAINT = {"key": "k", "value": "v", "effect": "NoSchedule"}


@contextmanager
def _no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _worlds() -> list[tuple[str, list, list]]:
    counters = [{"name": "cs", "counters": {"mem": {"value": "8"}}}]
    use = [{"counterSet": "cs", "counters": {"mem": {"value": "4"}}}]
    return [
        ("plain", [slice_("s", [dev("d0"), dev("d1")])], [claim("c", req("r", count=1))]),
        ("tainted", [slice_("s", [dev("t0", taints=[TAINT]), dev("d1")])], [claim("c", req("r", count=2))]),
        (
            "multi",
            [slice_("s", [dev("m0", allowMultipleAllocations=True), dev("d1")])],
            [claim("c", req("r", count=1))],
        ),
        (
            "counters",
            [
                slice_("dev", [dev("p0", consumesCounters=use), dev("p1", consumesCounters=use)], count=2),
                slice_("ctr", [], count=2, sharedCounters=counters),
            ],
            [claim("c", req("r", count=2))],
        ),
        ("unallocatable", [slice_("s", [dev("d0")])], [claim("c", req("r", count=3))]),
    ]


@pytest.mark.parametrize("name", [w[0] for w in _worlds()])
@pytest.mark.parametrize("trace", [False, True])
def test_allocator_freed_without_the_cyclic_gc(name: str, trace: bool) -> None:
    _, slices, claims = next(w for w in _worlds() if w[0] == name)
    with _no_gc():
        a = Allocator([device_class()], slices, ALL)
        outcomes = [a.allocate(n, claims, trace=trace) for n in (node(), node())]
        assert outcomes[0].status in ("allocated", "unallocatable")
        ref = weakref.ref(a)
        del a
        assert ref() is None, "the Allocator is kept alive by a reference cycle"


def test_allocator_with_taint_rule_freed_without_the_cyclic_gc() -> None:
    rule = build_object(
        {
            "kind": "DeviceTaintRule",
            "apiVersion": "resource.k8s.io/v1alpha3",
            "metadata": {"name": "r"},
            "spec": {
                "deviceSelector": {
                    "selectors": [{"cel": {"expression": 'device.attributes["driver-a"].model == "x"'}}]
                },
                "taint": TAINT,
            },
        }
    )
    features = Features.from_mapping({"deviceTaints": True, "DRADeviceTaintRules": True})
    slices = [slice_("s", [dev("d0", attrs={"model": "x"}), dev("d1")])]  # the selector fails on d1
    with _no_gc():
        a = Allocator([device_class()], slices, features, taint_rules=[rule])
        out = a.allocate(node(), [claim("c", req("r", count=1))], trace=True)
        assert out.warnings  # the rule's selector error was reported
        ref = weakref.ref(a)
        del a, out
        assert ref() is None
