"""ResourceClaim / template spec rules (RC-…, RCT-…) and CEL wiring (RC-CEL-…)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_rules_support import (
    DELETE,
    LABEL_MSG,
    SUBDOMAIN_MSG,
    Case,
    check_case,
    claim_obj,
    errors,
    mutate,
    opts,
    template_obj,
)

import dractl.cel
from dractl.errors import CelCompileError
from dractl.validate import cel_checks
from dractl.validate.rules import check_object

R0 = "spec__devices__requests[0]"
EX = f"{R0}__exactly"
REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
FA = [
    {"name": "big", "deviceClassName": "gpu.example.com"},
    {"name": "small", "deviceClassName": "gpu.example.com"},
]


class FakeSelector:
    def __init__(self, cost: int) -> None:
        self.max_cost = cost


def fake_compile(expr: str, env: str = "new", features: Any = None, derived: bool = False) -> FakeSelector:
    if "syntax(" in expr:
        raise CelCompileError("compilation failed: ERROR: <input>:1:1: undeclared reference to 'syntax'")
    if expr == "'str'" and not derived:
        raise CelCompileError("must evaluate to bool or the unknown type, not string")
    if "expensive" in expr:
        return FakeSelector(2_000_000)
    return FakeSelector(600_000 if "heavy" in expr else 10)


@pytest.fixture(autouse=True)
def fake_cel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(dractl.cel, "compile_selector", fake_compile, raising=False)
    cel_checks._compile.cache_clear()
    yield
    cel_checks._compile.cache_clear()


SEL = "selectors"
CASES = [
    Case(
        "requests-max",
        claim_obj,
        {
            "spec__devices__requests": [
                {"name": f"r{i}", "exactly": {"deviceClassName": "c"}} for i in range(33)
            ]
        },
        "RC-REQ-MAX",
        "TooMany",
        "spec.devices.requests",
        "Too many: 33: must have at most 32 items",
        {"spec__devices__requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]},
    ),
    Case(
        "requests-unique",
        claim_obj,
        {"spec__devices__requests": [{"name": "r", "exactly": {"deviceClassName": "c"}} for _ in range(2)]},
        "RC-REQ-UNIQUE",
        "Duplicate",
        "spec.devices.requests[1]",
        'Duplicate value: "r"',
        {"spec__devices__requests[1]__name": "s"},
    ),
    Case(
        "request-name",
        claim_obj,
        {f"{R0}__name": "GPU"},
        "RC-REQ-NAME",
        "Invalid",
        "spec.devices.requests[0].name",
        f'Invalid value: "GPU": {LABEL_MSG}',
        {f"{R0}__name": "gpu"},
    ),
    Case(
        "request-name-dots",
        claim_obj,
        {f"{R0}__name": "a.b"},
        "RC-REQ-NAME",
        "Invalid",
        "spec.devices.requests[0].name",
        'Invalid value: "a.b": must not contain dots',
        {f"{R0}__name": "a-b"},
    ),
    Case(
        "request-oneof-none",
        claim_obj,
        {f"{R0}__exactly": DELETE},
        "RC-REQ-ONEOF",
        "Required",
        "spec.devices.requests[0]",
        "Required value: exactly one of `exactly` or `firstAvailable` is required",
        {f"{R0}__firstAvailable": FA},
    ),
    Case(
        "request-oneof-both",
        claim_obj,
        {f"{R0}__firstAvailable": FA},
        "RC-REQ-ONEOF",
        "Invalid",
        "spec.devices.requests[0]",
        "Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, "
        "but multiple fields are set",
        {f"{R0}__exactly": DELETE},
    ),
    Case(
        "first-available-max",
        claim_obj,
        {
            f"{R0}__exactly": DELETE,
            f"{R0}__firstAvailable": [{"name": f"s{i}", "deviceClassName": "c"} for i in range(9)],
        },
        "RC-FA-MAX",
        "TooMany",
        "spec.devices.requests[0].firstAvailable",
        "Too many: 9: must have at most 8 items",
        {f"{R0}__firstAvailable": FA},
    ),
    Case(
        "first-available-unique",
        claim_obj,
        {
            f"{R0}__exactly": DELETE,
            f"{R0}__firstAvailable": [{"name": "s", "deviceClassName": "c"} for _ in range(2)],
        },
        "RC-FA-UNIQUE",
        "Duplicate",
        "spec.devices.requests[0].firstAvailable[1]",
        'Duplicate value: "s"',
        {f"{R0}__firstAvailable[1]__name": "t"},
    ),
    Case(
        "first-available-name",
        claim_obj,
        {f"{R0}__exactly": DELETE, f"{R0}__firstAvailable": [{"name": "S", "deviceClassName": "c"}]},
        "RC-FA-NAME",
        "Invalid",
        "spec.devices.requests[0].firstAvailable[0].name",
        f'Invalid value: "S": {LABEL_MSG}',
        {f"{R0}__firstAvailable[0]__name": "s"},
    ),
    Case(
        "class-required",
        claim_obj,
        {f"{EX}__deviceClassName": ""},
        "RC-CLASS",
        "Required",
        "spec.devices.requests[0].exactly.deviceClassName",
        "Required value",
        {f"{EX}__deviceClassName": "gpu"},
    ),
    Case(
        "class-format",
        claim_obj,
        {f"{EX}__deviceClassName": "GPU"},
        "RC-CLASS",
        "Invalid",
        "spec.devices.requests[0].exactly.deviceClassName",
        f'Invalid value: "GPU": {SUBDOMAIN_MSG}',
        {f"{EX}__deviceClassName": "gpu"},
    ),
    Case(
        "subrequest-class-required",
        claim_obj,
        {f"{R0}__exactly": DELETE, f"{R0}__firstAvailable": [{"name": "s"}]},
        "RC-CLASS",
        "Required",
        "spec.devices.requests[0].firstAvailable[0].deviceClassName",
        "Required value",
        {f"{R0}__firstAvailable[0]__deviceClassName": "gpu"},
    ),
    Case(
        "selectors-max",
        claim_obj,
        {f"{EX}__{SEL}": [{"cel": {"expression": "true"}} for _ in range(33)]},
        "RC-SEL-MAX",
        "TooMany",
        "spec.devices.requests[0].exactly.selectors",
        "Too many: 33: must have at most 32 items",
        {f"{EX}__{SEL}": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "selector-cel-required",
        claim_obj,
        {f"{EX}__{SEL}": [{"expression": "true"}]},
        "RC-SEL-CEL-REQ",
        "Required",
        "spec.devices.requests[0].exactly.selectors[0].cel",
        "Required value",
        {f"{EX}__{SEL}": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "cel-too-long",
        claim_obj,
        {f"{EX}__{SEL}": [{"cel": {"expression": "true || " * 1300 + "true"}}]},
        "RC-CEL-LEN",
        "TooLong",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "Too long: may not be more than 10240 bytes",
        {f"{EX}__{SEL}": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "cel-compile",
        claim_obj,
        {f"{EX}__{SEL}": [{"cel": {"expression": "syntax(1)"}}]},
        "RC-CEL-COMPILE",
        "Invalid",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "Invalid value: \"syntax(1)\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'syntax'",
        {f"{EX}__{SEL}": [{"cel": {"expression": "true"}}]},
    ),
    Case(
        "cel-type",
        claim_obj,
        {f"{EX}__{SEL}": [{"cel": {"expression": "'str'"}}]},
        "RC-CEL-TYPE",
        "Invalid",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "Invalid value: \"'str'\": must evaluate to bool or the unknown type, not string",
        {f"{EX}__{SEL}": [{"cel": {"expression": "'str' == 'x'"}}]},
    ),
    Case(
        "cel-cost",
        claim_obj,
        {f"{EX}__{SEL}": [{"cel": {"expression": "expensive"}}]},
        "RC-CEL-COST",
        "Forbidden",
        "spec.devices.requests[0].exactly.selectors[0].cel.expression",
        "Forbidden: too complex, exceeds cost limit",
        {f"{EX}__{SEL}": [{"cel": {"expression": "cheap"}}]},
    ),
    Case(
        "allocation-mode",
        claim_obj,
        {f"{EX}__allocationMode": "Some"},
        "RC-ALLOC-MODE",
        "NotSupported",
        "spec.devices.requests[0].exactly.allocationMode",
        'Unsupported value: "Some": supported values: "All", "ExactCount"',
        {f"{EX}__allocationMode": "All"},
    ),
    Case(
        "count-exact",
        claim_obj,
        {f"{EX}__count": -1},
        "RC-COUNT-EXACT",
        "Invalid",
        "spec.devices.requests[0].exactly.count",
        "Invalid value: -1: must be greater than zero",
        {f"{EX}__count": DELETE},
    ),
    Case(
        "count-all",
        claim_obj,
        {f"{EX}__allocationMode": "All", f"{EX}__count": 2},
        "RC-COUNT-ALL",
        "Invalid",
        "spec.devices.requests[0].exactly.count",
        "Invalid value: 2: must not be specified when allocationMode is 'All'",
        {f"{EX}__count": DELETE},
    ),
    Case(
        "toleration-key",
        claim_obj,
        {f"{EX}__tolerations": [{"key": "a/b/c", "operator": "Exists"}]},
        "RC-TOL-KEY",
        "Invalid",
        "spec.devices.requests[0].exactly.tolerations[0].key",
        "Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
        "and '/' (e.g. 'example.com/MyName')",
        {f"{EX}__tolerations[0]__key": "b/c"},
    ),
    Case(
        "toleration-op",
        claim_obj,
        {f"{EX}__tolerations": [{"key": "k", "operator": "In"}]},
        "RC-TOL-OP",
        "NotSupported",
        "spec.devices.requests[0].exactly.tolerations[0].operator",
        'Unsupported value: "In": supported values: "Equal", "Exists"',
        {f"{EX}__tolerations[0]__operator": DELETE},
    ),
    Case(
        "toleration-value-exists",
        claim_obj,
        {f"{EX}__tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]},
        "RC-TOL-VALUE",
        "Invalid",
        "spec.devices.requests[0].exactly.tolerations[0].value",
        'Invalid value: "v": must be empty for operator `Exists`',
        {f"{EX}__tolerations[0]__value": DELETE},
    ),
    Case(
        "toleration-effect",
        claim_obj,
        {f"{EX}__tolerations": [{"key": "k", "effect": "NoExec"}]},
        "RC-TOL-EFFECT",
        "NotSupported",
        "spec.devices.requests[0].exactly.tolerations[0].effect",
        'Unsupported value: "NoExec": supported values: "NoExecute", "NoSchedule", "None"',
        {f"{EX}__tolerations[0]__effect": "NoExecute"},
    ),
    Case(
        "constraints-max",
        claim_obj,
        {"spec__devices__constraints": [{"matchAttribute": "d.com/a"} for _ in range(33)]},
        "RC-CON-MAX",
        "TooMany",
        "spec.devices.constraints",
        "Too many: 33: must have at most 32 items",
        {"spec__devices__constraints": [{"matchAttribute": "d.com/a"}]},
    ),
    Case(
        "constraint-requests-ref",
        claim_obj,
        {"spec__devices__constraints": [{"requests": ["gpu", "nic"], "matchAttribute": "d.com/a"}]},
        "RC-REF",
        "Invalid",
        "spec.devices.constraints[0].requests[1]",
        f'Invalid value: "nic": {REF}',
        {"spec__devices__constraints[0]__requests": ["gpu"]},
    ),
    Case(
        "constraint-requests-unique",
        claim_obj,
        {"spec__devices__constraints": [{"requests": ["gpu", "gpu"], "matchAttribute": "d.com/a"}]},
        "RC-CON-REQS",
        "Duplicate",
        "spec.devices.constraints[0].requests[1]",
        'Duplicate value: "gpu"',
        {"spec__devices__constraints[0]__requests": ["gpu"]},
    ),
    Case(
        "constraint-attr-required",
        claim_obj,
        {"spec__devices__constraints": [{"requests": ["gpu"]}]},
        "RC-CON-ATTR",
        "Required",
        "spec.devices.constraints[0]",
        'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields '
        "are set",
        {"spec__devices__constraints[0]__matchAttribute": "d.com/a"},
    ),
    Case(
        "constraint-attr-required-135",
        claim_obj,
        {"spec__devices__constraints": [{"requests": ["gpu"]}]},
        "RC-CON-ATTR",
        "Required",
        "spec.devices.constraints[0].matchAttribute",
        "Required value",
        {"spec__devices__constraints[0]__matchAttribute": "d.com/a"},
        version="1.35",
    ),
    Case(
        "constraint-attr-fqn",
        claim_obj,
        {"spec__devices__constraints": [{"matchAttribute": "numa"}]},
        "RC-CON-ATTR",
        "Invalid",
        "spec.devices.constraints[0].matchAttribute",
        'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash',
        {"spec__devices__constraints[0]__matchAttribute": "d.com/numa"},
    ),
    Case(
        "request-ref-subrequest",
        claim_obj,
        {
            f"{R0}__exactly": DELETE,
            f"{R0}__firstAvailable": FA,
            "spec__devices__config": [
                {"requests": ["gpu/tiny"], "opaque": {"driver": "d.com", "parameters": {}}}
            ],
        },
        "RC-REF",
        "Invalid",
        "spec.devices.config[0].requests[0]",
        f'Invalid value: "gpu/tiny": {REF}',
        {"spec__devices__config[0]__requests": ["gpu/small"]},
    ),
    Case(
        "request-ref-two-slashes",
        claim_obj,
        {"spec__devices__config": [{"requests": ["a/b/c"], "opaque": {"driver": "d.com", "parameters": {}}}]},
        "RC-REF",
        "Invalid",
        "spec.devices.config[0].requests[0]",
        f'Invalid value: "a/b/c": {REF}',
        {"spec__devices__config[0]__requests": ["gpu"]},
    ),
    Case(
        "config-max",
        claim_obj,
        {"spec__devices__config": [{"opaque": {"driver": "d.com", "parameters": {}}} for _ in range(33)]},
        "RC-CFG-MAX",
        "TooMany",
        "spec.devices.config",
        "Too many: 33: must have at most 32 items",
        {"spec__devices__config": [{"opaque": {"driver": "d.com", "parameters": {}}}]},
    ),
    Case(
        "config-requests-unique",
        claim_obj,
        {
            "spec__devices__config": [
                {"requests": ["gpu", "gpu"], "opaque": {"driver": "d.com", "parameters": {}}}
            ]
        },
        "RC-CFG-REQS",
        "Duplicate",
        "spec.devices.config[0].requests[1]",
        'Duplicate value: "gpu"',
        {"spec__devices__config[0]__requests": ["gpu"]},
    ),
    Case(
        "config-opaque",
        claim_obj,
        {"spec__devices__config": [{"requests": ["gpu"]}]},
        "RC-CFG-OPAQUE",
        "Required",
        "spec.devices.config[0].opaque",
        "Required value",
        {"spec__devices__config[0]__opaque": {"driver": "d.com", "parameters": {"a": 1}}},
    ),
    Case(
        "config-driver",
        claim_obj,
        {"spec__devices__config": [{"opaque": {"driver": "", "parameters": {}}}]},
        "RC-CFG-DRIVER",
        "Required",
        "spec.devices.config[0].opaque.driver",
        "Required value",
        {"spec__devices__config[0]__opaque__driver": "d.com"},
    ),
    Case(
        "config-params-object",
        claim_obj,
        {"spec__devices__config": [{"opaque": {"driver": "d.com", "parameters": [1, 2]}}]},
        "RC-CFG-PARAMS",
        "Invalid",
        "spec.devices.config[0].opaque.parameters",
        'Invalid value: "<value omitted>": must be a valid JSON object',
        {"spec__devices__config[0]__opaque__parameters": {"a": [1, 2]}},
    ),
    Case(
        "config-params-required",
        claim_obj,
        {"spec__devices__config": [{"opaque": {"driver": "d.com"}}]},
        "RC-CFG-PARAMS",
        "Required",
        "spec.devices.config[0].opaque.parameters",
        "Required value",
        {"spec__devices__config[0]__opaque__parameters": {}},
    ),
    Case(
        "config-params-size",
        claim_obj,
        {"spec__devices__config": [{"opaque": {"driver": "d.com", "parameters": {"x": "y" * 10240}}}]},
        "RC-CFG-PARAMS",
        "TooLong",
        "spec.devices.config[0].opaque.parameters",
        "Too long: may not be more than 10240 bytes",
        {"spec__devices__config[0]__opaque__parameters": {"x": "y"}},
    ),
    Case(
        "derived-name-fqn",
        claim_obj,
        {
            f"{EX}__derivedAttributes": [{"name": "numa", "expression": "1"}],
            "spec__devices__constraints": [{"matchAttribute": "numa"}],
        },
        "RC-DERIVED-NAME",
        "Invalid",
        "spec.devices.requests[0].exactly.derivedAttributes[0].name",
        'Invalid value: "numa": a fully qualified name must be a domain and a name separated by a slash',
        {
            f"{EX}__derivedAttributes[0]__name": "x.com/numa",
            "spec__devices__constraints[0]__matchAttribute": "x.com/numa",
        },
        gates="DRADerivedAttributes=true",
    ),
    Case(
        "derived-used",
        claim_obj,
        {f"{EX}__derivedAttributes": [{"name": "x.com/numa", "expression": "1"}]},
        "RC-DERIVED-USED",
        "Invalid",
        "spec.devices.requests[0].exactly.derivedAttributes[0].name",
        'Invalid value: "x.com/numa": must be referenced by at least one matchAttribute or distinctAttribute '
        "constraint targeting this request",
        {"spec__devices__constraints": [{"requests": ["gpu"], "matchAttribute": "x.com/numa"}]},
        gates="DRADerivedAttributes=true",
    ),
    Case(
        "derived-unique",
        claim_obj,
        {
            f"{EX}__derivedAttributes": [
                {"name": "x.com/n", "expression": "1"},
                {"name": "x.com/n", "expression": "2"},
            ],
            "spec__devices__constraints": [{"matchAttribute": "x.com/n"}],
        },
        "RC-DERIVED-UNIQUE",
        "Duplicate",
        "spec.devices.requests[0].exactly.derivedAttributes[1]",
        'Duplicate value: "x.com/n"',
        {
            f"{EX}__derivedAttributes[1]__name": "x.com/m",
            "spec__devices__constraints[0]__matchAttribute": "x.com/n",
        },
        gates="DRADerivedAttributes=true",
    ),
    Case(
        "derived-expr-required",
        claim_obj,
        {
            f"{EX}__derivedAttributes": [{"name": "x.com/n"}],
            "spec__devices__constraints": [{"matchAttribute": "x.com/n"}],
        },
        "RC-DERIVED-EXPR",
        "Required",
        "spec.devices.requests[0].exactly.derivedAttributes[0].expression",
        "Required value",
        {f"{EX}__derivedAttributes[0]__expression": "1"},
        gates="DRADerivedAttributes=true",
    ),
    Case(
        "derived-max",
        claim_obj,
        {f"{EX}__derivedAttributes": [{"name": f"x.com/n{i}", "expression": "1"} for i in range(33)]},
        "RC-DERIVED-MAX",
        "TooMany",
        "spec.devices.requests[0].exactly.derivedAttributes",
        "Too many: 33: must have at most 32 items",
        {f"{EX}__derivedAttributes": DELETE},
        gates="DRADerivedAttributes=true",
    ),
    Case(
        "derived-total-cost",
        claim_obj,
        {
            f"{EX}__derivedAttributes": [
                {"name": "x.com/a", "expression": "heavy"},
                {"name": "x.com/b", "expression": "heavy"},
            ],
            "spec__devices__constraints": [{"matchAttribute": "x.com/a"}, {"matchAttribute": "x.com/b"}],
        },
        "RC-DERIVED-COST",
        "Forbidden",
        "spec.devices",
        "Forbidden: too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit",
        {f"{EX}__derivedAttributes[1]__expression": "1"},
        gates="DRADerivedAttributes=true",
    ),
    # template
    Case(
        "template-metadata",
        template_obj,
        {"spec__metadata__name": "x"},
        "RCT-TMPL-META",
        "Forbidden",
        "spec.metadata.name",
        "Forbidden: cannot be set",
        {"spec__metadata__name": DELETE},
    ),
    Case(
        "template-spec",
        template_obj,
        {"spec__spec__devices__requests[0]__name": "A"},
        "RC-REQ-NAME",
        "Invalid",
        "spec.spec.devices.requests[0].name",
        f'Invalid value: "A": {LABEL_MSG}',
        {"spec__spec__devices__requests[0]__name": "a"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_claim_rule(case: Case) -> None:
    check_case(case)


def test_valid_claim_and_template() -> None:
    assert errors(claim_obj()) == []
    assert errors(template_obj()) == []


def test_v1beta1_flat_request_is_converted() -> None:
    beta = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "d"},
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "GPU"}]}},
    }
    assert [(f.path, f.error_type) for f in errors(beta)] == [
        ("spec.devices.requests[0].exactly.deviceClassName", "Invalid")
    ]
    empty = {**beta, "spec": {"devices": {"requests": [{"name": "gpu"}]}}}
    assert [(f.rule, f.error_type) for f in errors(empty)] == [("RC-REQ-ONEOF", "Required")]


def test_admin_access_is_a_warning_offline() -> None:
    found = check_object(mutate(claim_obj(), **{f"{EX}__adminAccess": True}), opts())
    assert [(f.rule, f.severity.value, f.path) for f in found] == [
        ("RC-ADMIN-NS", "warning", "spec.devices.requests[0].exactly.adminAccess")
    ]


def test_cel_layer_missing_skips_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(dractl.cel, "compile_selector")
    cel_checks._compile.cache_clear()
    bad = mutate(claim_obj(), **{f"{EX}__{SEL}": [{"cel": {"expression": "syntax("}}]})
    assert errors(bad) == []
    long = mutate(claim_obj(), **{f"{EX}__{SEL}": [{"cel": {"expression": "x" * 10241}}]})
    assert [f.rule for f in errors(long)] == ["RC-CEL-LEN"]
