"""The search end to end on small, table-driven cases (mostly selector-free classes)."""

from __future__ import annotations

import copy

import pytest
from matcher_builders import ALL, claim, dev, device_class, devices_of, node, req, run, slice_

from dractl.matcher import AllocatedState, Allocator, Reason
from dractl.model.features import Features

TWO = [slice_("s1", [dev("d1"), dev("d2")])]


@pytest.mark.parametrize(
    ("name", "slices", "claims", "expected", "steps"),
    [
        ("one-device", TWO, [claim("c", req("r"))], [["d1"]], 4),
        ("two-devices-in-order", TWO, [claim("c", req("r", count=2))], [["d1", "d2"]], 5),
        (
            "two-claims-share-nothing",
            TWO,
            [claim("c0", req("r")), claim("c1", req("r"))],
            [["d1"], ["d2"]],
            7,
        ),
        ("not-enough-devices", TWO, [claim("c", req("r", count=3))], [], None),
        (
            "pools-sorted-by-name",
            [slice_("s1", [dev("d1")], pool="pool-b"), slice_("s2", [dev("d1")], pool="pool-a")],
            [claim("c", req("r"))],
            [["d1"]],
            4,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_allocation_table(name: str, slices: list, claims: list, expected: list, steps: int | None) -> None:
    before = copy.deepcopy([c.raw for c in claims])
    outcome = run(slices, claims)
    assert devices_of(outcome) == expected
    assert outcome.status == ("allocated" if expected else "unallocatable")
    if steps is not None:
        assert outcome.trace.steps == steps
    assert [c.raw for c in claims] == before  # inputs untouched


def test_pool_order_is_driver_then_pool() -> None:
    slices = [slice_("s1", [dev("d1")], pool="pool-b"), slice_("s2", [dev("d1")], pool="pool-a")]
    outcome = run(slices, [claim("c", req("r"))])
    assert outcome.results[0].results[0].pool == "pool-a"


def test_in_use_devices_are_skipped_and_never_evaluated() -> None:
    # d1 is busy and has an attribute the selector cannot read: no CEL error may surface
    slices = [slice_("s1", [dev("d1"), dev("d2", attrs={"ok": True})])]
    c = claim("c", req("r", "class-a", 1, 'device.attributes["driver-a"].ok'))
    outcome = run(slices, [c], allocated=AllocatedState(devices=frozenset({"driver-a/pool-1/d1"})))
    assert devices_of(outcome) == [["d2"]]
    assert any(d.reason is Reason.IN_USE for d in outcome.trace.decisions)


def test_cel_runtime_error_fails_the_allocation_with_kubernetes_wording() -> None:
    slices = [slice_("s1", [dev("d1")])]
    c = claim("c", req("r", "class-a", 1, 'device.attributes["driver-a"].missing'))
    outcome = run(slices, [c])
    assert outcome.status == "error" and outcome.error_scope == "pod"
    assert outcome.error is not None
    assert outcome.error.startswith("claim c: selector #0 on device driver-a/pool-1/d1: CEL runtime error: ")


def test_first_available_takes_the_first_subrequest_that_fits() -> None:
    c = claim(
        "c",
        {
            "name": "r",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 3},
                {"name": "small", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 2},
            ],
        },
    )
    outcome = run(TWO, [c])
    assert [r.request for r in outcome.results[0].results] == ["r/small", "r/small"]


def test_prioritized_list_disabled_is_an_error() -> None:
    c = claim(
        "c",
        {
            "name": "r",
            "firstAvailable": [
                {"name": "a", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 1}
            ],
        },
    )
    outcome = run(TWO, [c], features=Features())
    assert outcome.error == (
        "claim c, request r: has subrequests, but the DRAPrioritizedList feature is disabled"
    )


def test_all_mode_takes_every_matching_device() -> None:
    c = claim("c", {"name": "r", "exactly": {"deviceClassName": "class-a", "allocationMode": "All"}})
    assert devices_of(run(TWO, [c])) == [["d1", "d2"]]


def test_all_mode_on_incomplete_pool_is_an_error() -> None:
    slices = [slice_("s1", [dev("d1")], count=2)]
    c = claim("c", {"name": "r", "exactly": {"deviceClassName": "class-a", "allocationMode": "All"}})
    outcome = run(slices, [c])
    assert outcome.error == (
        "claim c, request r: asks for all devices, but resource pool driver-a/pool-1 is "
        "currently being updated"
    )


def test_more_than_32_devices_is_an_error() -> None:
    outcome = run(TWO, [claim("c", req("r", count=33), namespace="ns")])
    assert outcome.error == "claim ns/c: number of requested devices 33 exceeds the claim limit of 32"


def test_admin_access_may_use_busy_devices() -> None:
    c = claim("c", req("r", adminAccess=True))
    outcome = run(TWO, [c], allocated=AllocatedState(devices=frozenset({"driver-a/pool-1/d1"})))
    assert devices_of(outcome) == [["d1"]]
    assert outcome.results[0].results[0].admin_access is True


def test_admin_access_requested_with_feature_off_is_an_error() -> None:
    outcome = run(TWO, [claim("c", req("r", adminAccess=True))], features=Features())
    assert outcome.error == "claim c, request r: admin access is requested, but the feature is disabled"


def test_unknown_class_is_an_error() -> None:
    outcome = run(TWO, [claim("c", req("r", "nope"))])
    assert outcome.error is not None
    assert outcome.error.startswith("claim c, request r: could not retrieve device class nope")


def test_invalid_pool_is_a_node_error_only_when_nothing_fits() -> None:
    dup = slice_("s1", [dev("d1"), dev("d1")], pool="bad")
    outcome = run([dup], [claim("c", req("r"))])
    assert (outcome.status, outcome.error, outcome.error_scope) == (
        "error",
        "invalid resource pools were encountered",
        "node",
    )
    assert devices_of(run([dup, *TWO], [claim("c", req("r"))])) == [["d1"]]


def test_match_attribute_backtracks_across_requests() -> None:
    slices = [
        slice_(
            "s1", [dev("d1", attrs={"numa": 0}), dev("d2", attrs={"numa": 1}), dev("d3", attrs={"numa": 1})]
        )
    ]
    c = claim("c", req("r0"), req("r1"), constraints=[{"matchAttribute": "driver-a/numa"}])
    assert devices_of(run(slices, [c])) == [["d2", "d3"]]


def test_distinct_attribute() -> None:
    slices = [
        slice_(
            "s1",
            [
                dev("d1", attrs={"model": "a"}),
                dev("d2", attrs={"model": "a"}),
                dev("d3", attrs={"model": "b"}),
            ],
        )
    ]
    c = claim("c", req("r0"), req("r1"), constraints=[{"distinctAttribute": "driver-a/model"}])
    assert devices_of(run(slices, [c])) == [["d1", "d3"]]


def test_taint_blocks_unless_tolerated() -> None:
    taint = {"key": "broken", "effect": "NoSchedule"}
    slices = [slice_("s1", [dev("d1", taints=[taint]), dev("d2")])]
    assert devices_of(run(slices, [claim("c", req("r"))])) == [["d2"]]
    tolerant = claim("c", req("r", tolerations=[{"key": "broken", "operator": "Exists"}]))
    assert devices_of(run(slices, [tolerant])) == [["d1"]]
    none_effect = [slice_("s1", [dev("d1", taints=[{"key": "k", "effect": "None"}])])]
    assert devices_of(run(none_effect, [claim("c", req("r"))])) == [["d1"]]


def test_taints_ignored_when_feature_off() -> None:
    slices = [slice_("s1", [dev("d1", taints=[{"key": "broken", "effect": "NoExecute"}])])]
    assert devices_of(run(slices, [claim("c", req("r"))], features=Features())) == [["d1"]]


def test_node_selector_in_result() -> None:
    sel = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}]}
    slices = [slice_("s1", [dev("d1")], node_name=None, nodeSelector=sel)]
    outcome = run(slices, [claim("c", req("r"))], the_node=node("n", zone="z1"))
    assert outcome.results[0].node_selector == sel
    assert run(slices, [claim("c", req("r"))], the_node=node("n", zone="z2")).status == "unallocatable"
    shared = [slice_("s1", [dev("d1")], node_name=None, allNodes=True)]
    assert run(shared, [claim("c", req("r"))]).results[0].node_selector is None


