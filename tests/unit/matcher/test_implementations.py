"""The three upstream allocator implementations: which one Kubernetes picks, and the
edge cases where ``stable`` answers differently from ``incubating``/``experimental``.

Each difference is checked both ways: the stable answer under ``auto`` (features for
which Kubernetes picks stable) and the incubating answer when incubating is forced
with the same features, so a test fails if either side loses its behaviour.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from matcher_builders import claim, dev, devices_of, node, req, run, slice_

from dractl.matcher import AllocatedState, UnsupportedFeatures, choose
from dractl.matcher.implementations import ALLOCATOR_FEATURES, IMPLEMENTATIONS, supporting, supports
from dractl.model.build import build_object
from dractl.model.features import Features

STABLE_SET = Features.from_mapping(
    {"adminAccess": True, "prioritizedList": True, "partitionableDevices": True, "deviceTaints": True}
)
TAINTS_AND_RULES = Features.from_mapping({"deviceTaints": True, "DRADeviceTaintRules": True})


@pytest.mark.parametrize(
    ("version", "expected"),
    [("1.34", "stable"), ("1.35", "stable"), ("1.36", "incubating"), ("1.37", "incubating")],
)
def test_auto_picks_what_kubernetes_picks_for_the_release_defaults(version: str, expected: str) -> None:
    assert choose(Features.for_version(version)) == expected


def test_auto_picks_the_first_implementation_that_covers_the_features() -> None:
    assert choose(STABLE_SET) == "stable"
    assert choose(Features.from_mapping({"DRAConsumableCapacity": True})) == "incubating"
    assert choose(Features.from_mapping({"DRADeviceBindingConditions": True})) == "incubating"
    assert choose(Features.from_mapping({"DRAListTypeAttributes": True})) == "experimental"
    # gates the allocator does not know take no part in the choice
    assert (
        choose(Features.from_mapping({"DRADeviceTaintRules": True, "DRAExtendedResource": True})) == "stable"
    )
    assert supporting(Features.from_mapping({"DRAConsumableCapacity": True})) == (
        "incubating",
        "experimental",
    )


def test_forcing_an_implementation_that_lacks_a_feature_is_an_error() -> None:
    with pytest.raises(UnsupportedFeatures, match=r"'stable' does not support .*DRAConsumableCapacity"):
        choose(Features.for_version("1.37"), "stable")
    with pytest.raises(UnsupportedFeatures, match="DRAListTypeAttributes"):
        choose(Features.from_mapping({"DRAListTypeAttributes": True}), "incubating")
    with pytest.raises(ValueError, match="unknown allocator implementation 'beta'"):
        choose(STABLE_SET, "beta")
    assert choose(STABLE_SET, "experimental") == "experimental"


def test_outcome_names_the_implementation() -> None:
    slices = [slice_("s", [dev("d0")])]
    assert run(slices, [claim("c", req("r"))], features=STABLE_SET).implementation == "stable"
    assert (
        run(slices, [claim("c", req("r"))], features=STABLE_SET, implementation="experimental").implementation
        == "experimental"
    )


def _two_pools() -> list[Any]:
    # input order: pool-b's slice first, then pool-a's; within pool-a, slice "a-2" before "a-1"
    return [
        slice_("b-1", [dev("b0")], pool="pool-b"),
        slice_("a-2", [dev("a2")], pool="pool-a", count=2),
        slice_("a-1", [dev("a1")], pool="pool-a", count=2),
    ]


def test_stable_walks_pools_in_input_order_others_sort_them() -> None:
    one = [claim("c", req("r"))]
    assert devices_of(run(_two_pools(), one, features=STABLE_SET)) == [["b0"]]
    assert devices_of(run(_two_pools(), one, features=STABLE_SET, implementation="incubating")) == [["a1"]]


def test_stable_walks_slices_of_a_pool_in_input_order_others_by_name() -> None:
    slices = _two_pools()[1:]
    two = [claim("c", req("r", count=2))]
    assert devices_of(run(slices, two, features=STABLE_SET)) == [["a2", "a1"]]
    assert devices_of(run(slices, two, features=STABLE_SET, implementation="incubating")) == [["a1", "a2"]]


def test_stable_keeps_pools_with_binding_conditions_in_place() -> None:
    slices = [
        slice_("a", [dev("a0", bindingConditions=["ready"])], pool="pool-a"),
        slice_("b", [dev("b0")], pool="pool-b"),
    ]
    both = [claim("c", req("r"))]
    # binding conditions with the feature off: the device is not selectable either way
    assert devices_of(run(slices, both, features=STABLE_SET)) == [["b0"]]
    assert devices_of(run(slices, both, features=STABLE_SET, implementation="incubating")) == [["b0"]]


def test_stable_rejects_distinct_attribute_as_an_unknown_constraint() -> None:
    slices = [slice_("s", [dev("d0", attrs={"numa": 0}), dev("d1", attrs={"numa": 1})])]
    claims = [claim("c", req("r", count=2), constraints=[{"distinctAttribute": "driver-a/numa"}])]
    stable = run(slices, claims, features=STABLE_SET)
    assert stable.status == "error"
    assert stable.error == "claim c, constraint #0: empty constraint (unsupported constraint type?)"
    assert devices_of(run(slices, claims, features=STABLE_SET, implementation="incubating")) == [["d0", "d1"]]


def test_stable_ignores_capacity_requests_incubating_rejects_them() -> None:
    slices = [slice_("s", [dev("d0", capacity={"mem": {"value": "8Gi"}})])]
    claims = [claim("c", req("r", capacity={"requests": {"mem": "1Gi"}}))]
    assert devices_of(run(slices, claims, features=STABLE_SET)) == [["d0"]]
    inc = run(slices, claims, features=STABLE_SET, implementation="incubating")
    assert inc.status == "error"
    assert inc.error is not None and "DRAConsumableCapacity feature is disabled" in inc.error


def _counter_pool(consumer_node: str, counter_set: str) -> list[Any]:
    counters = slice_(
        "counters",
        [],
        node_name=None,
        allNodes=True,
        count=2,
        sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}],
    )
    devices = slice_(
        "devices",
        [dev("p0", consumesCounters=[{"counterSet": counter_set, "counters": {"mem": {"value": "8"}}}])],
        node_name=consumer_node,
        count=2,
    )
    return [counters, devices]


def test_stable_takes_counter_slices_of_other_nodes_and_sees_their_invalid_pools() -> None:
    # The pool's devices are on node-2 and consume a counter set that does not exist.
    # Allocating on node-1: stable takes the pool (its counter slice is always relevant),
    # finds it invalid and says so; incubating never looks at the pool.
    slices = _counter_pool("node-2", "missing")
    claims = [claim("c", req("r"))]
    stable = run(slices, claims, features=STABLE_SET, the_node=node("node-1"))
    assert (stable.status, stable.error) == ("error", "invalid resource pools were encountered")
    inc = run(slices, claims, features=STABLE_SET, the_node=node("node-1"), implementation="incubating")
    assert inc.status == "error"  # allNodes counter slice is relevant for incubating too
    counters_on_other_node = [
        slice_(
            "counters",
            [],
            node_name="node-3",
            count=2,
            sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}],
        ),
        slices[1],
    ]
    stable = run(counters_on_other_node, claims, features=STABLE_SET, the_node=node("node-1"))
    assert stable.error == "invalid resource pools were encountered"
    inc = run(
        counters_on_other_node,
        claims,
        features=STABLE_SET,
        the_node=node("node-1"),
        implementation="incubating",
    )
    assert (inc.status, inc.error) == ("unallocatable", None)


def test_stable_does_not_see_shares_of_other_claims_in_counters() -> None:
    slices = _counter_pool("node-1", "gpu-0")
    state = AllocatedState(shares=frozenset({"driver-a/pool-1/p0/aaaaaaaa-0000-0000-0000-000000000000"}))
    claims = [claim("c", req("r"))]
    assert devices_of(run(slices, claims, features=STABLE_SET, allocated=state)) == [["p0"]]
    inc = run(slices, claims, features=STABLE_SET, allocated=state, implementation="incubating")
    assert inc.status == "unallocatable"


def _rule(*selectors: str) -> Any:
    return build_object(
        {
            "kind": "DeviceTaintRule",
            "apiVersion": "resource.k8s.io/v1alpha3",
            "metadata": {"name": "bad-gpus"},
            "spec": {
                "deviceSelector": {"selectors": [{"cel": {"expression": e}} for e in selectors]},
                "taint": {"key": "broken", "effect": "NoSchedule"},
            },
        }
    )


def test_taint_rule_selector_error_does_not_taint_and_is_reported() -> None:
    slices = [slice_("s", [dev("d0", attrs={"model": "a100"}), dev("d1")])]
    # d1 has no "model" attribute: the rule's selector fails on it (runtime error)
    rule = _rule('device.attributes["driver-a"].model == "a100"')
    out = run(slices, [claim("c", req("r", count=2))], features=TAINTS_AND_RULES, taint_rules=[rule])
    assert out.status == "unallocatable"  # d0 tainted, d1 not: only one device usable
    assert len(out.warnings) == 1
    warning = out.warnings[0]
    assert warning.startswith(
        "DeviceTaintRule bad-gpus: selector #0 on device driver-a/pool-1/d1: runtime error:"
    )
    assert "no such key" in warning
    one = run(slices, [claim("c", req("r"))], features=TAINTS_AND_RULES, taint_rules=[rule])
    assert devices_of(one) == [["d1"]]


def test_taint_rule_warnings_only_name_devices_the_node_sees() -> None:
    slices = [slice_("s", [dev("d1")]), slice_("t", [dev("e1")], node_name="node-2", pool="pool-2")]
    rule = _rule('device.attributes["driver-a"].model == "a100"')
    out = run(slices, [claim("c", req("r"))], features=TAINTS_AND_RULES, taint_rules=[rule])
    assert [w.split(" on device ")[1].split(":")[0] for w in out.warnings] == ["driver-a/pool-1/d1"]


def test_stable_does_not_pass_allow_multiple_allocations_to_cel() -> None:
    slices = [slice_("s", [dev("d0", allowMultipleAllocations=True)])]
    claims = [claim("c", req("r", "class-a", 1, "device.allowMultipleAllocations"))]
    assert run(slices, claims, features=STABLE_SET).status == "unallocatable"
    assert devices_of(run(slices, claims, features=STABLE_SET, implementation="incubating")) == [["d0"]]


def test_stable_does_not_pin_the_node_for_binds_to_node() -> None:
    slices = [slice_("s", [dev("d0", bindsToNode=True)], node_name=None, allNodes=True)]
    claims = [claim("c", req("r"))]
    stable = run(slices, claims, features=STABLE_SET)
    assert stable.status == "allocated" and stable.results[0].node_selector is None
    inc = run(slices, claims, features=STABLE_SET, implementation="incubating")
    assert inc.results[0].node_selector == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
        ]
    }


def test_auto_table_agrees_with_the_definition_for_every_combination() -> None:
    # choose looks its answer up in a table of constants; the definition: the first
    # implementation, in upstream's order, that supports every enabled allocator feature
    names = list(ALLOCATOR_FEATURES)
    picked = set()
    for bits in range(2 ** len(names)):
        features = dataclasses.replace(
            Features(), **{name: bool(bits >> i & 1) for i, name in enumerate(names)}
        )
        expected = next(i for i in IMPLEMENTATIONS if supports(i, features))
        assert choose(features) == expected == supporting(features)[0]
        picked.add(expected)
    assert picked == set(IMPLEMENTATIONS)


def test_auto_with_gate_values_that_are_not_bools() -> None:
    # not in the table: the same answer, worked out
    truthy = dataclasses.replace(Features(), list_type_attributes="yes")  # type: ignore[arg-type]
    assert choose(truthy) == "experimental"
    assert choose(dataclasses.replace(Features(), admin_access="yes")) == "stable"  # type: ignore[arg-type]
