"""Metadata (META-…), DeviceClass (DC-…) and DeviceTaintRule (DTR-…) rules."""

from __future__ import annotations

import pytest
from test_rules_support import (
    DELETE,
    LABEL_MSG,
    SUBDOMAIN_MSG,
    Case,
    check_case,
    claim_obj,
    class_obj,
    errors,
    mutate,
    opts,
    slice_obj,
    taint_rule_obj,
)

from dractl.validate.rules import check_object

CASES = [
    Case(
        "name-required",
        claim_obj,
        {"metadata__name": DELETE},
        "META-NAME-REQ",
        "Required",
        "metadata.name",
        "Required value: name or generateName is required",
        {"metadata__generateName": "c-"},
    ),
    Case(
        "name-format",
        slice_obj,
        {"metadata__name": "Node_1"},
        "META-NAME-FMT",
        "Invalid",
        "metadata.name",
        f'Invalid value: "Node_1": {SUBDOMAIN_MSG}',
        {"metadata__name": "node-1"},
    ),
    Case(
        "name-too-long",
        class_obj,
        {"metadata__name": "a" * 254},
        "META-NAME-FMT",
        "Invalid",
        "metadata.name",
        f'Invalid value: "{"a" * 254}": must be no more than 253 characters',
        {"metadata__name": "a" * 253},
    ),
    Case(
        "generate-name",
        claim_obj,
        {"metadata__generateName": "Claim-"},
        "META-GENNAME",
        "Invalid",
        "metadata.generateName",
        f'Invalid value: "Claim-": {SUBDOMAIN_MSG}',
        {"metadata__generateName": "claim-"},
    ),
    Case(
        "namespace-format",
        claim_obj,
        {"metadata__namespace": "team.a"},
        "META-NS-REQ",
        "Invalid",
        "metadata.namespace",
        'Invalid value: "team.a": must not contain dots',
        {"metadata__namespace": "team-a"},
    ),
    Case(
        "generation",
        claim_obj,
        {"metadata__generation": -1},
        "META-GENERATION",
        "Invalid",
        "metadata.generation",
        "Invalid value: -1: must be greater than or equal to 0",
        {"metadata__generation": 1},
    ),
    Case(
        "labels",
        claim_obj,
        {"metadata__labels": {"app": "-bad-"}},
        "META-LABELS",
        "Invalid",
        "metadata.labels",
        'Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
        "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        {"metadata__labels": {"app": "good"}},
    ),
    Case(
        "annotations-key",
        claim_obj,
        {"metadata__annotations": {"a/b/c": "x"}},
        "META-ANNOT",
        "Invalid",
        "metadata.annotations",
        "Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
        "and '/' (e.g. 'example.com/MyName')",
        {"metadata__annotations": {"b/c": "x"}},
    ),
    Case(
        "annotations-size",
        claim_obj,
        {"metadata__annotations": {"a": "x" * 262144}},
        "META-ANNOT",
        "TooLong",
        "metadata.annotations",
        "Too long: may not be more than 262144 bytes",
        {"metadata__annotations": {"a": "x"}},
    ),
    # DeviceClass
    Case(
        "class-selectors-max",
        class_obj,
        {"spec__selectors": [{"cel": {"expression": "true"}}] * 33},
        "DC-SEL",
        "TooMany",
        "spec.selectors",
        "Too many: 33: must have at most 32 items",
        {"spec__selectors": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "class-selector-cel",
        class_obj,
        {"spec__selectors": [{"expression": "true"}]},
        "DC-SEL",
        "Required",
        "spec.selectors[0].cel",
        "Required value",
        {"spec__selectors": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "class-config-max",
        class_obj,
        {"spec__config": [{"opaque": {"driver": "d.com", "parameters": {}}}] * 33},
        "DC-CFG",
        "TooMany",
        "spec.config",
        "Too many: 33: must have at most 32 items",
        {"spec__config": DELETE},
    ),
    Case(
        "class-config-opaque",
        class_obj,
        {"spec__config": [{}]},
        "DC-CFG",
        "Required",
        "spec.config[0].opaque",
        "Required value",
        {"spec__config": [{"opaque": {"driver": "d.com", "parameters": {"a": 1}}}]},
    ),
    Case(
        "class-extended-resource",
        class_obj,
        {"spec__extendedResourceName": "gpu"},
        "DC-EXTRES",
        "Invalid",
        "spec.extendedResourceName",
        'Invalid value: "gpu": must be a valid extended resource name',
        {"spec__extendedResourceName": "example.com/gpu"},
    ),
    Case(
        "class-extended-resource-native",
        class_obj,
        {"spec__extendedResourceName": "kubernetes.io/gpu"},
        "DC-EXTRES",
        "Invalid",
        "spec.extendedResourceName",
        'Invalid value: "kubernetes.io/gpu": must be a valid extended resource name',
        {"spec__extendedResourceName": "example.com/gpu"},
    ),
    # DeviceTaintRule
    Case(
        "dtr-driver",
        taint_rule_obj,
        {"spec__deviceSelector__driver": "Bad_Driver"},
        "DTR-SEL-FIELDS",
        "Invalid",
        "spec.deviceSelector.driver",
        f'Invalid value: "Bad_Driver": {SUBDOMAIN_MSG}',
        {"spec__deviceSelector__driver": "gpu.example.com"},
    ),
    Case(
        "dtr-device",
        taint_rule_obj,
        {"spec__deviceSelector__device": "GPU"},
        "DTR-SEL-FIELDS",
        "Invalid",
        "spec.deviceSelector.device",
        f'Invalid value: "GPU": {LABEL_MSG}',
        {"spec__deviceSelector__device": "gpu"},
    ),
    Case(
        "dtr-pool",
        taint_rule_obj,
        {"spec__deviceSelector__pool": ""},
        "DTR-SEL-FIELDS",
        "Required",
        "spec.deviceSelector.pool",
        "Required value",
        {"spec__deviceSelector__pool": "p"},
    ),
    Case(
        "dtr-taint-effect",
        taint_rule_obj,
        {"spec__taint__effect": "Evict"},
        "DTR-TAINT",
        "NotSupported",
        "spec.taint.effect",
        'Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule", "None"',
        {"spec__taint__effect": "NoExecute"},
    ),
    Case(
        "dtr-taint-key",
        taint_rule_obj,
        {"spec__taint__key": ""},
        "DTR-TAINT",
        "Invalid",
        "spec.taint.key",
        'Invalid value: "": name part must be non-empty',
        {"spec__taint__key": "k"},
    ),
    Case(
        "dtr-status-conditions",
        taint_rule_obj,
        {
            "status": {
                "conditions": [
                    {
                        "type": "EvictionInProgress",
                        "status": "Maybe",
                        "reason": "R",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ]
            }
        },
        "DTR-STATUS",
        "NotSupported",
        "status.conditions[0].status",
        'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        {"status__conditions[0]__status": "True"},
        status=True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_meta_class_taint_rule(case: Case) -> None:
    check_case(case)


def test_cluster_scoped_namespace_is_ignored_with_a_warning() -> None:
    found = check_object(mutate(class_obj(), metadata__namespace="default"), opts())
    assert [(f.rule, f.severity.value) for f in found] == [("META-NS-FORBID", "warning")]


def test_valid_class_and_taint_rule() -> None:
    assert errors(class_obj()) == []
    assert errors(taint_rule_obj()) == []


def test_status_is_ignored_on_create_with_a_warning() -> None:
    obj = mutate(taint_rule_obj(), status={"conditions": [{"type": "x"}]})
    assert [(f.rule, f.severity.value) for f in check_object(obj, opts())] == [
        ("WARN-STATUS-IGNORED", "warning")
    ]


def test_v1alpha3_selectors_are_checked_in_134() -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"deviceClassName": "Bad"}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    o = opts("1.34", "DRADeviceTaints=true")
    assert [(f.rule, f.path) for f in errors(rule, o)] == [
        ("DTR-SEL-FIELDS", "spec.deviceSelector.deviceClassName")
    ]
