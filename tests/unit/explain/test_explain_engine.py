"""The engine end to end on small worlds (classes without selectors: no CEL needed)."""

from __future__ import annotations

from typing import Any

import pytest
from explain_builders import claim, device_class, gpu, node, pod, slice_, template, world

from dractl.errors import InputError
from dractl.explain.engine import ExplainOptions, TargetSpec, explain
from dractl.explain.whatif import WhatIf
from dractl.io.world import World
from dractl.matcher import AllocatedState, AllocationInputs, allocate
from dractl.model.build import build_object
from dractl.model.features import Features

DRIVER = "gpu.example.com"


def _cluster(*extra: dict[str, Any]) -> World:
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "xid-79"},
        "spec": {
            "deviceSelector": {"driver": DRIVER, "pool": "n2", "device": "gpu-1"},
            "taint": {"key": "xid", "value": "79", "effect": "NoSchedule"},
        },
    }
    return world(
        device_class("gpu"),
        node("n1"),
        node("n2"),
        node("n3"),
        slice_("s1", "n1", [gpu("gpu-0"), gpu("gpu-1")]),
        slice_("s2", "n2", [gpu("gpu-0"), gpu("gpu-1")]),
        slice_("s3", "n3", [gpu("gpu-0")]),
        rule,
        claim("held", allocated_on="n1", devices=["gpu-0", "gpu-1"], reserved=1),
        *extra,
    )


def _spec(*claims: dict[str, Any]) -> TargetSpec:
    return TargetSpec(claim_objects=tuple(build_object(c) for c in claims))  # type: ignore[misc]


def _status(report: Any) -> dict[str, str]:
    return {n.name: n.status for n in report.nodes}


