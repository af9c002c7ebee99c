"""capacity --best-fit keeps each fitting node's answer and score between copies and recomputes
them only for nodes whose pools a placement touched: the placements must be exactly those of
recomputing every node for every copy, on random worlds of partitionable GPUs (scores differ by
node), whole GPUs, network-attached pools (touching every node) and every order, with a small
window of nodes scored per copy so that which nodes are in it matters."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.explain import simulation_bestfit
from dractl.explain.capacity import CapacityOptions, Shape, Simulation
from dractl.explain.engine import TargetSpec, resolve
from dractl.explain.whatif import WhatIf
from dractl.io.world import World, build_world
from dractl.matcher.api import AllocatedState
from dractl.matcher.engine import Allocator
from dractl.model.build import build_object
from dractl.model.features import Features

V1 = "resource.k8s.io/v1"
DRIVER = "x.example.com"
FEATURES = Features.for_version("1.37")


class Recomputing(Simulation):
    """The reference: forgets every kept answer after every placement."""

    def _touched(self, outcome: Any) -> None:
        self._forget(None)


def _slice(name: str, pool: str, node: str | None, **spec: Any) -> dict[str, Any]:
    where: dict[str, Any] = {"nodeName": node} if node else {"allNodes": True}
    count = spec.pop("count", 1)
    return {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            **where,
            "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
            **spec,
        },
    }


def _gpus(draw: st.DrawFn, pool: str, node: str | None, docs: list[dict[str, Any]]) -> list[str]:
    """A pool of partitionable GPUs (a full device and 1-slice partitions per counter set)."""
    n_gpus, parts = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sets = [{"name": f"g{g}", "counters": {"mem": {"value": str(parts)}}} for g in range(n_gpus)]
    devices: list[dict[str, Any]] = []
    for g in range(n_gpus):
        use = {"counterSet": f"g{g}", "counters": {"mem": {"value": str(parts)}}}
        devices.append(
            {"name": f"g{g}", "attributes": {"kind": {"string": "full"}}, "consumesCounters": [use]}
        )
        for p in range(parts):
            one = {"counterSet": f"g{g}", "counters": {"mem": {"value": "1"}}}
            devices.append(
                {
                    "name": f"g{g}-p{p}",
                    "attributes": {"kind": {"string": "part"}, "domain": {"string": f"d{p % 2}"}},
                    "consumesCounters": [one],
                }
            )
    docs.append(_slice(f"{pool}-counters", pool, node, count=2, sharedCounters=sets))
    docs.append(_slice(f"{pool}-devices", pool, node, count=2, devices=devices))
    return [d["name"] for d in devices]


@st.composite
def worlds(draw: st.DrawFn) -> tuple[World, dict[str, Any]]:
    kind = draw(st.sampled_from(["part", "full"]))
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": V1,
            "kind": "DeviceClass",
            "metadata": {"name": "dev"},
            "spec": {
                "selectors": [{"cel": {"expression": f"device.attributes['{DRIVER}'].kind == '{kind}'"}}]
            },
        }
    ]
    held: list[tuple[str, str]] = []
    for n in range(draw(st.integers(1, 7))):
        name = f"n{n}"
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        for dev in _gpus(draw, name, name, docs):
            if draw(st.integers(0, 3)) == 0:
                held.append((name, dev))
    if draw(st.booleans()):
        for dev in _gpus(draw, "net", None, docs):
            if draw(st.integers(0, 3)) == 0:
                held.append(("net", dev))
    for i, (pool, dev) in enumerate(held):
        result = {"request": "r", "driver": DRIVER, "pool": pool, "device": dev}
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceClaim",
                "metadata": {"name": f"h{i}", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dev"}}]}},
                "status": {"allocation": {"devices": {"results": [result]}}},
            }
        )
    spec: dict[str, Any] = {
        "requests": [{"name": "r", "exactly": {"deviceClassName": "dev", "count": draw(st.integers(1, 2))}}]
    }
    if draw(st.booleans()):
        spec["constraints"] = [{"matchAttribute": f"{DRIVER}/domain"}]
    ask = {"apiVersion": V1, "kind": "ResourceClaim", "metadata": {"name": "ask", "namespace": "default"}}
    ask["spec"] = {"devices": spec}
    return build_world(build_object(d) for d in docs), ask


@pytest.fixture(autouse=True)
def _small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulation_bestfit, "BEST_FIT_NODES", 2)
    monkeypatch.setattr(simulation_bestfit, "HEAP_SLACK", 0)  # outdated heap entries dropped often


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(worlds(), st.sampled_from(["name", "most-free", "least-free"]))
def test_kept_scores_place_exactly_as_recomputing_every_node(
    case: tuple[World, dict[str, Any]], order: str
) -> None:
    world, ask = case
    spec = TargetSpec(claim_objects=(build_object(ask),))  # type: ignore[arg-type]
    w, target = resolve(world, spec, WhatIf(), FEATURES)
    opts = CapacityOptions(features=FEATURES, kube_version="1.37", order=order, max_copies=60)
    kept = Simulation(w, Shape.of(w, target), opts, best_fit=True)
    again = Recomputing(w, Shape.of(w, target), opts, best_fit=True)
    assert [(p.node, p.devices) for p in kept.run()] == [(p.node, p.devices) for p in again.run()]
    assert kept.dead == again.dead


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(worlds(), st.sampled_from(["name", "most-free", "least-free"]))
def test_best_fit_placements_are_allocations_the_allocator_makes_in_turn(
    case: tuple[World, dict[str, Any]], order: str
) -> None:
    """Within a node best fit may take another device set than the allocator's own (a search
    in a best-fit order): each copy's devices must still be an allocation the allocator makes
    on that node, with the copies before it allocated, when only those devices are published
    (a fresh Allocator per copy, as explain-allocation --best-fit verifies its options).  Best
    fit places a first copy whenever first fit does.  (It may place fewer copies in all: the
    score is a heuristic, advice.)"""
    world, ask = case
    spec = TargetSpec(claim_objects=(build_object(ask),))  # type: ignore[arg-type]
    w, target = resolve(world, spec, WhatIf(), FEATURES)
    opts = CapacityOptions(features=FEATURES, kube_version="1.37", order=order, max_copies=30)
    shape = Shape.of(w, target)
    best = Simulation(w, shape, opts, best_fit=True)
    placements = best.run()
    first = Simulation(w, shape, opts, best_fit=False)
    assert (len(first.run()) > 0) == (len(placements) > 0)
    placed = best.placed_claims
    for k, p in enumerate(placements):
        chosen = set(p.devices)
        only = [replace(s, devices=tuple(d for d in s.devices if d.id in chosen)) for s in w.slices]
        allocator = Allocator(
            w.device_classes, only, FEATURES, allocated=AllocatedState.from_claims([*w.claims, *placed[:k]])
        )
        node = w.node(p.node) or build_object(
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": p.node}}
        )
        out = allocator.allocate(node, shape.claims_for(k + 1), trace=False)  # type: ignore[arg-type]
        assert out.status == "allocated"
        assert sorted(r.device_id for res in out.results for r in res.results) == sorted(p.devices)
