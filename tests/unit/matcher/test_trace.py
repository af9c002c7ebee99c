"""The trace: reasons in the allocator's order of checks, rule names, counts."""

from __future__ import annotations

from matcher_builders import claim, dev, device_class, req, run, slice_

from dractl.matcher import AllocatedState, Reason
from dractl.model.build import build_object


def _reasons(outcome: object) -> dict[str, Reason]:
    return {d.device_id: d.reason for d in outcome.trace.decisions if d.device_id}  # type: ignore[attr-defined]


def test_first_failing_check_is_recorded() -> None:
    slices = [slice_("s", [dev("busy"), dev("wrong", attrs={"ok": False}), dev("good", attrs={"ok": True})])]
    cls = device_class("class-a", 'device.attributes["driver-a"].ok')
    outcome = run(
        slices,
        [claim("c", req("r"))],
        classes=[cls],
        allocated=AllocatedState(devices=frozenset({"driver-a/pool-1/busy"})),
    )
    assert _reasons(outcome) == {
        "driver-a/pool-1/busy": Reason.IN_USE,
        "driver-a/pool-1/wrong": Reason.CLASS_SELECTOR_FALSE,
    }
    (count,) = outcome.trace.counts
    assert count.considered == 3 and count.chosen == ("driver-a/pool-1/good",)
    assert count.rejected == {Reason.IN_USE: 1, Reason.CLASS_SELECTOR_FALSE: 1}


def test_taint_from_rule_is_named() -> None:
    rule = build_object(
        {
            "apiVersion": "resource.k8s.io/v1beta2",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "maintenance"},
            "spec": {"deviceSelector": {"device": "d1"}, "taint": {"key": "maint", "effect": "NoSchedule"}},
        }
    )
    from dractl.model.features import Features

    features = Features.from_mapping({"deviceTaints": True, "deviceTaintRules": True})
    outcome = run(
        [slice_("s", [dev("d1"), dev("d2")])], [claim("c", req("r"))], taint_rules=[rule], features=features
    )
    (decision,) = [d for d in outcome.trace.decisions if d.device_id]
    assert decision.reason is Reason.TAINT_NOT_TOLERATED and "DeviceTaintRule maintenance" in decision.detail
    assert outcome.results[0].results[0].device == "d2"


def test_pool_incomplete_is_noted() -> None:
    outcome = run([slice_("s", [dev("d1")], count=2)], [claim("c", req("r"))])
    assert outcome.status == "unallocatable"
    assert [(d.device_id, d.reason) for d in outcome.trace.decisions] == [
        ("driver-a/pool-1", Reason.POOL_INCOMPLETE)
    ]


def test_trace_to_dict_is_json_ready() -> None:
    import json

    outcome = run(
        [slice_("s", [dev("d1", attrs={"n": 0}), dev("d2", attrs={"n": 1})])],
        [claim("c", req("r0"), req("r1"), constraints=[{"matchAttribute": "driver-a/n"}])],
    )
    data = json.loads(json.dumps(outcome.trace.to_dict()))
    assert data["steps"] == outcome.trace.steps and data["counts"][0]["request"] == "r0"


def test_v1alpha3_rule_with_class_and_selector() -> None:
    from dractl.model.features import Features

    rule = build_object(
        {
            "apiVersion": "resource.k8s.io/v1alpha3",
            "kind": "DeviceTaintRule",
            "metadata": {"name": "old-model"},
            "spec": {
                "deviceSelector": {
                    "deviceClassName": "class-a",
                    "selectors": [{"cel": {"expression": 'device.attributes["driver-a"].old'}}],
                },
                "taint": {"key": "deprecated", "effect": "NoExecute"},
            },
        }
    )
    features = Features.from_mapping({"deviceTaints": True, "deviceTaintRules": True})
    slices = [slice_("s", [dev("d1", attrs={"old": True}), dev("d2", attrs={"old": False}), dev("d3")])]
    outcome = run(slices, [claim("c", req("r", count=2))], taint_rules=[rule], features=features)
    assert [r.device for r in outcome.results[0].results] == ["d2", "d3"]  # d3: selector error, untainted


def test_all_mode_without_devices_is_noted() -> None:
    c = claim("c", {"name": "r", "exactly": {"deviceClassName": "class-a", "allocationMode": "All"}})
    outcome = run(
        [slice_("s", [dev("d1")], driver="driver-b")],
        [c],
        classes=[device_class("class-a", 'device.driver == "driver-a"')],
    )
    assert outcome.status == "unallocatable"
    assert [(d.request, d.reason) for d in outcome.trace.decisions] == [
        ("r", Reason.NO_DEVICES),
        ("r", Reason.CLASS_SELECTOR_FALSE),
    ]
