"""Feature gates (§12): fields of disabled gates are dropped (with a warning) before validation;
and update rules (UPD-…) against ``--old`` objects."""

from __future__ import annotations

import yaml
from test_rules_support import claim_obj, class_obj, errors, mutate, opts, slice_obj

from dractl.validate.rules import check_object
from dractl.validate.rules.update import old_objects

D0 = "spec__devices[0]"


def _warnings(obj: dict[str, object], o: object) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in check_object(obj, o) if f.severity.value == "warning"]  # type: ignore[arg-type]


def test_taints_dropped_in_135_with_a_warning() -> None:
    obj = mutate(slice_obj(), **{f"{D0}__taints": [{"key": "k", "effect": "Bogus"}]})
    o = opts("1.35")
    assert _warnings(obj, o) == [("WARN-DROPPED-FIELD", "spec.devices[0].taints")]
    assert errors(obj, o) == []  # dropped: the bad effect is never validated
    assert [f.rule for f in errors(obj, opts("1.35", "DRADeviceTaints=true"))] == ["RS-TAINT-EFFECT"]


def test_dropping_distinct_attribute_makes_the_constraint_fail() -> None:
    obj = mutate(claim_obj(), spec__devices__constraints=[{"distinctAttribute": "d.com/a"}])
    assert errors(obj, opts("1.37")) == []
    found = errors(obj, opts("1.35"))
    assert [(f.rule, f.path, f.message) for f in found] == [
        ("RC-CON-ATTR", "spec.devices.constraints[0].matchAttribute", "Required value")
    ]


def test_dropping_per_device_node_selection_makes_node_selection_fail() -> None:
    obj = mutate(
        slice_obj(), spec__nodeName=None, spec__perDeviceNodeSelection=True, **{f"{D0}__allNodes": True}
    )
    obj["spec"].pop("nodeName")
    assert errors(obj, opts("1.36")) == []
    assert [f.rule for f in errors(obj, opts("1.35"))] == ["RS-NODESEL-ONE"]


def test_list_attributes_dropped_leave_an_empty_attribute() -> None:
    obj = mutate(slice_obj(), **{f"{D0}__attributes__cores": {"ints": [1, 2]}})
    assert ("WARN-DROPPED-FIELD", "spec.devices[0].attributes[cores].ints") in _warnings(obj, opts())
    assert [f.rule for f in errors(obj)] == ["RS-ATTR-ONEOF"]
    assert errors(obj, opts(gates="DRAListTypeAttributes=true")) == []


def test_extended_resource_name_dropped_in_135() -> None:
    obj = mutate(class_obj(), spec__extendedResourceName="bad")
    assert _warnings(obj, opts("1.35")) == [("WARN-DROPPED-FIELD", "spec.extendedResourceName")]
    assert [f.rule for f in errors(obj, opts("1.36"))] == ["DC-EXTRES"]


def test_fields_that_do_not_exist_yet_are_left_to_the_schema() -> None:
    obj = mutate(slice_obj(), **{f"{D0}__nodeAllocatableResources": {"cpu": {}}})
    assert _warnings(obj, opts("1.36")) == []


def test_input_is_not_mutated_by_dropping() -> None:
    obj = mutate(slice_obj(), **{f"{D0}__taints": [{"key": "k", "effect": "NoSchedule"}]})
    before = yaml.safe_dump(obj)
    check_object(obj, opts("1.35"))
    assert yaml.safe_dump(obj) == before


def test_update_rules_against_old_objects() -> None:
    o = opts(old=old_objects([claim_obj(), slice_obj()]))
    changed = mutate(claim_obj(), **{"spec__devices__requests[0]__exactly__deviceClassName": "other"})
    assert [(f.rule, f.path, f.message) for f in errors(changed, o)] == [
        (
            "UPD-RC-SPEC",
            "spec",
            'Invalid value: {"devices":{"requests":[{"exactly":{"deviceClassName":"other"},"name":"gpu"}]}}: '
            "field is immutable",
        )
    ]
    assert errors(claim_obj(), o) == []
    moved = mutate(slice_obj(), spec__nodeName="node-2", spec__pool__name="node-2")
    assert [(f.rule, f.path) for f in errors(moved, o)] == [
        ("UPD-RS-FIELDS", "spec.pool.name"),
        ("UPD-RS-FIELDS", "spec.nodeName"),
    ]
    renamed = mutate(slice_obj(), metadata__name="other")  # no old object: a create
    assert errors(renamed, o) == []


def test_update_of_a_claim_checks_only_immutability() -> None:
    bad = mutate(claim_obj(), **{"spec__devices__requests[0]__name": "BAD"})
    o = opts(old=old_objects([bad]))
    assert errors(bad, o) == []  # stored spec, unchanged: not re-validated
    assert [f.rule for f in errors(bad)] == ["RC-REQ-NAME"]


def test_update_of_a_class_keeps_stored_selectors() -> None:
    bad = mutate(class_obj(), spec__selectors=[{"cel": {"expression": "len("}}])
    o = opts(old=old_objects([bad]))
    assert errors(bad, o) == []  # RC-CEL-STORED: unchanged selectors are not compiled
    changed = mutate(bad, spec__selectors=[{"cel": {"expression": "len("}}, {"cel": {"expression": "true"}}])
    assert [f.rule for f in errors(changed, o)] == ["RC-CEL-COMPILE"]


def test_update_keeps_gated_fields_the_old_object_used() -> None:
    stored = mutate(slice_obj(), **{f"{D0}__taints": [{"key": "k", "effect": "NoSchedule"}]})
    o = opts("1.35", old=old_objects([stored]))
    changed = mutate(stored, **{f"{D0}__taints[0]__effect": "Bogus"})
    assert [f.rule for f in errors(changed, o)] == ["RS-TAINT-EFFECT"]  # not dropped on update
    assert errors(changed, opts("1.35")) == []  # on create the taints are dropped


def test_status_update_rules() -> None:
    uid = "7c1a3f0e-3b9e-4a8e-9c51-0d2b8b1f7a55"
    result = {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
    allocated = mutate(claim_obj(), status={"allocation": {"devices": {"results": [result]}}})
    o = opts(status=True, old=old_objects([allocated]))
    moved = mutate(allocated, **{"status__allocation__devices__results[0]__device": "gpu-1"})
    assert [(f.rule, f.path) for f in errors(moved, o)] == [("UPD-RCS-ALLOC", "status.allocation")]
    deleting = mutate(
        allocated,
        metadata__deletionTimestamp="2026-01-01T00:00:00Z",
        status__reservedFor=[{"resource": "pods", "name": "p", "uid": uid}],
    )
    assert [f.rule for f in errors(deleting, o)] == ["RCS-RESERVED-DELETING"]


def test_update_skips_unchanged_capacity_and_taints() -> None:
    stored = mutate(
        slice_obj(),
        **{
            f"{D0}__capacity__memory__requestPolicy": {"default": "1Gi", "validValues": ["1Gi"]},
            f"{D0}__taints": [{"key": "k", "effect": "Unknown"}],
        },
    )
    assert {f.rule for f in errors(stored)} == {"RS-CAP-POLICY-NEEDS-MULTI", "RS-TAINT-EFFECT"}
    o = opts(old=old_objects([stored]))
    assert errors(stored, o) == []  # stored, unchanged: grandfathered
    changed = mutate(stored, **{f"{D0}__capacity__memory__value": "80Gi"})
    assert [f.rule for f in errors(changed, o)] == ["RS-CAP-POLICY-NEEDS-MULTI"]