def test_class_config_and_claim_config() -> None:
    cls = device_class("class-a", config=[{"opaque": {"driver": "driver-a", "parameters": {"x": 1}}}])
    cfg = [{"requests": ["r0"], "opaque": {"driver": "driver-a", "parameters": {"y": 2}}}]
    outcome = run(TWO, [claim("c", req("r0"), req("r1"), config=cfg)], classes=[cls])
    res = outcome.results_dicts()[0]["devices"]
    assert res["config"] == [
        {"source": "FromClass", "opaque": {"driver": "driver-a", "parameters": {"x": 1}}},
        {"source": "FromClaim", "requests": ["r0"], "opaque": {"driver": "driver-a", "parameters": {"y": 2}}},
    ]


def test_trace_does_not_change_the_result() -> None:
    slices = [slice_("s1", [dev(f"d{i}", attrs={"numa": i % 2}) for i in range(6)])]
    c = claim("c", req("r0", count=2), req("r1"), constraints=[{"matchAttribute": "driver-a/numa"}])
    on, off = run(slices, [c], trace=True), run(slices, [c], trace=False)
    assert on.results_dicts() == off.results_dicts() and on.trace.steps == off.trace.steps
    assert on.trace.decisions and not off.trace.decisions


def test_max_steps_stops_the_search() -> None:
    slices = [slice_("s1", [dev(f"d{i}") for i in range(8)])]
    from dractl.matcher import AllocationInputs, allocate

    inputs = AllocationInputs(node(), [device_class()], slices, [claim("c", req("r", count=9))])
    outcome = allocate(inputs, ALL, max_steps=5)
    assert outcome.status == "error" and outcome.error == "allocation search stopped after 5 steps"