def test_fits_ranked_with_funnel_and_allocation_result() -> None:
    w = _cluster()
    report = explain(w, _spec(claim("two", count=2)), ExplainOptions())
    assert _status(report) == {"n1": "unschedulable", "n2": "unschedulable", "n3": "unschedulable"}
    assert report.summary == "fits on 0 of 3 nodes" and report.exit_code == 1
    n1 = next(n for n in report.nodes if n.name == "n1")
    assert n1.funnel[0].blocking is not None
    assert n1.funnel[0].blocking.reason == "in-use"
    assert "default/held (2)" in n1.funnel[0].blocking.message
    n2 = next(n for n in report.nodes if n.name == "n2")
    assert n2.funnel[0].blocking is not None and n2.funnel[0].blocking.reason == "taint-not-tolerated"
    assert "DeviceTaintRule `xid-79`" in n2.funnel[0].blocking.message
    one = explain(w, _spec(claim("one")), ExplainOptions())
    assert [n.name for n in one.nodes if n.status == "allocated"] == ["n2", "n3"]
    assert [n.rank for n in one.nodes[:2]] == [1, 2]
    alloc = one.nodes[0].allocations[0]
    assert alloc.result["devices"]["results"][0]["device"] == "gpu-0"
    assert alloc.result["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["n2"]
    assert one.nodes[0].steps >= 1


def test_node_option_and_unknown_node() -> None:
    w = _cluster()
    report = explain(w, _spec(claim("one")), ExplainOptions(node="n3"))
    assert [n.name for n in report.nodes] == ["n3"] and report.evaluated == 1
    with pytest.raises(InputError, match="node 'n4' not found"):
        explain(w, _spec(claim("one")), ExplainOptions(node="n4"))


def test_world_without_nodes_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no nodes"):
        explain(world(device_class("gpu")), _spec(claim("one")), ExplainOptions())


def test_nodes_taken_from_slices_when_no_node_objects() -> None:
    w = world(device_class("gpu"), slice_("s1", "n1", [gpu("gpu-0")]))
    report = explain(w, _spec(claim("one")), ExplainOptions())
    assert _status(report) == {"n1": "allocated"}
    assert any("no Node objects" in n for n in report.notes)


def test_missing_class_is_a_scheduler_error_for_the_pod() -> None:
    w = _cluster()
    report = explain(w, _spec(claim("one", cls="nope")), ExplainOptions())
    assert report.scheduler_error is not None and "nope" in report.scheduler_error
    assert report.exit_code == 1
    assert report.summary.startswith("the scheduler would fail to schedule it")


def test_pod_claims_together_template_and_pinned_claim() -> None:
    docs = [
        template("one-gpu"),
        claim("mine", allocated_on="n3", devices=["gpu-0"], reserved=0),
        pod(
            "p",
            claims=[
                {"name": "a", "resourceClaimName": "mine"},
                {"name": "b", "resourceClaimTemplateName": "one-gpu"},
            ],
        ),
    ]
    report = explain(_cluster(*docs), TargetSpec(pod_ref="p"), ExplainOptions())
    status = _status(report)
    # mine is pinned to n3, whose only GPU it already holds: the template claim can't fit there
    assert status == {"n1": "filtered", "n2": "filtered", "n3": "unschedulable"}
    assert "allocated on n3" in next(n for n in report.nodes if n.name == "n1").reasons[0]


def test_extended_resource_pod() -> None:
    docs = [device_class("gpu-er", ext="example.com/gpu"), pod("p", limits={"example.com/gpu": 1})]
    w = _cluster(*docs)
    report = explain(w, TargetSpec(pod_ref="p"), ExplainOptions())
    assert [n.name for n in report.nodes if n.status == "allocated"] == ["n2", "n3"]
    assert report.target["extendedResources"] == [{"resource": "example.com/gpu", "count": 1}]
    off = explain(
        w,
        TargetSpec(pod_ref="p"),
        ExplainOptions(features=Features.parse("DRAExtendedResource=false", Features.for_version("1.37"))),
    )
    assert off.target["extendedResources"] == []
    assert any("DRAExtendedResource is off" in n for n in off.notes)


def _matcher_statuses(w: World, claims: list[dict[str, Any]], features: Features) -> dict[str, str]:
    """Re-run the matcher directly, node by node, on a world (the what-if reference)."""
    state = AllocatedState.from_claims(w.claims)
    out = {}
    for n in w.nodes:
        res = allocate(
            AllocationInputs(
                n, w.device_classes, w.slices, [build_object(c) for c in claims], w.taint_rules, state
            ),
            features,
        )  # type: ignore[misc]
        out[n.meta.name] = {"allocated": "allocated", "unallocatable": "unschedulable"}.get(
            res.status, "error"
        )
    return out


@pytest.mark.parametrize(
    ("whatif", "modified"),
    [
        pytest.param(
            WhatIf(ignore_allocations=True),
            lambda: world(
                device_class("gpu"),
                node("n1"),
                node("n2"),
                node("n3"),
                slice_("s1", "n1", [gpu("gpu-0"), gpu("gpu-1")]),
                slice_("s2", "n2", [gpu("gpu-0"), gpu("gpu-1")]),
                slice_("s3", "n3", [gpu("gpu-0")]),
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceTaintRule",
                    "metadata": {"name": "xid-79"},
                    "spec": {
                        "deviceSelector": {"driver": DRIVER, "pool": "n2", "device": "gpu-1"},
                        "taint": {"key": "xid", "value": "79", "effect": "NoSchedule"},
                    },
                },
            ),
            id="ignore-allocations",
        ),
        pytest.param(
            WhatIf(ignore_taints=True),
            lambda: world(
                device_class("gpu"),
                node("n1"),
                node("n2"),
                node("n3"),
                slice_("s1", "n1", [gpu("gpu-0"), gpu("gpu-1")]),
                slice_("s2", "n2", [gpu("gpu-0"), gpu("gpu-1")]),
                slice_("s3", "n3", [gpu("gpu-0")]),
                claim("held", allocated_on="n1", devices=["gpu-0", "gpu-1"], reserved=1),
            ),
            id="ignore-taints",
        ),
        pytest.param(
            WhatIf(without_nodes=("n2",)),
            lambda: world(
                device_class("gpu"),
                node("n1"),
                node("n3"),
                slice_("s1", "n1", [gpu("gpu-0"), gpu("gpu-1")]),
                slice_("s3", "n3", [gpu("gpu-0")]),
                claim("held", allocated_on="n1", devices=["gpu-0", "gpu-1"], reserved=1),
            ),
            id="without-node",
        ),
    ],
)
@pytest.mark.parametrize("count", [1, 2])
def test_what_if_equals_matcher_on_modified_world(whatif: WhatIf, modified: Any, count: int) -> None:
    features = Features.for_version("1.37")
    c = claim("ask", count=count)
    got = _status(explain(_cluster(), _spec(c), ExplainOptions(features=features, whatif=whatif)))
    assert got == _matcher_statuses(modified(), [c], features)
    if count == 2:  # and the what-if changes the answer somewhere
        assert got != _status(explain(_cluster(), _spec(c), ExplainOptions(features=features)))


