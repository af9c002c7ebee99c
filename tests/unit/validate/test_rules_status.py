"""ResourceClaim status rules (RCS-…), applied with --status."""

from __future__ import annotations

import pytest
from test_rules_support import DELETE, LABEL_MSG, Case, check_case, claim_obj, errors, mutate, opts

UID = "0f0e1b5e-7a4c-4d0e-9d7b-0d6a1c2b3c4d"
RES = {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
ALLOC = {"devices": {"results": [RES]}}
DEV = {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"}
COND = {"type": "Ready", "status": "True", "reason": "Ok", "lastTransitionTime": "2026-01-01T00:00:00Z"}
S = "status__allocation__devices"


def allocated() -> dict[str, object]:
    return mutate(
        claim_obj(),
        status={"allocation": ALLOC, "reservedFor": [{"resource": "pods", "name": "p", "uid": UID}]},
    )


CASES = [
    Case(
        "reserved-needs-allocation",
        allocated,
        {"status__allocation": DELETE},
        "RCS-RESERVED-NEEDS-ALLOC",
        "Forbidden",
        "status.reservedFor",
        "Forbidden: may not be specified when `allocated` is not set",
        {"status__allocation": ALLOC},
    ),
    Case(
        "reserved-fields",
        allocated,
        {"status__reservedFor[0]__uid": ""},
        "RCS-RESERVED-FIELDS",
        "Required",
        "status.reservedFor[0].uid",
        "Required value",
        {"status__reservedFor[0]__uid": UID},
    ),
    Case(
        "reserved-unique",
        allocated,
        {"status__reservedFor": [{"resource": "pods", "name": "p", "uid": UID} for _ in range(2)]},
        "RCS-RESERVED-UNIQUE",
        "Duplicate",
        "status.reservedFor[1]",
        f'Duplicate value: "{UID}"',
        {"status__reservedFor[1]__uid": UID.replace("0f", "1f")},
    ),
    Case(
        "reserved-max",
        allocated,
        {"status__reservedFor": [{"resource": "pods", "name": "p", "uid": f"u{i}"} for i in range(257)]},
        "RCS-RESERVED-MAX",
        "TooMany",
        "status.reservedFor",
        "Too many: 257: must have at most 256 items",
        {"status__reservedFor": [{"resource": "pods", "name": "p", "uid": UID}]},
    ),
    Case(
        "result-request",
        allocated,
        {f"{S}__results[0]__request": "nic"},
        "RCS-RESULT-REQ",
        "Invalid",
        "status.allocation.devices.results[0].request",
        'Invalid value: "nic": must be the name of a request in the claim or the name of a request and a '
        "subrequest separated by '/'",
        {f"{S}__results[0]__request": "gpu"},
    ),
    Case(
        "result-device",
        allocated,
        {f"{S}__results[0]__device": "GPU-0"},
        "RCS-RESULT-IDS",
        "Invalid",
        "status.allocation.devices.results[0].device",
        f'Invalid value: "GPU-0": {LABEL_MSG}',
        {f"{S}__results[0]__device": "gpu-0"},
    ),
    Case(
        "result-shareid",
        allocated,
        {f"{S}__results[0]__shareID": UID.upper()},
        "RCS-RESULT-SHAREID",
        "Invalid",
        "status.allocation.devices.results[0].shareID",
        f'Invalid value: "{UID.upper()}": uid must be in RFC 4122 normalized form, '
        "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters",
        {f"{S}__results[0]__shareID": UID},
    ),
    Case(
        "result-binding",
        allocated,
        {f"{S}__results[0]__bindingConditions": ["a"]},
        "RCS-RESULT-BINDING",
        "Invalid",
        "status.allocation.devices.results[0].bindingFailureConditions",
        "Invalid value: null: bindingFailureConditions are required to use bindingConditions",
        {f"{S}__results[0]__bindingFailureConditions": ["b"]},
    ),
    Case(
        "result-toleration",
        allocated,
        {f"{S}__results[0]__tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]},
        "RCS-RESULT-TOL",
        "Invalid",
        "status.allocation.devices.results[0].tolerations[0].value",
        'Invalid value: "v": must be empty for operator `Exists`',
        {f"{S}__results[0]__tolerations[0]__value": DELETE},
    ),
    Case(
        "results-max",
        allocated,
        {f"{S}__results": [RES] * 33},
        "RCS-RESULTS-MAX",
        "TooMany",
        "status.allocation.devices.results",
        "Too many: 33: must have at most 32 items",
        {f"{S}__results": [RES]},
    ),
    Case(
        "alloc-config-source",
        allocated,
        {f"{S}__config": [{"source": "FromUser", "opaque": {"driver": "d.com", "parameters": {}}}]},
        "RCS-ALLOC-CFG-SOURCE",
        "NotSupported",
        "status.allocation.devices.config[0].source",
        'Unsupported value: "FromUser": supported values: "FromClaim", "FromClass"',
        {f"{S}__config[0]__source": "FromClass"},
    ),
    Case(
        "alloc-config-opaque",
        allocated,
        {f"{S}__config": [{"source": "FromClaim"}]},
        "RCS-ALLOC-CFG-REST",
        "Required",
        "status.allocation.devices.config[0].opaque",
        "Required value",
        {f"{S}__config[0]__opaque": {"driver": "d.com", "parameters": {"a": 1}}},
    ),
    Case(
        "alloc-config-max",
        allocated,
        {f"{S}__config": [{"source": "FromClaim", "opaque": {"driver": "d.com", "parameters": {}}}] * 65},
        "RCS-ALLOC-CFG-MAX",
        "TooMany",
        "status.allocation.devices.config",
        "Too many: 65: must have at most 64 items",
        {f"{S}__config": DELETE},
    ),
    Case(
        "alloc-node-selector",
        allocated,
        {"status__allocation__nodeSelector": {"nodeSelectorTerms": []}},
        "CORE-NS-TERMS",
        "Required",
        "status.allocation.nodeSelector.nodeSelectorTerms",
        "Required value: must have at least one node selector term",
        {"status__allocation__nodeSelector": DELETE},
    ),
    Case(
        "device-status-allocated",
        allocated,
        {"status__devices": [{**DEV, "device": "gpu-1"}]},
        "RCS-DEV-ALLOCATED",
        "Invalid",
        "status.devices[0]",
        "Invalid value: gpu.example.com/node-1/gpu-1: must be an allocated device in the claim",
        {"status__devices": [DEV]},
    ),
    Case(
        "device-status-unique",
        allocated,
        {"status__devices": [DEV, DEV]},
        "RCS-DEV-UNIQUE",
        "Duplicate",
        "status.devices[1]",
        'Duplicate value: "gpu.example.com/node-1/gpu-0"',
        {"status__devices": [DEV]},
    ),
    Case(
        "device-status-conditions-max",
        allocated,
        {"status__devices": [{**DEV, "conditions": [{**COND, "type": f"T{i}"} for i in range(9)]}]},
        "RCS-DEV-CONDITIONS",
        "TooMany",
        "status.devices[0].conditions",
        "Too many: 9: must have at most 8 items",
        {"status__devices": [{**DEV, "conditions": [COND]}]},
    ),
    Case(
        "device-status-condition-reason",
        allocated,
        {"status__devices": [{**DEV, "conditions": [{**COND, "reason": ""}]}]},
        "RCS-DEV-CONDITIONS",
        "Required",
        "status.devices[0].conditions[0].reason",
        "Required value: must be set",
        {"status__devices": [{**DEV, "conditions": [COND]}]},
    ),
    Case(
        "device-status-data",
        allocated,
        {"status__devices": [{**DEV, "data": "text"}]},
        "RCS-DEV-DATA",
        "Invalid",
        "status.devices[0].data",
        'Invalid value: "<value omitted>": must be a valid JSON object',
        {"status__devices": [{**DEV, "data": {"a": 1}}]},
    ),
    Case(
        "net-ifname",
        allocated,
        {"status__devices": [{**DEV, "networkData": {"interfaceName": "x" * 257}}]},
        "RCS-NET-IFNAME",
        "TooLong",
        "status.devices[0].networkData.interfaceName",
        "Too long: may not be more than 256 bytes",
        {"status__devices": [{**DEV, "networkData": {"interfaceName": "eth0"}}]},
    ),
    Case(
        "net-hwaddr",
        allocated,
        {"status__devices": [{**DEV, "networkData": {"hardwareAddress": "x" * 129}}]},
        "RCS-NET-HWADDR",
        "TooLong",
        "status.devices[0].networkData.hardwareAddress",
        "Too long: may not be more than 128 bytes",
        {"status__devices": [DEV]},
    ),
    Case(
        "net-ips",
        allocated,
        {"status__devices": [{**DEV, "networkData": {"ips": ["10.0.0.1"]}}]},
        "RCS-NET-IPS",
        "Invalid",
        "status.devices[0].networkData.ips[0]",
        'Invalid value: "10.0.0.1": must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)',
        {"status__devices": [{**DEV, "networkData": {"ips": ["10.0.0.1/24"]}}]},
    ),
    Case(
        "net-ips-canonical",
        allocated,
        {"status__devices": [{**DEV, "networkData": {"ips": ["2001:DB8::1/64"]}}]},
        "RCS-NET-IPS",
        "Invalid",
        "status.devices[0].networkData.ips[0]",
        'Invalid value: "2001:DB8::1/64": must be in canonical form ("2001:db8::1/64")',
        {"status__devices": [{**DEV, "networkData": {"ips": ["2001:db8::1/64"]}}]},
    ),
]
for c in CASES:
    c.status = True


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_status_rule(case: Case) -> None:
    check_case(case)


def test_valid_status() -> None:
    obj = mutate(
        allocated(),
        status__devices=[
            {**DEV, "conditions": [COND], "networkData": {"interfaceName": "eth0", "ips": ["10.0.0.1/24"]}}
        ],
    )
    assert errors(obj, opts(status=True)) == []


def test_status_not_checked_without_flag() -> None:
    obj = mutate(allocated(), **{f"{S}__results[0]__device": "BAD"})
    assert errors(obj) == []
    assert errors(obj, opts(status=True))