def test_allocated_state_from_claims() -> None:
    from dractl.model.build import build_object

    raw = {
        "kind": "ResourceClaim",
        "apiVersion": "resource.k8s.io/v1",
        "metadata": {"name": "x"},
        "spec": {"devices": {"requests": []}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "r", "driver": "d", "pool": "p", "device": "a"},
                        {"request": "r", "driver": "d", "pool": "p", "device": "b", "adminAccess": True},
                        {
                            "request": "r",
                            "driver": "d",
                            "pool": "p",
                            "device": "m",
                            "shareID": "s1",
                            "consumedCapacity": {"mem": "1Gi"},
                        },
                        {
                            "request": "r",
                            "driver": "d",
                            "pool": "p",
                            "device": "m",
                            "shareID": "s2",
                            "consumedCapacity": {"mem": "1Gi"},
                        },
                    ]
                }
            }
        },
    }
    state = AllocatedState.from_claims([build_object(raw)])  # type: ignore[list-item]
    assert state.devices == frozenset({"d/p/a"})
    assert state.shares == frozenset({"d/p/m/s1", "d/p/m/s2"})
    assert str(state.capacity["d/p/m"]["mem"]) == "2Gi"
    assert state.device_allocated("d/p/m") and not state.device_allocated("d/p/b")


def test_deep_searches_do_not_hit_the_recursion_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys, "getrecursionlimit", lambda: 1000)  # as in a fresh interpreter
    set_limits: list[int] = []
    real_set = sys.setrecursionlimit
    monkeypatch.setattr(sys, "setrecursionlimit", lambda n: (set_limits.append(n), real_set(max(n, 1000))))
    slices = [slice_("s", [dev(f"d{i:03d}") for i in range(400)])]
    outcome = run(slices, [claim(f"c{i}", req("r", count=32)) for i in range(12)])
    assert outcome.status == "allocated" and len(outcome.results) == 12
    assert set_limits and set_limits[0] > 1000 and set_limits[-1] == 1000


def _allocator(slices: list, allocated: AllocatedState | None = None) -> Allocator:
    return Allocator([device_class()], slices, ALL, allocated=allocated)


def test_a_candidate_order_changes_only_which_devices_are_tried_first() -> None:
    slices = [slice_("s1", [dev("d1"), dev("d2"), dev("d3")])]
    two = [claim("c", req("r", count=2))]
    a = _allocator(slices)
    assert a.candidate_ids(node()) == ["driver-a/pool-1/d1", "driver-a/pool-1/d2", "driver-a/pool-1/d3"]
    assert devices_of(a.allocate(node(), two)) == [["d1", "d2"]]
    assert devices_of(a.allocate(node(), two, order=[2, 0, 1])) == [["d3", "d1"]]
    assert devices_of(a.allocate(node(), two, order=[0, 1, 2])) == [["d1", "d2"]]
    # devices in use are skipped in any order; too few left fail in any order
    busy = _allocator(slices, AllocatedState(devices=frozenset({"driver-a/pool-1/d3"})))
    assert devices_of(busy.allocate(node(), two, order=[2, 1, 0])) == [["d2", "d1"]]
    three = [claim("c", req("r", count=3))]
    assert busy.allocate(node(), three, order=[2, 1, 0]).status == "unallocatable"


def test_a_candidate_order_keeps_constraints_and_counters() -> None:
    devs = [dev("a1", attrs={"numa": 0}), dev("b1", attrs={"numa": 1}), dev("b2", attrs={"numa": 1})]
    c = claim("c", req("r", count=2), constraints=[{"matchAttribute": "driver-a/numa"}])
    a = _allocator([slice_("s1", devs)])
    # a1 first: no second device with numa 0, so the search moves on to the b pair
    assert devices_of(a.allocate(node(), [c], order=[0, 2, 1])) == [["b2", "b1"]]


@pytest.mark.parametrize("order", [[0], [0, 0, 1], [0, 1, 3]])
def test_a_candidate_order_must_be_a_permutation(order: list[int]) -> None:
    a = _allocator([slice_("s1", [dev("d1"), dev("d2"), dev("d3")])])
    with pytest.raises(ValueError, match="permutation"):
        a.allocate(node(), [claim("c", req("r"))], order=order)
