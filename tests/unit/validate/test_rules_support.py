"""Builders and assertions shared by the table-driven rule tests (test_rules_*.py).

Each case is: a valid base object, a mutation that breaks one rule, the finding the
API server would answer (rule, error type, field path, message), and a mutation that
fixes it again (the fixed object must not produce that rule's errors).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from dractl.model.features import Features
from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.rules import check_object

DELETE = object()
V1 = "resource.k8s.io/v1"

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def slice_obj() -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "node-1-gpu"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "node-1",
            "devices": [
                {
                    "name": "gpu-0",
                    "attributes": {"model": {"string": "a100"}, "driverVersion": {"version": "1.2.3"}},
                    "capacity": {"memory": {"value": "40Gi"}},
                }
            ],
        },
    }


def claim_obj() -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}
        },
    }


def template_obj() -> dict[str, Any]:
    claim = claim_obj()
    return {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "default"},
        "spec": {"metadata": {"labels": {"app": "x"}}, "spec": claim["spec"]},
    }


def class_obj() -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    }


def taint_rule_obj() -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "DeviceTaintRule",
        "metadata": {"name": "maintenance"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
            "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"},
        },
    }


_TOKEN = re.compile(r"\[([^\]]*)\]|\.?([^.\[]+)")


def _tokens(path: str) -> list[Any]:
    out: list[Any] = []
    for idx, name in _TOKEN.findall(path):
        out.append(int(idx) if idx.isdigit() else idx if idx else name)
    return out


def mutate(obj: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy with ``path=value`` changes; the path uses ``__`` for '.', e.g.
    ``spec__devices[0]__name="X"``; ``DELETE`` removes the field."""
    out = copy.deepcopy(obj)
    for key, value in changes.items():
        set_path(out, key.replace("__", "."), value)
    return out


def set_path(obj: Any, path: str, value: Any) -> None:
    toks = _tokens(path)
    cur = obj
    for tok in toks[:-1]:
        if isinstance(cur, dict) and tok not in cur:
            cur[tok] = {}
        cur = cur[tok]
    last = toks[-1]
    if value is DELETE:
        cur.pop(last, None)
    else:
        cur[last] = copy.deepcopy(value)


def opts(version: str = "1.37", gates: str = "", **kw: Any) -> ValidateOptions:
    features = (
        Features.parse(gates, Features.for_version(version)) if gates else Features.for_version(version)
    )
    return ValidateOptions(kube_version=version, features=features, **kw)


def errors(obj: dict[str, Any], o: ValidateOptions | None = None) -> list[Finding]:
    return [f for f in check_object(obj, o or opts()) if f.severity is Severity.ERROR]


@dataclass
class Case:
    """One rule, broken and fixed."""

    id: str
    base: Any
    broken: dict[str, Any]
    rule: str
    etype: str | None
    path: str
    message: str
    fixed: dict[str, Any] = field(default_factory=dict)
    version: str = "1.37"
    gates: str = ""
    status: bool = False


def check_case(case: Case) -> None:
    o = opts(case.version, case.gates, status=case.status)
    base = case.base()
    broken = mutate(base, **case.broken)
    before = copy.deepcopy(broken)
    found = [f for f in check_object(broken, o) if f.rule == case.rule]
    assert broken == before, f"{case.id}: check_object mutated its input"
    wanted = [f for f in found if f.path == case.path and f.error_type == case.etype]
    assert wanted, f"{case.id}: no {case.rule} {case.etype} at {case.path}; got " + "; ".join(
        f"{f.rule} {f.error_type} {f.path}: {f.message}" for f in check_object(broken, o)
    )
    assert any(f.message == case.message for f in wanted), (
        f"{case.id}: messages {[f.message for f in wanted]!r} != {case.message!r}"
    )
    fixed = mutate(broken, **case.fixed) if case.fixed else base
    left = [f for f in check_object(fixed, o) if f.rule == case.rule and f.severity is Severity.ERROR]
    assert not left, f"{case.id}: still {[(f.path, f.message) for f in left]}"
