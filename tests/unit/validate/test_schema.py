"""Structural (JSON Schema) findings: rule ids, Kubernetes field paths, the server's wording."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dractl.validate.findings import Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.schema import check_schema, k8s_path, load_schema


def slice_v1(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "driver": "gpu.example.com",
        "nodeName": "node-1",
        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
        "devices": [{"name": "gpu-0", "capacity": {"memory": {"value": "40Gi"}}}],
    }
    base.update(spec)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": base,
    }


def claim_v1(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", **request}]}},
    }


def findings(
    raw: dict[str, Any], kind: str = "ResourceSlice", version: str = "v1", **opts: Any
) -> list[tuple]:
    before = copy.deepcopy(raw)
    out = check_schema(raw, kind, version, ValidateOptions(**opts))
    assert raw == before, "the object must not be mutated"
    return sorted((f.rule, f.path, f.severity.value, f.error_type) for f in out)


def test_valid_slice_has_no_findings() -> None:
    assert findings(slice_v1()) == []


def test_valid_claim_has_no_findings() -> None:
    raw = claim_v1({"exactly": {"deviceClassName": "gpu.example.com", "count": 2}})
    assert findings(raw, "ResourceClaim") == []


CASES = [
    (
        "unknown-field-in-map-value",
        slice_v1(devices=[{"name": "d", "capacity": {"memory": {"value": "1Gi", "unit": "B"}}}]),
        [("SCHEMA-UNKNOWN-FIELD", "spec.devices[0].capacity[memory].unit", "error", None)],
    ),
    (
        "wrong-type",
        slice_v1(pool={"name": "p", "generation": "one", "resourceSliceCount": 1}),
        [("SCHEMA-TYPE", "spec.pool.generation", "error", "TypeInvalid")],
    ),
    (
        "missing-required",
        slice_v1(devices=[{"capacity": {}}]),
        [("SCHEMA-REQUIRED", "spec.devices[0].name", "error", "Required")],
    ),
    (
        "missing-generation-is-a-warning",
        slice_v1(pool={"name": "p", "resourceSliceCount": 1}),
        [("SCHEMA-REQUIRED-DEFAULTED", "spec.pool.generation", "warning", "Required")],
    ),
    (
        "missing-capacity-value-is-a-warning",
        slice_v1(devices=[{"name": "d", "capacity": {"memory": {}}}]),
        [("SCHEMA-REQUIRED-DEFAULTED", "spec.devices[0].capacity[memory].value", "warning", "Required")],
    ),
    (
        "missing-slice-count-is-invalid-not-required",
        slice_v1(pool={"name": "p", "generation": 0}),
        [("SCHEMA-REQUIRED", "spec.pool.resourceSliceCount", "error", "Invalid")],
    ),
    (
        "upper-case-K-is-not-a-quantity",
        slice_v1(devices=[{"name": "d", "capacity": {"memory": {"value": "1K"}}}]),
        [("SCHEMA-QUANTITY", "spec.devices[0].capacity[memory].value", "error", "Invalid")],
    ),
    (
        "quantity-must-not-be-a-bool",
        slice_v1(devices=[{"name": "d", "capacity": {"memory": {"value": True}}}]),
        [("SCHEMA-TYPE", "spec.devices[0].capacity[memory].value", "error", "TypeInvalid")],
    ),
    (
        "int64-overflow",
        slice_v1(pool={"name": "p", "generation": 2**63, "resourceSliceCount": 1}),
        [("SCHEMA-INT-RANGE", "spec.pool.generation", "error", "Invalid")],
    ),
    (
        "float-that-does-not-fit-int64",
        slice_v1(pool={"name": "p", "generation": 1e30, "resourceSliceCount": 1}),
        [("SCHEMA-INT-RANGE", "spec.pool.generation", "error", "Invalid")],
    ),
    (
        "attribute-map-key-with-dots",
        slice_v1(devices=[{"name": "d", "attributes": {"gpu.example.com/model": {"strin": "A100"}}}]),
        [("SCHEMA-UNKNOWN-FIELD", "spec.devices[0].attributes[gpu.example.com/model].strin", "error", None)],
    ),
    (
        "wrong-kind-enum",
        {**slice_v1(), "kind": "ResourceSlices"},
        [("SCHEMA-ENUM", "kind", "error", "NotSupported")],
    ),
    (
        "bad-timestamp",
        slice_v1(
            devices=[
                {"name": "d", "taints": [{"key": "k", "effect": "NoSchedule", "timeAdded": "yesterday"}]}
            ]
        ),
        [("SCHEMA-FORMAT", "spec.devices[0].taints[0].timeAdded", "error", "Invalid")],
    ),
]


@pytest.mark.parametrize("raw, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_structural_findings(raw: dict[str, Any], expected: list[tuple]) -> None:
    assert findings(raw) == sorted(expected)


@pytest.mark.parametrize(
    "value", ["1", "1.5", ".5", "1k", "1Ki", "500m", "1e3", "1E-3", " 2Gi ", 3, 0.5, None]
)
def test_quantities_the_server_accepts(value: Any) -> None:
    assert findings(slice_v1(devices=[{"name": "d", "capacity": {"m": {"value": value}}}])) == []


@pytest.mark.parametrize("value", ["1K", "1KiB", "abc", "", "1.2.3", "--1", "1e", "0x10"])
def test_quantities_the_server_rejects(value: str) -> None:
    got = findings(slice_v1(devices=[{"name": "d", "capacity": {"m": {"value": value}}}]))
    assert [g[0] for g in got] == ["SCHEMA-QUANTITY"]


def test_unknown_field_message_and_lenient_mode() -> None:
    raw = claim_v1({"exactly": {"deviceClassName": "c"}, "deviceClassName": "c"})
    strict = check_schema(raw, "ResourceClaim", "v1", ValidateOptions())
    assert [f.message for f in strict] == ['unknown field "spec.devices.requests[0].deviceClassName"']
    lenient = check_schema(raw, "ResourceClaim", "v1", ValidateOptions(lenient=True))
    assert [f.severity for f in lenient] == [Severity.WARNING]


def test_v1beta1_claim_shape_is_valid_in_v1beta1_only() -> None:
    raw = claim_v1({"deviceClassName": "gpu.example.com"})
    raw["apiVersion"] = "resource.k8s.io/v1beta1"
    assert findings(raw, "ResourceClaim", "v1beta1") == []
    raw["apiVersion"] = "resource.k8s.io/v1"
    assert ("SCHEMA-UNKNOWN-FIELD", "spec.devices.requests[0].deviceClassName", "error", None) in findings(
        raw, "ResourceClaim"
    )


def test_status_required_fields_are_skipped_unless_status_rules_are_on() -> None:
    raw = claim_v1({"exactly": {"deviceClassName": "c"}})
    raw["status"] = {"reservedFor": [{"resource": "pods"}]}
    assert findings(raw, "ResourceClaim") == []
    with_status = findings(raw, "ResourceClaim", status=True)
    assert ("SCHEMA-REQUIRED", "status.reservedFor[0].name", "error", "Required") in with_status


def test_opaque_parameters_are_free_form() -> None:
    raw = claim_v1({"exactly": {"deviceClassName": "c"}})
    raw["spec"]["devices"]["config"] = [{"opaque": {"driver": "d", "parameters": {"any": {"thing": [1]}}}}]
    assert findings(raw, "ResourceClaim") == []


def test_removed_fields_by_release() -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"deviceClassName": "gpu"}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    assert findings(rule, "DeviceTaintRule", "v1alpha3", kube_version="1.34") == []
    assert findings(rule, "DeviceTaintRule", "v1alpha3", kube_version="1.35") == [
        ("SCHEMA-UNKNOWN-FIELD", "spec.deviceSelector.deviceClassName", "error", None)
    ]


def test_k8s_path_notation() -> None:
    schema = load_schema("1.37", "ResourceSlice", "v1")
    assert schema is not None
    assert (
        k8s_path(schema, ["spec", "devices", 3, "attributes", "a.b/c", "int"])
        == "spec.devices[3].attributes[a.b/c].int"
    )
    assert k8s_path(schema, ["metadata", "labels", "app"]) == "metadata.labels[app]"
    assert k8s_path(schema, []) == ""


def test_missing_schema_raises_key_error() -> None:
    with pytest.raises(KeyError):
        check_schema({}, "ResourceClass", "v1alpha2", ValidateOptions())
