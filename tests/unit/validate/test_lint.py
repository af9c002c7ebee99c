"""Cross-object lint (dractl.validate.lint): one case per check, plus the clean counterpart."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

import dractl.cel
from dractl.io.loader import load_paths
from dractl.validate.findings import Finding
from dractl.validate.lint import lint
from dractl.validate.options import ValidateOptions

V1 = "resource.k8s.io/v1"


def slice_(
    name: str,
    devices: list[dict[str, Any]] | None = None,
    pool: str = "node-1",
    gen: int = 1,
    count: int = 1,
    node: str = "node-1",
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": "gpu.example.com",
        "pool": {"name": pool, "generation": gen, "resourceSliceCount": count},
        "nodeName": node,
    }
    if devices is not None:
        body["devices"] = devices
    body.update(spec)
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def gpu(name: str, **attrs: Any) -> dict[str, Any]:
    return {
        "name": name,
        "attributes": {"model": {"string": "a100"}, **{k: {"string": v} for k, v in attrs.items()}},
        "capacity": {"memory": {"value": "40Gi"}},
    }


def claim(requests: list[dict[str, Any]], ns: str = "default", **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": ns},
        "spec": {"devices": {"requests": requests, **devices}},
    }


def req(name: str = "gpu", cls: str = "gpu.example.com", **exactly: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, **exactly}}


CLASS = {
    "apiVersion": V1,
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}


def run(
    tmp_path: Path, *objs: dict[str, Any], context: list[dict[str, Any]] | None = None, version: str = "1.37"
) -> list[Finding]:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(list(objs), sort_keys=False))
    docs = load_paths([str(path)]).docs
    ctx_docs = []
    if context:
        cpath = tmp_path / "ctx.yaml"
        cpath.write_text(yaml.safe_dump_all(context, sort_keys=False))
        ctx_docs = load_paths([str(cpath)]).docs
    from dractl.model.features import Features

    return lint(
        docs,
        ValidateOptions(kube_version=version, features=Features.for_version(version)),
        context_docs=ctx_docs,
    )


def rules(found: list[Finding]) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in found]


@pytest.fixture(autouse=True)
def no_cel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(dractl.cel, "compile_selector", raising=False)


def test_missing_device_class(tmp_path: Path) -> None:
    found = run(tmp_path, claim([req(cls="missing")]), CLASS)
    assert rules(found) == [("ADV-CLASS-EXISTS", "spec.devices.requests[0].exactly.deviceClassName")]
    assert found[0].line == 11 and found[0].severity.value == "warning" and found[0].kind == "ResourceClaim"
    assert "'missing'" in found[0].message
    assert run(tmp_path, claim([req()]), CLASS) == []
    assert run(tmp_path, claim([req()]), context=[CLASS]) == []


def test_selector_attribute_no_device_publishes(tmp_path: Path) -> None:
    sel = [
        {
            "cel": {
                "expression": 'device.attributes["gpu.example.com"].uuid == "x" && '
                'device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Gi"))'
            }
        }
    ]
    found = run(tmp_path, slice_("s", [gpu("g0")]), CLASS, claim([req(selectors=sel)]))
    assert rules(found) == [
        ("LINT-SELECTOR-UNKNOWN-ATTRIBUTE", "spec.devices.requests[0].exactly.selectors[0].cel.expression")
    ]
    assert found[0].message == (
        "selector references attribute 'gpu.example.com/uuid', published by 0 of 1 devices "
        "of that domain in the inputs"
    )
    fixed = run(tmp_path, slice_("s", [gpu("g0", uuid="u0")]), CLASS, claim([req(selectors=sel)]))
    assert fixed == []


def test_selector_domain_with_slash(tmp_path: Path) -> None:
    sel = [{"cel": {"expression": 'device.attributes["gpu.example.com/rdma"].bool == true'}}]
    found = run(tmp_path, CLASS, claim([req(selectors=sel)]))
    assert [f.rule for f in found] == ["LINT-SELECTOR-UNKNOWN-ATTRIBUTE"]
    assert "device.attributes['gpu.example.com'].rdma" in found[0].message


def test_pool_generations_and_completeness(tmp_path: Path) -> None:
    found = run(tmp_path, slice_("a", [gpu("g0")], gen=2, count=2), slice_("b", [gpu("g1")], gen=1, count=2))
    assert rules(found) == [
        ("ADV-POOL-CONSISTENT", "spec.pool.resourceSliceCount"),
        ("ADV-POOL-CONSISTENT", "spec.pool.generation"),
    ]
    assert "incomplete: 1 of 2 slices" in found[0].message
    assert run(tmp_path, slice_("a", [gpu("g0")], count=2), slice_("b", [gpu("g1")], count=2)) == []


def test_duplicate_device_across_slices_of_a_pool(tmp_path: Path) -> None:
    found = run(tmp_path, slice_("a", [gpu("g0")], count=2), slice_("b", [gpu("g0")], count=2))
    assert rules(found) == [("ADV-DEVICE-UNIQUE-POOL", "spec.devices[0].name")]
    assert found[0].file.endswith("in.yaml") and found[0].document == 1


def test_counters(tmp_path: Path) -> None:
    counters = slice_(
        "c", None, count=2, sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "40Gi"}}}]
    )
    dev = {
        "name": "part",
        "consumesCounters": [
            {"counterSet": "gpu-0", "counters": {"mem": {"value": "80Gi"}, "sm": {"value": "1"}}}
        ],
    }
    found = run(tmp_path, counters, slice_("d", [dev], count=2))
    assert rules(found) == [
        ("LINT-COUNTER-EXCEEDS", "spec.devices[0].consumesCounters[0].counters[mem]"),
        ("ADV-COUNTERSET-EXISTS", "spec.devices[0].consumesCounters[0].counters[sm]"),
    ]
    missing = run(
        tmp_path,
        slice_(
            "d",
            [{"name": "p", "consumesCounters": [{"counterSet": "x", "counters": {"mem": {"value": "1"}}}]}],
        ),
    )
    assert rules(missing) == [("ADV-COUNTERSET-EXISTS", "spec.devices[0].consumesCounters[0].counterSet")]
    ok = {
        "name": "part",
        "consumesCounters": [{"counterSet": "gpu-0", "counters": {"mem": {"value": "20Gi"}}}],
    }
    assert run(tmp_path, counters, slice_("d", [ok], count=2)) == []


def test_duplicate_uuid(tmp_path: Path) -> None:
    found = run(tmp_path, slice_("s", [gpu("g0", uuid="u-1"), gpu("g1", uuid="u-1")]))
    assert rules(found) == [("LINT-DUPLICATE-UUID", "spec.devices[1].attributes[uuid]")]
    assert run(tmp_path, slice_("s", [gpu("g0", uuid="u-1"), gpu("g1", uuid="u-2")])) == []


def test_devices_and_counters_in_one_slice_before_135(tmp_path: Path) -> None:
    mixed = slice_("s", [gpu("g0")], sharedCounters=[{"name": "c", "counters": {"m": {"value": "1"}}}])
    assert rules(run(tmp_path, mixed, version="1.34")) == [("LINT-DEVICES-AND-COUNTERS", "spec")]
    assert run(tmp_path, mixed, version="1.37") == []  # the server rule RS-DEVICES-XOR-COUNTERS


def test_taint_rule_selectors(tmp_path: Path) -> None:
    spec: dict[str, Any] = {"deviceSelector": {}, "taint": {"key": "k", "effect": "NoExecute"}}
    rule = {"apiVersion": V1, "kind": "DeviceTaintRule", "metadata": {"name": "r"}, "spec": spec}
    found = run(tmp_path, rule)
    assert rules(found) == [("LINT-DTR-EMPTY-SELECTOR", "spec.deviceSelector")]
    assert "evicts every pod" in found[0].message
    spec.pop("deviceSelector")
    assert rules(run(tmp_path, rule)) == [("LINT-DTR-NO-SELECTOR", "spec")]
    spec["deviceSelector"] = {"driver": "gpu.example.com"}
    assert run(tmp_path, rule) == []


def test_tolerations_that_tolerate_nothing(tmp_path: Path) -> None:
    found = run(tmp_path, CLASS, claim([req(tolerations=[{"operator": "Equal", "effect": "NoSchedule"}])]))
    assert rules(found) == [("LINT-TOLERATION-NOTHING", "spec.devices.requests[0].exactly.tolerations[0]")]
    tainted = slice_("s", [{**gpu("g0"), "taints": [{"key": "example.com/broken", "effect": "NoSchedule"}]}])
    wrong_key = run(
        tmp_path,
        tainted,
        CLASS,
        claim([req(tolerations=[{"key": "example.com/brokn", "operator": "Exists"}])]),
    )
    assert rules(wrong_key) == [
        ("LINT-TOLERATION-NOTHING", "spec.devices.requests[0].exactly.tolerations[0].key")
    ]
    right = run(
        tmp_path,
        tainted,
        CLASS,
        claim([req(tolerations=[{"key": "example.com/broken", "operator": "Exists"}])]),
    )
    assert right == []


def test_admin_access_namespace_label(tmp_path: Path) -> None:
    ns: dict[str, Any] = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    found = run(tmp_path, CLASS, claim([req(adminAccess=True)]), context=[ns])
    assert [(f.rule, f.severity.value, f.error_type) for f in found] == [
        ("RC-ADMIN-NS", "error", "Forbidden")
    ]
    ns["metadata"]["labels"] = {"resource.kubernetes.io/admin-access": "true"}
    assert run(tmp_path, CLASS, claim([req(adminAccess=True)]), context=[ns]) == []


def test_offline_admin_warning_is_settled_by_a_known_namespace(tmp_path: Path) -> None:
    from dractl.validate.lint import settle_offline_warnings
    from dractl.validate.rules import check_object

    obj = claim([req(adminAccess=True)])
    offline = [f for f in check_object(obj, ValidateOptions()) if f.rule == "RC-ADMIN-NS"]
    offline = [replace(f, namespace="default") for f in offline]
    assert len(offline) == 1 and offline[0].severity.value == "warning"
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    path = tmp_path / "ns.yaml"
    path.write_text(yaml.safe_dump(ns))
    assert settle_offline_warnings(offline, [], load_paths([str(path)]).docs) == []
    assert settle_offline_warnings(offline, [], []) == offline


def test_extended_resource_names_unique(tmp_path: Path) -> None:
    a = {**CLASS, "spec": {"extendedResourceName": "example.com/gpu"}}
    b = {**a, "metadata": {"name": "other"}}
    assert rules(run(tmp_path, a, b)) == [("ADV-EXTRES-UNIQUE", "spec.extendedResourceName")]


class FakeSelector:
    def __init__(self, expr: str) -> None:
        self.expr = expr

    def matches(self, device: Any, **_: Any) -> bool:  # (activations=…, as the real Selector)
        if "a100" in self.expr:
            return device.attributes["model"].value == "a100" if "model" in device.attributes else False
        return "h100" not in self.expr


@pytest.fixture()
def fake_cel(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(dractl.cel, "compile_selector", lambda expr, **kw: FakeSelector(expr), raising=False)
    yield


def test_selector_matches_no_device(tmp_path: Path, fake_cel: None) -> None:
    h100 = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]
    found = run(tmp_path, slice_("s", [gpu("g0")]), CLASS, claim([req(selectors=h100)]))
    assert rules(found) == [("LINT-SELECTOR-NO-MATCH", "spec.devices.requests[0].exactly")]
    assert found[0].message == (
        "request 'gpu' matches 0 of the 1 devices of class 'gpu.example.com' in the inputs"
    )


def test_request_more_devices_than_a_node_has(tmp_path: Path, fake_cel: None) -> None:
    a100 = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}]
    two_nodes = [
        slice_("s1", [gpu("g0"), gpu("g1")], pool="n1", node="n1"),
        slice_("s2", [gpu("g0")], pool="n2", node="n2"),
    ]
    found = run(tmp_path, *two_nodes, CLASS, claim([req(selectors=a100, count=3)]))
    assert rules(found) == [("LINT-REQUEST-EXCEEDS-NODE", "spec.devices.requests[0].exactly.count")]
    assert "at most 2 matching devices" in found[0].message
    assert run(tmp_path, *two_nodes, CLASS, claim([req(selectors=a100, count=2)])) == []


def test_every_lint_rule_is_documented() -> None:
    """Every rule id the lint modules emit is in the rule registry with its why and fix."""
    import re

    import dractl.validate.lint as lint_module
    from dractl.validate.catalog import lookup

    here = Path(lint_module.__file__).parent
    sources = [here / "lint.py", *sorted((here / "rules").glob("x*.py"))]
    emitted = {m for p in sources for m in re.findall(r'"((?:ADV|LINT|RC)-[A-Z0-9-]+)"', p.read_text())}
    assert len(emitted) >= 15, emitted
    for rule in sorted(emitted):
        found = lookup(rule)
        assert found is not None and found.why and found.fix, rule


def test_findings_are_sorted_and_stable(tmp_path: Path) -> None:
    objs = [claim([req(cls="x")]), slice_("a", [gpu("g0")], count=2), slice_("b", [gpu("g0")], count=2)]
    first = run(tmp_path, *objs)
    assert first == run(tmp_path, *objs)
    assert first == sorted(first, key=Finding.sort_key)


def test_shared_parent_uuid_is_not_a_duplicate(tmp_path: Path) -> None:
    # Every MIG device of one GPU carries its parent's UUID: a reference, not an identity.
    migs = [gpu("mig-0", uuid="MIG-0", parentUUID="GPU-0"), gpu("mig-1", uuid="MIG-1", parentUUID="GPU-0")]
    assert run(tmp_path, slice_("s", migs)) == []
