"""ResourceSlice rules (RS-…, CORE-NS-…): each broken, then fixed."""

from __future__ import annotations

import pytest
from test_rules_support import (
    DELETE,
    LABEL_MSG,
    SUBDOMAIN_MSG,
    Case,
    check_case,
    errors,
    mutate,
    opts,
    slice_obj,
)

D0 = "spec__devices[0]"
PER_DEV = {"spec__nodeName": DELETE, "spec__perDeviceNodeSelection": True}
RANGE = {"allowMultipleAllocations": True}
CAP = f"{D0}__capacity__memory"


def _many(n: int, **extra: object) -> list[dict[str, object]]:
    return [{"name": f"d{i}", **extra} for i in range(n)]


CASES = [
    Case(
        "driver-required",
        slice_obj,
        {"spec__driver": ""},
        "RS-DRIVER",
        "Required",
        "spec.driver",
        "Required value",
    ),
    Case(
        "driver-too-long",
        slice_obj,
        {"spec__driver": "a" * 64 + ".com"},
        "RS-DRIVER",
        "TooLong",
        "spec.driver",
        "Too long: may not be more than 63 bytes",
    ),
    Case(
        "driver-format",
        slice_obj,
        {"spec__driver": "gpu_example.com"},
        "RS-DRIVER",
        "Invalid",
        "spec.driver",
        f'Invalid value: "gpu_example.com": {SUBDOMAIN_MSG}',
    ),
    Case(
        "pool-name-required",
        slice_obj,
        {"spec__pool__name": ""},
        "RS-POOL-NAME",
        "Required",
        "spec.pool.name",
        "Required value",
    ),
    Case(
        "pool-name-segment",
        slice_obj,
        {"spec__pool__name": "a//b"},
        "RS-POOL-NAME",
        "Invalid",
        "spec.pool.name",
        f'Invalid value: "": {SUBDOMAIN_MSG}',
    ),
    Case(
        "pool-generation",
        slice_obj,
        {"spec__pool__generation": -1},
        "RS-POOL-GEN",
        "Invalid",
        "spec.pool.generation",
        "Invalid value: -1: must be greater than or equal to zero",
    ),
    Case(
        "pool-count",
        slice_obj,
        {"spec__pool__resourceSliceCount": 0},
        "RS-POOL-COUNT",
        "Invalid",
        "spec.pool.resourceSliceCount",
        "Invalid value: 0: must be greater than zero",
    ),
    Case(
        "pool-count-missing",
        slice_obj,
        {"spec__pool__resourceSliceCount": DELETE},
        "RS-POOL-COUNT",
        "Invalid",
        "spec.pool.resourceSliceCount",
        "Invalid value: 0: must be greater than zero",
        {"spec__pool__resourceSliceCount": 2},
    ),
    Case(
        "nodesel-none",
        slice_obj,
        {"spec__nodeName": DELETE},
        "RS-NODESEL-ONE",
        "Required",
        "spec",
        "Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
        "required",
    ),
    Case(
        "nodesel-two",
        slice_obj,
        {"spec__allNodes": True},
        "RS-NODESEL-ONE",
        "Invalid",
        "spec",
        'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, '
        "`perDeviceNodeSelection` is required, but multiple fields are set",
    ),
    Case(
        "nodename-empty",
        slice_obj,
        {"spec__nodeName": ""},
        "RS-NODENAME-NONEMPTY",
        "Invalid",
        "spec.nodeName",
        'Invalid value: "": must be either unset or set to a non-empty string',
    ),
    Case(
        "nodename-format",
        slice_obj,
        {"spec__nodeName": "Node_1"},
        "RS-NODENAME-FMT",
        "Invalid",
        "spec.nodeName",
        f'Invalid value: "Node_1": {SUBDOMAIN_MSG}',
    ),
    Case(
        "allnodes-false",
        slice_obj,
        {"spec__allNodes": False},
        "RS-ALLNODES-TRUE",
        "Invalid",
        "spec.allNodes",
        "Invalid value: false: must be either unset or set to true",
    ),
    Case(
        "perdevice-false",
        slice_obj,
        {"spec__perDeviceNodeSelection": False},
        "RS-PERDEV-TRUE",
        "Invalid",
        "spec.perDeviceNodeSelection",
        "Invalid value: false: must be either unset or set to true",
    ),
    Case(
        "nodeselector-two-terms",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
                    {"matchExpressions": [{"key": "b", "operator": "Exists"}]},
                ]
            },
        },
        "RS-NODESELECTOR",
        "Invalid",
        "spec.nodeSelector.nodeSelectorTerms",
        'Invalid value: [{"matchExpressions":[{"key":"a","operator":"Exists"}]},{"matchExpressions":[{"key":"b",'
        '"operator":"Exists"}]}]: must have exactly one node selector term',
        {
            "spec__nodeSelector__nodeSelectorTerms": [
                {"matchExpressions": [{"key": "a", "operator": "Exists"}]}
            ]
        },
    ),
    Case(
        "core-ns-terms",
        slice_obj,
        {"spec__nodeName": DELETE, "spec__nodeSelector": {"nodeSelectorTerms": []}},
        "CORE-NS-TERMS",
        "Required",
        "spec.nodeSelector.nodeSelectorTerms",
        "Required value: must have at least one node selector term",
        {
            "spec__nodeSelector__nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
            ]
        },
    ),
    Case(
        "core-ns-op",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "a", "operator": "Matches", "values": ["x"]}]}
                ]
            },
        },
        "CORE-NS-EXPR-OP",
        "Invalid",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
        'Invalid value: "Matches": not a valid selector operator',
        {"spec__nodeSelector__nodeSelectorTerms[0]__matchExpressions[0]__operator": "In"},
    ),
    Case(
        "core-ns-in-values",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]
            },
        },
        "CORE-NS-EXPR-OP",
        "Required",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        {"spec__nodeSelector__nodeSelectorTerms[0]__matchExpressions[0]__values": ["x"]},
    ),
    Case(
        "core-ns-exists-values",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}
                ]
            },
        },
        "CORE-NS-EXPR-OP",
        "Forbidden",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        {"spec__nodeSelector__nodeSelectorTerms[0]__matchExpressions[0]__values": DELETE},
    ),
    Case(
        "core-ns-key",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "-bad", "operator": "Exists"}]}]
            },
        },
        "CORE-NS-EXPR-KEY",
        "Invalid",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key",
        "Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
        "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        {"spec__nodeSelector__nodeSelectorTerms[0]__matchExpressions[0]__key": "bad"},
    ),
    Case(
        "core-ns-fields",
        slice_obj,
        {
            "spec__nodeName": DELETE,
            "spec__nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["x"]}]}
                ]
            },
        },
        "CORE-NS-FIELDS",
        "Invalid",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key",
        'Invalid value: "metadata.labels": not a valid field selector key',
        {"spec__nodeSelector__nodeSelectorTerms[0]__matchFields[0]__key": "metadata.name"},
    ),
    Case(
        "devices-xor-counters",
        slice_obj,
        {"spec__sharedCounters": [{"name": "s", "counters": {"mem": {"value": "1"}}}]},
        "RS-DEVICES-XOR-COUNTERS",
        "Invalid",
        "spec",
        'Invalid value: "": only one of `sharedCounters` or `devices` is allowed',
        {"spec__devices": DELETE},
    ),
    Case(
        "devices-max",
        slice_obj,
        {"spec__devices": _many(129)},
        "RS-DEVICES-MAX",
        "TooMany",
        "spec.devices",
        "Too many: 129: must have at most 128 items",
        {"spec__devices": _many(128)},
    ),
    Case(
        "devices-max-advanced",
        slice_obj,
        {"spec__devices": _many(65, taints=[{"key": "k", "effect": "NoSchedule"}])},
        "RS-DEVICES-MAX",
        "TooMany",
        "spec.devices",
        "Too many: 65: must have at most 64 items",
        {"spec__devices": _many(65)},
    ),
    Case(
        "devices-unique",
        slice_obj,
        {"spec__devices": [{"name": "a"}, {"name": "a"}]},
        "RS-DEVICES-UNIQUE",
        "Duplicate",
        "spec.devices[1]",
        'Duplicate value: "a"',
        {"spec__devices[1]__name": "b"},
    ),
    Case(
        "countersets-max",
        slice_obj,
        {
            "spec__devices": DELETE,
            "spec__sharedCounters": [{"name": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(9)],
        },
        "RS-COUNTERSETS-MAX",
        "TooMany",
        "spec.sharedCounters",
        "Too many: 9: must have at most 8 items",
        {"spec__sharedCounters": [{"name": "s", "counters": {"c": {"value": "1"}}}]},
    ),
    Case(
        "countersets-unique",
        slice_obj,
        {
            "spec__devices": DELETE,
            "spec__sharedCounters": [
                {"name": "s", "counters": {"c": {"value": "1"}}},
                {"name": "s", "counters": {"c": {"value": "1"}}},
            ],
        },
        "RS-COUNTERSETS-UNIQUE",
        "Duplicate",
        "spec.sharedCounters[1]",
        'Duplicate value: "s"',
        {"spec__sharedCounters[1]__name": "t"},
    ),
    Case(
        "counterset-name",
        slice_obj,
        {"spec__devices": DELETE, "spec__sharedCounters": [{"name": "S", "counters": {"c": {"value": "1"}}}]},
        "RS-COUNTERSET-NAME",
        "Invalid",
        "spec.sharedCounters[0].name",
        f'Invalid value: "S": {LABEL_MSG}',
        {"spec__sharedCounters[0]__name": "s"},
    ),
    Case(
        "counterset-counters",
        slice_obj,
        {"spec__devices": DELETE, "spec__sharedCounters": [{"name": "s", "counters": {}}]},
        "RS-COUNTERSET-COUNTERS",
        "Required",
        "spec.sharedCounters[0].counters",
        "Required value",
        {"spec__sharedCounters[0]__counters": {"mem": {"value": "1Gi"}}},
    ),
    Case(
        "counterset-counters-max",
        slice_obj,
        {
            "spec__devices": DELETE,
            "spec__sharedCounters": [{"name": "s", "counters": {f"c{i}": {"value": "1"} for i in range(33)}}],
        },
        "RS-COUNTERSET-COUNTERS",
        "TooMany",
        "spec.sharedCounters[0].counters",
        "Too many: 33: must have at most 32 items",
        {"spec__sharedCounters[0]__counters": {"c": {"value": "1"}}},
    ),
    Case(
        "skipops-prepare-alone",
        slice_obj,
        {"spec__skipNodeOperations": ["NodePrepareResources"]},
        "RS-SKIPOPS",
        "Invalid",
        "spec.skipNodeOperations",
        'Invalid value: ["NodePrepareResources"]: NodePrepareResources cannot be skipped unless '
        "NodeUnprepareResources is also skipped",
        {"spec__skipNodeOperations": ["NodePrepareResources", "NodeUnprepareResources"]},
        gates="DRAOptionalNodeOperations=true",
    ),
    Case(
        "skipops-enum",
        slice_obj,
        {"spec__skipNodeOperations": ["Everything"]},
        "RS-SKIPOPS",
        "NotSupported",
        "spec.skipNodeOperations[0]",
        'Unsupported value: "Everything": supported values: "*", "NodePrepareResources", "NodeUnprepareResources"',
        {"spec__skipNodeOperations": ["*"]},
        gates="DRAOptionalNodeOperations=true",
    ),
    # devices
    Case(
        "device-name",
        slice_obj,
        {f"{D0}__name": "GPU0"},
        "RS-DEV-NAME",
        "Invalid",
        "spec.devices[0].name",
        f'Invalid value: "GPU0": {LABEL_MSG}',
        {f"{D0}__name": "gpu0"},
    ),
    Case(
        "device-name-required",
        slice_obj,
        {f"{D0}__name": ""},
        "RS-DEV-NAME",
        "Required",
        "spec.devices[0].name",
        "Required value",
        {f"{D0}__name": "gpu0"},
    ),
    Case(
        "device-attrcap-max",
        slice_obj,
        {f"{D0}__attributes": {f"a{i}": {"int": i} for i in range(32)}},
        "RS-DEV-ATTRCAP-MAX",
        "Invalid",
        "spec.devices[0]",
        "Invalid value: 33: the total number of attributes and capacities must not exceed 32",
        {f"{D0}__capacity": DELETE},
    ),
    Case(
        "device-attrvalues-max",
        slice_obj,
        {f"{D0}__attributes": {"l": {"ints": list(range(49))}}},
        "RS-DEV-ATTRVALUES-MAX",
        "Invalid",
        "spec.devices[0]",
        "Invalid value: 49: the total number of attribute values must not exceed 48",
        {f"{D0}__attributes": {"l": {"ints": list(range(48))}}},
        gates="DRAListTypeAttributes=true",
    ),
    Case(
        "attr-key-two-slashes",
        slice_obj,
        {f"{D0}__attributes": {"a/b/c": {"int": 1}}},
        "RS-ATTR-KEY",
        "Invalid",
        "spec.devices[0].attributes",
        'Invalid value: "a/b/c": must not contain more than one slash',
        {f"{D0}__attributes": {"a.com/c": {"int": 1}}},
    ),
    Case(
        "attr-key-empty-domain",
        slice_obj,
        {f"{D0}__attributes": {"/c": {"int": 1}}},
        "RS-ATTR-KEY",
        "Invalid",
        "spec.devices[0].attributes",
        'Invalid value: "": the domain must not be empty',
        {f"{D0}__attributes": {"c": {"int": 1}}},
    ),
    Case(
        "attr-key-ident",
        slice_obj,
        {f"{D0}__attributes": {"gpu-model": {"int": 1}}},
        "RS-ATTR-KEY",
        "Invalid",
        "spec.devices[0].attributes",
        "Invalid value: \"gpu-model\": a valid C identifier must start with alphabetic character or '_', "
        "followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', "
        "regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
        {f"{D0}__attributes": {"gpuModel": {"int": 1}}},
    ),
    Case(
        "attr-key-too-long",
        slice_obj,
        {f"{D0}__attributes": {"a" * 33: {"int": 1}}},
        "RS-ATTR-KEY",
        "TooLong",
        "spec.devices[0].attributes",
        "Too long: may not be more than 32 bytes",
        {f"{D0}__attributes": {"a" * 32: {"int": 1}}},
    ),
    Case(
        "attr-oneof-none",
        slice_obj,
        {f"{D0}__attributes__model": {}},
        "RS-ATTR-ONEOF",
        "Invalid",
        "spec.devices[0].attributes[model]",
        'Invalid value: "": exactly one value must be specified',
        {f"{D0}__attributes__model": {"string": "x"}},
    ),
    Case(
        "attr-oneof-two",
        slice_obj,
        {f"{D0}__attributes__model": {"string": "x", "int": 1}},
        "RS-ATTR-ONEOF",
        "Invalid",
        "spec.devices[0].attributes[model]",
        'Invalid value: {"int":1,"string":"x"}: exactly one value must be specified',
        {f"{D0}__attributes__model": {"string": "x"}},
    ),
    Case(
        "attr-string-long",
        slice_obj,
        {f"{D0}__attributes__model__string": "x" * 65},
        "RS-ATTR-STRING",
        "TooLong",
        "spec.devices[0].attributes[model].string",
        "Too long: may not be more than 64 bytes",
        {f"{D0}__attributes__model__string": "x" * 64},
    ),
    Case(
        "attr-version",
        slice_obj,
        {f"{D0}__attributes__driverVersion__version": "560.35.03"},
        "RS-ATTR-VERSION",
        "Invalid",
        "spec.devices[0].attributes[driverVersion].version",
        'Invalid value: "560.35.03": must be a string compatible with semver.org spec 2.0.0',
        {f"{D0}__attributes__driverVersion__version": "560.35.3"},
    ),
    Case(
        "attr-list-empty",
        slice_obj,
        {f"{D0}__attributes__model": {"strings": []}},
        "RS-ATTR-LIST-NONEMPTY",
        "Invalid",
        "spec.devices[0].attributes[model].strings",
        "Invalid value: []: must not be empty if specified",
        {f"{D0}__attributes__model": {"strings": ["a"]}},
        gates="DRAListTypeAttributes=true",
    ),
    Case(
        "attr-list-items",
        slice_obj,
        {f"{D0}__attributes__model": {"versions": ["1.0"]}},
        "RS-ATTR-LIST-ITEMS",
        "Invalid",
        "spec.devices[0].attributes[model].versions[0]",
        'Invalid value: "1.0": must be a string compatible with semver.org spec 2.0.0',
        {f"{D0}__attributes__model": {"versions": ["1.0.0"]}},
        gates="DRAListTypeAttributes=true",
    ),
    Case(
        "cap-key",
        slice_obj,
        {f"{D0}__capacity": {"Mem-ory": {"value": "1"}}},
        "RS-CAP-KEY",
        "Invalid",
        "spec.devices[0].capacity",
        "Invalid value: \"Mem-ory\": a valid C identifier must start with alphabetic character or '_', followed "
        "by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
        "for validation is '[A-Za-z_][A-Za-z0-9_]*')",
        {f"{D0}__capacity": {"memory": {"value": "1"}}},
    ),
    Case(
        "cap-policy-needs-multi",
        slice_obj,
        {f"{CAP}__requestPolicy": {"default": "1Gi", "validValues": ["1Gi"]}},
        "RS-CAP-POLICY-NEEDS-MULTI",
        "Forbidden",
        "spec.devices[0].capacity[memory].requestPolicy",
        "Forbidden: allowMultipleAllocations must be true",
        {f"{D0}__allowMultipleAllocations": True},
    ),
    Case(
        "cap-policy-oneof",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validValues": ["1Gi"], "validRange": {"min": "1Gi"}},
        },
        "RS-CAP-POLICY-ONEOF",
        "Forbidden",
        "spec.devices[0].capacity[memory].requestPolicy",
        'Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the '
        "same time",
        {f"{CAP}__requestPolicy__validRange": DELETE},
    ),
    Case(
        "cap-policy-default",
        slice_obj,
        {f"{D0}__allowMultipleAllocations": True, f"{CAP}__requestPolicy": {"validValues": ["1Gi"]}},
        "RS-CAP-POLICY-DEFAULT",
        "Required",
        "spec.devices[0].capacity[memory].requestPolicy.default",
        "Required value: required when validValues is defined",
        {f"{CAP}__requestPolicy__default": "1Gi"},
    ),
    Case(
        "cap-validvalues-sorted",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validValues": ["2Gi", "1Gi"]},
        },
        "RS-CAP-VALIDVALUES",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validValues[1]",
        'Invalid value: "1Gi": values must be sorted in ascending order',
        {f"{CAP}__requestPolicy__validValues": ["1Gi", "2Gi"]},
    ),
    Case(
        "cap-validvalues-over-capacity",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validValues": ["1Gi", "80Gi"]},
        },
        "RS-CAP-VALIDVALUES",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validValues[1]",
        'Invalid value: "80Gi": option is larger than capacity value: 40Gi',
        {f"{CAP}__requestPolicy__validValues": ["1Gi", "40Gi"]},
    ),
    Case(
        "cap-validvalues-default",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "3Gi", "validValues": ["1Gi", "2Gi"]},
        },
        "RS-CAP-VALIDVALUES",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validValues",
        'Invalid value: "3Gi": default value is not valid according to the requestPolicy',
        {f"{CAP}__requestPolicy__default": "2Gi"},
    ),
    Case(
        "cap-validvalues-duplicate",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validValues": ["1Gi", "1Gi"]},
        },
        "RS-CAP-VALIDVALUES",
        "Duplicate",
        "spec.devices[0].capacity[memory].requestPolicy.validValues[1]",
        'Duplicate value: "1Gi"',
        {f"{CAP}__requestPolicy__validValues": ["1Gi"]},
    ),
    Case(
        "cap-range-min-required",
        slice_obj,
        {
            **{f"{D0}__{k}": v for k, v in RANGE.items()},
            f"{CAP}__requestPolicy": {"default": "1Gi", "validRange": {}},
        },
        "RS-CAP-RANGE",
        "Required",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.min",
        "Required value: required when validRange is defined",
        {f"{CAP}__requestPolicy__validRange__min": "1Gi"},
    ),
    Case(
        "cap-range-default-below-min",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validRange": {"min": "2Gi"}},
        },
        "RS-CAP-RANGE",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.default",
        'Invalid value: "1Gi": default is less than min: 2Gi',
        {f"{CAP}__requestPolicy__default": "2Gi"},
    ),
    Case(
        "cap-range-max-over-capacity",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "1Gi", "validRange": {"min": "1Gi", "max": "64Gi"}},
        },
        "RS-CAP-RANGE",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.max",
        'Invalid value: "64Gi": max is larger than capacity value: 40Gi',
        {f"{CAP}__requestPolicy__validRange__max": "40Gi"},
    ),
    Case(
        "cap-range-step",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "3Gi", "validRange": {"min": "2Gi", "step": "2Gi"}},
        },
        "RS-CAP-RANGE",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.step",
        'Invalid value: "3Gi": value is not a multiple of a given step (2Gi) from (2Gi)',
        {f"{CAP}__requestPolicy__default": "4Gi"},
    ),
    Case(
        "cap-range-step-zero",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "2Gi", "validRange": {"min": "2Gi", "step": "0"}},
        },
        "RS-CAP-RANGE",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.step",
        'Invalid value: "0": must be greater than zero',
        {f"{CAP}__requestPolicy__validRange__step": "1Gi"},
    ),
    Case(
        "cap-range-int-negative",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "-2", "validRange": {"min": "-4", "step": "2"}},
        },
        "RS-CAP-RANGE-INT",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.min",
        'Invalid value: "-4": must be greater than or equal to 0',
        {f"{CAP}__requestPolicy": {"default": "2", "validRange": {"min": "0", "step": "2"}}},
    ),
    Case(
        "cap-range-milli",
        slice_obj,
        {
            f"{D0}__allowMultipleAllocations": True,
            f"{CAP}__requestPolicy": {"default": "0.0005", "validRange": {"min": "0.0005"}},
        },
        "RS-CAP-RANGE-MILLI",
        "Invalid",
        "spec.devices[0].capacity[memory].requestPolicy.validRange.default",
        'Invalid value: "500u": value cannot be represented as a milli value',
        {f"{CAP}__requestPolicy": {"default": "0.5", "validRange": {"min": "0.5"}}},
    ),
    Case(
        "taints-max",
        slice_obj,
        {f"{D0}__taints": [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(17)]},
        "RS-TAINTS-MAX",
        "TooMany",
        "spec.devices[0].taints",
        "Too many: 17: must have at most 16 items",
        {f"{D0}__taints": [{"key": "k", "effect": "NoSchedule"}]},
    ),
    Case(
        "taints-max-134",
        slice_obj,
        {f"{D0}__taints": [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(5)]},
        "RS-TAINTS-MAX",
        "TooMany",
        "spec.devices[0].taints",
        "Too many: 5: must have at most 4 items",
        {f"{D0}__taints": [{"key": "k", "effect": "NoSchedule"}]},
        version="1.34",
        gates="DRADeviceTaints=true",
    ),
    Case(
        "taint-key",
        slice_obj,
        {f"{D0}__taints": [{"key": "", "effect": "NoSchedule"}]},
        "RS-TAINT-KEY",
        "Invalid",
        "spec.devices[0].taints[0].key",
        'Invalid value: "": name part must be non-empty',
        {f"{D0}__taints[0]__key": "example.com/k"},
    ),
    Case(
        "taint-value",
        slice_obj,
        {f"{D0}__taints": [{"key": "k", "value": "-x-", "effect": "NoSchedule"}]},
        "RS-TAINT-VALUE",
        "Invalid",
        "spec.devices[0].taints[0].value",
        "Invalid value: \"-x-\": a valid label must be an empty string or consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        {f"{D0}__taints[0]__value": "x"},
    ),
    Case(
        "taint-effect-required",
        slice_obj,
        {f"{D0}__taints": [{"key": "k"}]},
        "RS-TAINT-EFFECT",
        "Required",
        "spec.devices[0].taints[0].effect",
        "Required value",
        {f"{D0}__taints[0]__effect": "NoExecute"},
    ),
    Case(
        "taint-effect-enum",
        slice_obj,
        {f"{D0}__taints": [{"key": "k", "effect": "PreferNoSchedule"}]},
        "RS-TAINT-EFFECT",
        "NotSupported",
        "spec.devices[0].taints[0].effect",
        'Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"',
        {f"{D0}__taints[0]__effect": "None"},
    ),
    Case(
        "taint-effect-none-134",
        slice_obj,
        {f"{D0}__taints": [{"key": "k", "effect": "None"}]},
        "RS-TAINT-EFFECT",
        "NotSupported",
        "spec.devices[0].taints[0].effect",
        'Unsupported value: "None": supported values: "NoExecute", "NoSchedule"',
        {f"{D0}__taints[0]__effect": "NoSchedule"},
        version="1.34",
        gates="DRADeviceTaints=true",
    ),
    Case(
        "consumes-max",
        slice_obj,
        {
            f"{D0}__consumesCounters": [
                {"counterSet": f"s{i}", "counters": {"c": {"value": "1"}}} for i in range(3)
            ]
        },
        "RS-CONSUMES-MAX",
        "TooMany",
        "spec.devices[0].consumesCounters",
        "Too many: 3: must have at most 2 items",
        {f"{D0}__consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}]},
    ),
    Case(
        "consumes-unique",
        slice_obj,
        {
            f"{D0}__consumesCounters": [
                {"counterSet": "s", "counters": {"c": {"value": "1"}}} for _ in range(2)
            ]
        },
        "RS-CONSUMES-UNIQUE",
        "Duplicate",
        "spec.devices[0].consumesCounters[1]",
        'Duplicate value: "s"',
        {f"{D0}__consumesCounters[1]__counterSet": "t"},
    ),
    Case(
        "consumes-set",
        slice_obj,
        {f"{D0}__consumesCounters": [{"counterSet": "", "counters": {"c": {"value": "1"}}}]},
        "RS-CONSUMES-SET",
        "Required",
        "spec.devices[0].consumesCounters[0].counterSet",
        "Required value",
        {f"{D0}__consumesCounters[0]__counterSet": "s"},
    ),
    Case(
        "consumes-counters",
        slice_obj,
        {f"{D0}__consumesCounters": [{"counterSet": "s", "counters": {"C": {"value": "1"}}}]},
        "RS-CONSUMES-COUNTERS",
        "Invalid",
        "spec.devices[0].consumesCounters[0].counters",
        f'Invalid value: "C": {LABEL_MSG}',
        {f"{D0}__consumesCounters[0]__counters": {"c": {"value": "1"}}},
    ),
    Case(
        "compat-groups",
        slice_obj,
        {
            f"{D0}__consumesCounters": [
                {"counterSet": "s", "counters": {"c": {"value": "1"}}, "compatibilityGroups": ["a", "b", "c"]}
            ]
        },
        "RS-COMPAT-GROUPS",
        "TooMany",
        "spec.devices[0].consumesCounters[0].compatibilityGroups",
        "Too many: 3: must have at most 2 items",
        {f"{D0}__consumesCounters[0]__compatibilityGroups": ["a", "b"]},
        gates="DRADeviceCompatibilityGroups=true",
    ),
    Case(
        "perdev-none",
        slice_obj,
        PER_DEV,
        "RS-DEV-NODESEL-PERDEV",
        "Required",
        "spec.devices[0]",
        "Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
        {f"{D0}__allNodes": True},
    ),
    Case(
        "perdev-empty-name",
        slice_obj,
        {**PER_DEV, f"{D0}__nodeName": ""},
        "RS-DEV-NODESEL-PERDEV",
        "Invalid",
        "spec.devices[0].nodeName",
        'Invalid value: "": must not be empty',
        {f"{D0}__nodeName": "node-1"},
    ),
    Case(
        "perdev-forbid",
        slice_obj,
        {f"{D0}__nodeName": "node-1"},
        "RS-DEV-NODESEL-FORBID",
        "Invalid",
        "spec.devices[0]",
        "Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
        {f"{D0}__nodeName": DELETE},
    ),
    Case(
        "binding-max",
        slice_obj,
        {f"{D0}__bindingConditions": [f"c{i}" for i in range(5)], f"{D0}__bindingFailureConditions": ["f"]},
        "RS-BINDING-MAX",
        "TooMany",
        "spec.devices[0].bindingConditions",
        "Too many: 5: must have at most 4 items",
        {f"{D0}__bindingConditions": ["c"]},
    ),
    Case(
        "binding-fmt",
        slice_obj,
        {f"{D0}__bindingConditions": ["a b"], f"{D0}__bindingFailureConditions": ["f"]},
        "RS-BINDING-FMT",
        "Invalid",
        "spec.devices[0].bindingConditions[0]",
        "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
        "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        {f"{D0}__bindingConditions": ["ab"]},
    ),
    Case(
        "binding-unique",
        slice_obj,
        {f"{D0}__bindingConditions": ["a", "a"], f"{D0}__bindingFailureConditions": ["f"]},
        "RS-BINDING-UNIQUE",
        "Duplicate",
        "spec.devices[0].bindingConditions[1]",
        'Duplicate value: "a"',
        {f"{D0}__bindingConditions": ["a"]},
    ),
    Case(
        "binding-disjoint",
        slice_obj,
        {f"{D0}__bindingConditions": ["a"], f"{D0}__bindingFailureConditions": ["a"]},
        "RS-BINDING-DISJOINT",
        "Invalid",
        "spec.devices[0].bindingFailureConditions[0]",
        'Invalid value: "a": bindingFailureConditions must not overlap with bindingConditions',
        {f"{D0}__bindingFailureConditions": ["b"]},
    ),
    Case(
        "binding-pair",
        slice_obj,
        {f"{D0}__bindingConditions": ["a"]},
        "RS-BINDING-PAIR",
        "Invalid",
        "spec.devices[0].bindingFailureConditions",
        "Invalid value: null: bindingFailureConditions are required to use bindingConditions",
        {f"{D0}__bindingFailureConditions": ["b"]},
    ),
    Case(
        "nodealloc-key",
        slice_obj,
        {f"{D0}__nodeAllocatableResources": {"ephemeral-storage": {"overhead": {"perPod": "1"}}}},
        "RS-NODEALLOC-KEY",
        "Invalid",
        "spec.devices[0].nodeAllocatableResources[ephemeral-storage]",
        'Invalid value: "ephemeral-storage": must be a node allocatable resource name',
        {f"{D0}__nodeAllocatableResources": {"memory": {"overhead": {"perPod": "1"}}}},
        gates="DRANodeAllocatableResources=true",
    ),
    Case(
        "nodealloc-oneof",
        slice_obj,
        {f"{D0}__nodeAllocatableResources": {"cpu": {}}},
        "RS-NODEALLOC-ONEOF",
        "Required",
        "spec.devices[0].nodeAllocatableResources[cpu]",
        "Required value: at least one of mapping or overhead must be set",
        {f"{D0}__nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "2"}}}},
        gates="DRANodeAllocatableResources=true",
    ),
    Case(
        "nodealloc-mapping-notfound",
        slice_obj,
        {
            f"{D0}__nodeAllocatableResources": {
                "memory": {"mapping": {"capacityKey": "ram", "capacityMultiplier": "1"}}
            }
        },
        "RS-NODEALLOC-MAPPING",
        "NotFound",
        "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityKey",
        'Not found: "ram"',
        {f"{D0}__nodeAllocatableResources__memory__mapping__capacityKey": "memory"},
        gates="DRANodeAllocatableResources=true",
    ),
    Case(
        "nodealloc-mapping-multiplier",
        slice_obj,
        {f"{D0}__nodeAllocatableResources": {"memory": {"mapping": {"capacityKey": "memory"}}}},
        "RS-NODEALLOC-MAPPING",
        "Required",
        "spec.devices[0].nodeAllocatableResources[memory].mapping.capacityMultiplier",
        "Required value: capacityMultiplier is required when capacityKey is set",
        {f"{D0}__nodeAllocatableResources__memory__mapping__capacityMultiplier": "1"},
        gates="DRANodeAllocatableResources=true",
    ),
    Case(
        "nodealloc-overhead",
        slice_obj,
        {f"{D0}__nodeAllocatableResources": {"cpu": {"overhead": {"perPod": "-1"}}}},
        "RS-NODEALLOC-OVERHEAD",
        "Invalid",
        "spec.devices[0].nodeAllocatableResources[cpu].overhead.perPod",
        'Invalid value: "-1": must be non-negative',
        {f"{D0}__nodeAllocatableResources__cpu__overhead__perPod": "1"},
        gates="DRANodeAllocatableResources=true",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_slice_rule(case: Case) -> None:
    check_case(case)


PART = {
    f"{D0}__consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}],
    "spec__partitionTypeAttribute": "gpu.example.com/partitionType",
}


def test_partition_type_forbidden_when_gate_off() -> None:
    # Declarative validation forbids the field; the hand-written checks still run on it.
    found = errors(mutate(slice_obj(), **PART))
    assert (found[0].rule, found[0].error_type, found[0].path, found[0].message) == (
        "RS-PARTTYPE",
        "Forbidden",
        "spec.partitionTypeAttribute",
        "Forbidden: disabled by feature-gate DRAPartitionableDevicesType",
    )


def test_partition_type_rules_when_gate_on() -> None:
    o = opts(gates="DRAPartitionableDevicesType=true")
    found = errors(mutate(slice_obj(), **PART), o)
    assert [(f.error_type, f.path, f.message) for f in found] == [
        (
            "Required",
            "spec.devices[0].attributes[gpu.example.com/partitionType]",
            "Required value: device consumes counters and `partitionTypeAttribute` names this attribute, so it must "
            "be set",
        )
    ]
    fixed = mutate(slice_obj(), **PART, **{f"{D0}__attributes__partitionType": {"string": "1g.10gb"}})
    assert errors(fixed, o) == []
    wrong_type = mutate(slice_obj(), **PART, **{f"{D0}__attributes__partitionType": {"int": 1}})
    assert [f.message for f in errors(wrong_type, o)] == [
        'Invalid value: {"int":1}: must be a string value because `partitionTypeAttribute` names this attribute'
    ]
    no_consumer = mutate(slice_obj(), spec__partitionTypeAttribute="gpu.example.com/partitionType")
    assert [f.message for f in errors(no_consumer, o)] == [
        'Invalid value: "gpu.example.com/partitionType": may only be set on a slice which declares devices that '
        "consume counters"
    ]


def test_valid_slice_has_no_findings() -> None:
    assert errors(slice_obj()) == []


def test_v1beta1_empty_node_name_means_unset() -> None:
    beta = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "d.example.com",
            "pool": {"name": "p", "resourceSliceCount": 1},
            "nodeName": "",
            "allNodes": True,
            "devices": [{"name": "a", "basic": {"attributes": {"x": {"int": 1}}}}],
        },
    }
    assert errors(beta) == []


def test_upper_case_driver_is_a_warning_only() -> None:
    found = [
        f
        for f in __import__("dractl.validate.rules", fromlist=["x"]).check_object(
            mutate(slice_obj(), spec__driver="GPU.example.com"), opts()
        )
    ]
    assert [(f.rule, f.severity.value) for f in found] == [("ADV-DRIVER-LOWERCASE", "warning")]
