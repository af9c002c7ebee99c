"""Hypothesis invariants of the matcher on random slices and claims (bounded).

Every allocation must satisfy selectors, constraints, counters, capacity and taints
and never hand out a device twice (except admin access and multi-allocatable
devices); allocating again is deterministic; the trace and the pruner never change
the answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.matcher import AllocatedState, AllocationInputs, Allocator, NodeOutcome, allocate, pruning
from dractl.matcher.api import FIXED_SHARE_ID
from dractl.model.build import build_object
from dractl.model.features import Features

FEATURES = Features.from_mapping(
    {
        "adminAccess": True,
        "consumableCapacity": True,
        "deviceTaints": True,
        "partitionableDevices": True,
        "prioritizedList": True,
    }
)
STABLE_FEATURES = Features.from_mapping({"consumableCapacity": False}, FEATURES)
NODE = build_object({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-1"}})
CLASSES = [
    build_object(
        {
            "kind": "DeviceClass",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": n},
            "spec": {"selectors": [{"cel": {"expression": e}}] if e else []},
        }
    )
    for n, e in (("any", None), ("model-a", 'device.attributes["driver-a"].model == "a"'))
]
COUNTER_TOTAL = 6


@st.composite
def devices(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 7))):
        d: dict[str, Any] = {
            "name": f"d{i}",
            "attributes": {
                "numa": {"int": draw(st.integers(0, 2))},
                "model": {"string": draw(st.sampled_from("ab"))},
            },
        }
        if draw(st.integers(0, 4)) == 0:
            d["taints"] = [
                {"key": "bad", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))}
            ]
        if draw(st.booleans()):
            d["consumesCounters"] = [
                {"counterSet": "cs", "counters": {"mem": {"value": str(draw(st.integers(1, 4)))}}}
            ]
        elif draw(st.integers(0, 3)) == 0:
            d["allowMultipleAllocations"] = True
            d["capacity"] = {"mem": {"value": "4"}}
        out.append(d)
    return out


@st.composite
def request(draw: st.DrawFn, name: str, distinct: bool) -> dict[str, Any]:
    exactly: dict[str, Any] = {
        "deviceClassName": draw(st.sampled_from(["any", "any", "model-a"])),
        "allocationMode": "ExactCount",
        "count": 1 if distinct else draw(st.integers(1, 2)),
    }
    if draw(st.integers(0, 5)) == 0:
        exactly["adminAccess"] = True
    if draw(st.integers(0, 3)) == 0:
        exactly["tolerations"] = [{"key": "bad", "operator": "Exists"}]
    if draw(st.integers(0, 3)) == 0:
        exactly["capacity"] = {"requests": {"mem": str(draw(st.integers(1, 3)))}}
    return {"name": name, "exactly": exactly}


@st.composite
def claims(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for ci in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from([None, "matchAttribute", "distinctAttribute"]))
        reqs = [draw(request(f"r{ri}", kind == "distinctAttribute")) for ri in range(draw(st.integers(1, 3)))]
        spec: dict[str, Any] = {"requests": reqs}
        if kind:
            spec["constraints"] = [{kind: draw(st.sampled_from(["driver-a/numa", "driver-a/model"]))}]
        out.append(
            {
                "kind": "ResourceClaim",
                "apiVersion": "resource.k8s.io/v1",
                "metadata": {"name": f"c{ci}"},
                "spec": {"devices": spec},
            }
        )
    return out


def _world(devs: list[dict[str, Any]], raw_claims: list[dict[str, Any]], busy: list[str]) -> AllocationInputs:
    slices = [
        {
            "driver": "driver-a",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
            "nodeName": "node-1",
            "sharedCounters": [{"name": "cs", "counters": {"mem": {"value": str(COUNTER_TOTAL)}}}],
        },
        {
            "driver": "driver-a",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
            "nodeName": "node-1",
            "devices": devs,
        },
    ]
    objs = [
        build_object(
            {
                "kind": "ResourceSlice",
                "apiVersion": "resource.k8s.io/v1",
                "metadata": {"name": f"s{i}"},
                "spec": s,
            }
        )
        for i, s in enumerate(slices)
    ]
    state = AllocatedState(devices=frozenset(f"driver-a/p/{b}" for b in busy))
    return AllocationInputs(NODE, CLASSES, objs, [build_object(c) for c in raw_claims], (), state)


def _run(inputs: AllocationInputs, trace: bool = True) -> NodeOutcome:
    return allocate(inputs, FEATURES, trace=trace, share_ids=lambda: FIXED_SHARE_ID)


def _check_invariants(inputs: AllocationInputs, devs: list[dict[str, Any]], outcome: NodeOutcome) -> None:
    by_name = {d["name"]: d for d in devs}
    exclusive: Counter[str] = Counter()
    counters_used = sum(
        int(
            by_name[b.rsplit("/", 1)[1]]
            .get("consumesCounters", [{}])[0]
            .get("counters", {})
            .get("mem", {})
            .get("value", 0)
        )
        for b in inputs.allocated.devices
    )
    multi_used: Counter[str] = Counter()
    counted: set[str] = set()
    for claim, res in zip(inputs.claims, outcome.results, strict=True):
        requests = {r.name: r.exactly for r in claim.spec.requests}
        for r in res.results:
            d, spec = by_name[r.device], requests[r.request]
            assert spec is not None
            if spec.device_class_name == "model-a":
                assert d["attributes"]["model"]["string"] == "a"
            taints = [t for t in d.get("taints", []) if t["effect"] != "None"]
            assert not taints or spec.tolerations
            multi = d.get("allowMultipleAllocations") is True
            if multi:
                multi_used[r.device] += int(r.consumed_capacity["mem"].value) if r.consumed_capacity else 0
            elif not r.admin_access:
                exclusive[r.device] += 1
                assert f"driver-a/p/{r.device}" not in inputs.allocated.devices
            if "consumesCounters" in d and not r.admin_access and r.device not in counted:
                counted.add(r.device)
                counters_used += int(d["consumesCounters"][0]["counters"]["mem"]["value"])
        _check_constraints(claim, res, by_name)
    assert all(n == 1 for n in exclusive.values())
    assert counters_used <= COUNTER_TOTAL
    assert all(used <= 4 for used in multi_used.values())


def _check_constraints(claim: Any, res: Any, by_name: dict[str, Any]) -> None:
    for c in claim.spec.constraints:
        attr = (c.match_attribute or c.distinct_attribute).split("/")[1]
        values = [next(iter(by_name[r.device]["attributes"][attr].values())) for r in res.results]
        if c.match_attribute:
            assert len(set(values)) <= 1
        else:
            assert len(set(values)) == len(values)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(devs=devices(), raw_claims=claims(), busy_bits=st.integers(0, 127))
def test_allocations_satisfy_every_rule(
    devs: list[dict[str, Any]], raw_claims: list[dict[str, Any]], busy_bits: int
) -> None:
    busy = [
        d["name"]
        for i, d in enumerate(devs)
        if busy_bits >> i & 1 and "allowMultipleAllocations" not in d and "consumesCounters" not in d
    ]
    inputs = _world(devs, raw_claims, busy)
    outcome = _run(inputs)
    assert outcome.status in ("allocated", "unallocatable")
    if outcome.status == "allocated":
        _check_invariants(inputs, devs, outcome)
    again = _run(inputs, trace=False)
    assert (again.status, again.results_dicts()) == (outcome.status, outcome.results_dicts())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(devs=devices(), raw_claims=claims())
def test_pruning_never_changes_the_answer(
    devs: list[dict[str, Any]],
    raw_claims: list[dict[str, Any]],
) -> None:
    inputs = _world(devs, raw_claims, [])
    saved = pruning.ACTIVATE_AFTER
    try:
        pruning.ACTIVATE_AFTER = 10**9
        plain = _run(inputs, trace=False)
        pruning.ACTIVATE_AFTER = 1
        pruned = _run(inputs, trace=False)
    finally:
        pruning.ACTIVATE_AFTER = saved
    assert (pruned.status, pruned.results_dicts()) == (plain.status, plain.results_dicts())
    assert pruned.trace.steps <= plain.trace.steps


@pytest.mark.parametrize("seed_claims", [1, 2])
def test_reallocating_after_release_is_deterministic(seed_claims: int) -> None:
    devs = [
        {"name": f"d{i}", "attributes": {"numa": {"int": i % 2}, "model": {"string": "a"}}} for i in range(6)
    ]
    raw = [
        {
            "kind": "ResourceClaim",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": f"c{i}"},
            "spec": {
                "devices": {
                    "requests": [{"name": "r", "exactly": {"deviceClassName": "any", "count": 2}}],
                    "constraints": [{"matchAttribute": "driver-a/numa"}],
                }
            },
        }
        for i in range(seed_claims)
    ]
    inputs = _world(devs, raw, [])
    first = _run(inputs)
    taken = [r.device for res in first.results for r in res.results]
    busy_world = _world(devs, raw, taken)
    assert _run(busy_world).results_dicts() != first.results_dicts() or not taken
    assert _run(_world(devs, raw, [])).results_dicts() == first.results_dicts()  # released again: same answer


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    devs=devices(),
    raw_claims=claims(),
    implementation=st.sampled_from(["stable", "incubating", "experimental"]),
    traces=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_a_reused_allocator_answers_like_a_fresh_one(
    devs: list[dict[str, Any]], raw_claims: list[dict[str, Any]], implementation: str, traces: list[bool]
) -> None:
    """One Allocator serving call after call, with each allocation committed (its per-node
    pools, candidates, selector verdicts and counters are kept between calls), answers
    exactly like a fresh Allocator built on the accumulated allocated state."""
    inputs = _world(devs, raw_claims, [])
    features = FEATURES if implementation != "stable" else STABLE_FEATURES
    reused = Allocator(
        inputs.device_classes,
        inputs.slices,
        features,
        share_ids=lambda: FIXED_SHARE_ID,
        implementation=implementation,
    )
    state = AllocatedState()
    for trace in traces:
        got = reused.allocate(NODE, inputs.claims, trace=trace)
        fresh = Allocator(
            inputs.device_classes,
            inputs.slices,
            features,
            allocated=state,
            share_ids=lambda: FIXED_SHARE_ID,
            implementation=implementation,
        ).allocate(NODE, inputs.claims, trace=trace)
        assert (got.status, got.error, got.results_dicts()) == (
            fresh.status,
            fresh.error,
            fresh.results_dicts(),
        )
        if trace:
            assert got.trace.decisions == fresh.trace.decisions
        if got.status != "allocated":
            break
        reused.commit(got.results)
        state = state.add(got.results)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(devs=devices(), raw_claims=claims(), busy_bits=st.integers(0, 127), data=st.data())
def test_a_candidate_order_is_a_pure_reordering(
    devs: list[dict[str, Any]], raw_claims: list[dict[str, Any]], busy_bits: int, data: st.DataObject
) -> None:
    """``allocate(order=...)`` (capacity --best-fit): the search stays complete (it fits exactly
    where the allocator's own order fits), every answer satisfies every rule, the identity
    order answers as no order, and the pruner (which then counts ranks) changes no answer."""
    busy = [
        d["name"]
        for i, d in enumerate(devs)
        if busy_bits >> i & 1 and "allowMultipleAllocations" not in d and "consumesCounters" not in d
    ]
    inputs = _world(devs, raw_claims, busy)

    def allocator() -> Allocator:
        return Allocator(
            inputs.device_classes,
            inputs.slices,
            FEATURES,
            allocated=inputs.allocated,
            share_ids=lambda: FIXED_SHARE_ID,
        )

    a = allocator()
    own = a.allocate(inputs.node, inputs.claims, trace=False)
    ids = a.candidate_ids(inputs.node)
    assert sorted(ids) == sorted(f"driver-a/p/{d['name']}" for d in devs)
    assert ids == [c.id for c in a.view(inputs.node).flat.all()]  # the positions order refers to
    order = data.draw(st.permutations(range(len(ids))))
    alt = a.allocate(inputs.node, inputs.claims, trace=False, order=order)
    assert alt.status == own.status
    if alt.status == "allocated":
        _check_invariants(inputs, devs, alt)
    same = a.allocate(inputs.node, inputs.claims, trace=False, order=list(range(len(ids))))
    assert (same.status, same.results_dicts()) == (own.status, own.results_dicts())
    saved = pruning.ACTIVATE_AFTER
    try:
        pruning.ACTIVATE_AFTER = 1
        pruned = allocator().allocate(inputs.node, inputs.claims, trace=False, order=order)
    finally:
        pruning.ACTIVATE_AFTER = saved
    assert (pruned.status, pruned.results_dicts()) == (alt.status, alt.results_dicts())