def test_feature_gate_what_if_equals_matcher() -> None:
    features = Features.parse("DRADeviceTaints=false", Features.for_version("1.37"))
    c = claim("ask", count=2)
    got = _status(explain(_cluster(), _spec(c), ExplainOptions(features=features)))
    assert got == _matcher_statuses(_cluster(), [c], features)
    assert got["n2"] == "allocated"


def test_world_not_mutated() -> None:
    w = _cluster()
    before = (w.claims, w.slices, w.nodes, w.taint_rules)
    explain(w, _spec(claim("one")), ExplainOptions(whatif=WhatIf(True, True, ("n1",))))
    assert (w.claims, w.slices, w.nodes, w.taint_rules) == before
    assert w.claims[0].allocation is not None


def test_to_dict_is_valid_against_schema() -> None:
    import json
    from pathlib import Path

    from jsonschema import Draft202012Validator

    schema = json.loads(
        (
            Path(__file__).resolve().parents[3] / "schemas" / "output" / "allocation-explanation.schema.json"
        ).read_text()
    )
    for spec in (_spec(claim("one")), _spec(claim("two", count=2)), _spec(claim("x", cls="nope"))):
        Draft202012Validator(schema).validate(
            explain(_cluster(), spec, ExplainOptions(best_fit=True)).to_dict()
        )


def test_cel_errors_on_devices_the_allocator_skips_are_warnings() -> None:
    incomplete = slice_("s9", "n1", [{"name": "odd", "attributes": {}}], pool="half")
    incomplete["spec"]["pool"]["resourceSliceCount"] = 2
    w = world(
        device_class("gpu", "device.attributes['gpu.example.com'].model == 'x'"),
        node("n1"),
        slice_("s1", "n1", [gpu("gpu-0", model="x"), {"name": "gpu-1", "attributes": {"index": {"int": 1}}}]),
        incomplete,
        claim("held", allocated_on="n1", devices=["gpu-1"], reserved=1),
    )
    report = explain(w, _spec(claim("one")), ExplainOptions())
    assert _status(report) == {"n1": "allocated"} and report.scheduler_error is None
    assert any("gpu.example.com/n1/gpu-1 (in use" in x and "no such key" in x for x in report.warnings)
    assert any("half/odd (in an incomplete pool" in x for x in report.warnings)


def test_network_attached_and_per_device_pools() -> None:
    zone = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "zone-a"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": "zone-a", "generation": 1, "resourceSliceCount": 1},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            },
            "devices": [gpu("fabric-0")],
        },
    }
    per_device = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "per-dev"},
        "spec": {
            "driver": "other.example.com",
            "perDeviceNodeSelection": True,
            "pool": {"name": "per-dev", "generation": 1, "resourceSliceCount": 1},
            "devices": [{**gpu("d0"), "nodeName": "n3"}],
        },
    }
    w = world(
        device_class("gpu"),
        device_class("other", "device.driver == 'other.example.com'"),
        node("n1", {"zone": "a"}),
        node("n2", {"zone": "b"}),
        node("n3", {"zone": "b"}),
        zone,
        per_device,
    )
    assert _status(explain(w, _spec(claim("one")), ExplainOptions())) == {
        "n1": "allocated",
        "n2": "unschedulable",
        "n3": "allocated",
    }
    assert _status(explain(w, _spec(claim("one", cls="other")), ExplainOptions())) == {
        "n1": "unschedulable",
        "n2": "unschedulable",
        "n3": "allocated",
    }
