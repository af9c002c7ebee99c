"""The validation engine: dispatch by apiVersion/kind, positions, identity, summary, exit code."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from dractl.errors import InputError, SourcePos
from dractl.io import load_paths
from dractl.model.objects import Origin
from dractl.validate import engine
from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.versions import RuntimeConfig

OUTPUT_SCHEMA = Path(__file__).resolve().parents[3] / "schemas" / "output" / "validation-report.schema.json"


@dataclass
class FakeDoc:
    raw: dict[str, Any]
    origin: Origin = field(default_factory=lambda: Origin("in.yaml", 0))
    duplicate_keys: tuple[tuple[str, int, int], ...] = ()
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: str = "") -> tuple[int | None, int | None]:
        return self.positions.get(path, (None, None))


CLAIM = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ns"},
    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
}


def run(*raws: dict[str, Any], **opts: Any) -> tuple[list[Finding], Any]:
    docs = [FakeDoc(copy.deepcopy(r), Origin("in.yaml", i)) for i, r in enumerate(raws)]
    before = [copy.deepcopy(d.raw) for d in docs]
    report = engine.validate_docs(docs, ValidateOptions(semantic=opts.pop("semantic", False), **opts))
    assert [d.raw for d in docs] == before, "documents must not be mutated"
    return list(report.findings), report


def rules(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity.value, f.path) for f in findings]


def test_valid_claim() -> None:
    found, report = run(CLAIM)
    assert found == [] and report.exit_code == 0
    assert report.summary.objects == 1 and dict(report.summary.by_kind) == {"ResourceClaim": 1}


def test_identity_and_positions_are_filled_in(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n"
        "  name: c\n  namespace: ns\nspec:\n  devices:\n    requests:\n"
        "    - name: gpu\n      exactly:\n        deviceClassName: gpu\n"
        "        colour: red\n"
    )
    loaded = load_paths([str(tmp_path / "c.yaml")])
    report = engine.validate_docs(loaded.docs, ValidateOptions(semantic=False))
    (f,) = report.findings
    assert (f.file, f.document, f.line, f.column) == (str(tmp_path / "c.yaml"), 0, 12, 9)
    assert (f.kind, f.name, f.namespace) == ("ResourceClaim", "c", "ns")
    assert f.one_line().endswith(
        "12:9: spec.devices.requests[0].exactly.colour: unknown field "
        '"spec.devices.requests[0].exactly.colour"'
    )


def test_missing_path_position_falls_back_to_nearest_ancestor() -> None:
    doc = FakeDoc(
        {**CLAIM, "spec": {"devices": {"requests": [{"exactly": {"deviceClassName": "g"}}]}}},
        positions={"spec.devices.requests[0]": (9, 7)},
    )
    report = engine.validate_docs([doc], ValidateOptions(semantic=False))
    (f,) = report.findings
    assert (f.rule, f.path, f.line, f.column) == ("SCHEMA-REQUIRED", "spec.devices.requests[0].name", 9, 7)


def test_missing_type_meta_with_case_hint() -> None:
    doc = FakeDoc(
        {"apiversion": "resource.k8s.io/v1", "kind": "ResourceClaim"}, positions={"apiversion": (3, 1)}
    )
    found = list(engine.validate_docs([doc], ValidateOptions()).findings)
    assert rules(found) == [("SCHEMA-NO-APIVERSION", "error", "apiVersion")]
    assert found[0].message == 'apiVersion not set (found "apiversion": field names are case-sensitive)'
    assert found[0].line == 3


def test_missing_both_without_hint() -> None:
    found, report = run({"spec": {}})
    assert rules(found) == [
        ("SCHEMA-NO-APIVERSION", "error", "apiVersion"),
        ("SCHEMA-NO-KIND", "error", "kind"),
    ]
    assert found[0].message == "apiVersion not set"
    assert report.objects[0].checked


def test_non_string_kind_is_a_type_error() -> None:
    found, _ = run({"apiVersion": "resource.k8s.io/v1", "kind": 3})
    assert rules(found) == [("SCHEMA-TYPE", "error", "kind")]


def test_other_kinds_are_skipped_and_counted() -> None:
    found, report = run(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x", "bogus": 1}},
        {"apiVersion": "v1", "kind": "ConfigMap", "data": {"nonsense": True}},
        CLAIM,
    )
    assert found == []
    assert dict(report.summary.skipped) == {"Namespace": 1, "ConfigMap": 1}
    assert report.summary.objects == 1
    assert [o.status for o in report.objects] == ["skipped", "skipped", "valid"]


def test_workloads_are_checked_through_their_pod_templates() -> None:
    found, report = run({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"nonsense": True}})
    assert found == [] and report.objects[0].checked and report.summary.objects == 1


def test_pods_are_checked_only_where_dractl_reads() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "restartPolicy": "Never",
            "whatever": 1,
            "resourceClaims": [
                {"name": "a", "resourceClaimName": "c", "extra": 1},
                {"name": "b", "source": {"resourceClaimTemplateName": "t"}},
            ],
            "containers": [{"name": "m", "image": "i", "resources": {"claims": [{"name": "a", "x": 1}]}}],
        },
    }
    found, _ = run(pod)
    assert sorted(rules(found)) == [
        ("POD-CLAIM-SOURCE", "error", "spec.resourceClaims[1].source"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.containers[0].resources.claims[0].x"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.resourceClaims[0].extra"),
    ]
    lenient, _ = run(pod, lenient=True)
    assert {f.rule: f.severity.value for f in lenient} == {
        "POD-CLAIM-SOURCE": "error",
        "SCHEMA-UNKNOWN-FIELD": "warning",
    }


BETAS = RuntimeConfig.parse("resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")


def test_deprecated_version_is_a_warning_and_still_checked() -> None:
    beta = {
        **CLAIM,
        "apiVersion": "resource.k8s.io/v1beta1",
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "bogus": 1}]}},
    }
    found, _ = run(beta, runtime=BETAS)
    assert rules(found) == [
        ("API-VERSION-DEPRECATED", "warning", "apiVersion"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.devices.requests[0].bogus"),
    ]
    assert (
        found[0].message
        == "resource.k8s.io/v1beta1 ResourceClaim is deprecated in v1.35+, unavailable in v1.38+"
    )
    ok, _ = run({**beta, "spec": {}}, kube_version="1.34", runtime=BETAS)
    assert ok == []


def test_beta_version_not_served_by_default_is_an_error_and_still_checked() -> None:
    beta = {
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": "true"}}], "bogus": 1},
    }
    found, report = run(beta)
    assert rules(found) == [
        ("API-VERSION-NOT-ENABLED", "error", "apiVersion"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.bogus"),
    ]
    assert "not served by a default Kubernetes v1.37 API server" in found[0].message
    assert found[0].message.endswith(
        "; use resource.k8s.io/v1, or --runtime-config resource.k8s.io/v1beta2=true "
        "if your cluster enables it"
    )
    assert report.exit_code == 1
    enabled, _ = run(beta, runtime=RuntimeConfig.parse("resource.k8s.io/v1beta2=true"))
    assert rules(enabled) == [
        ("API-VERSION-DEPRECATED", "warning", "apiVersion"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.bogus"),
    ]


def test_not_served_version_is_an_error_without_schema_findings() -> None:
    old = {
        "apiVersion": "resource.k8s.io/v1alpha2",
        "kind": "ResourceClaim",
        "spec": {"resourceClassName": "x"},
    }
    found, report = run(old)
    assert rules(found) == [("API-VERSION-NOT-SERVED", "error", "apiVersion")]
    assert report.exit_code == 1


def test_alpha_version_is_an_error_and_still_checked() -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"selector": {}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    found, _ = run(rule)
    assert rules(found) == [
        ("API-VERSION-ALPHA", "error", "apiVersion"),
        ("SCHEMA-UNKNOWN-FIELD", "error", "spec.selector"),
    ]


def test_unknown_kind_in_the_group() -> None:
    found, _ = run({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClass"})
    assert rules(found) == [("API-UNKNOWN-KIND", "error", "kind")]


def test_duplicate_keys() -> None:
    doc = FakeDoc(copy.deepcopy(CLAIM), duplicate_keys=(("spec.devices", 7, 3),))
    (f,) = engine.validate_docs([doc], ValidateOptions(semantic=False)).findings
    assert (f.rule, f.severity, f.line, f.column, f.message) == (
        "SCHEMA-DUPLICATE-FIELD",
        Severity.ERROR,
        7,
        3,
        'duplicate field "spec.devices"',
    )
    (w,) = engine.validate_docs([doc], ValidateOptions(semantic=False, lenient=True)).findings
    assert w.severity is Severity.WARNING


def test_semantic_rules_run_only_after_decoding_succeeds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def fake(raw: dict[str, Any], opts: ValidateOptions) -> list[Finding]:
        calls.append(raw)
        return [
            Finding(Severity.ERROR, "RC-X", "Invalid value", "spec.devices.requests[0].name", "Invalid"),
            Finding(Severity.ERROR, "RC-REQ", "Required value", "spec.devices.requests[1].name", "Required"),
        ]

    monkeypatch.setattr("dractl.validate.rules.check_object", fake)
    doc = FakeDoc(copy.deepcopy(CLAIM), positions={"spec.devices.requests[0].name": (9, 7)})
    found = engine.validate_docs([doc], ValidateOptions()).findings
    assert [(f.rule, f.line, f.kind, f.name, f.namespace) for f in found] == [
        ("RC-REQ", None, "ResourceClaim", "c", "ns"),
        ("RC-X", 9, "ResourceClaim", "c", "ns"),
    ]
    # A schema Required on the same path is not repeated; a decode error stops semantic checks.
    missing = copy.deepcopy(CLAIM)
    missing["spec"]["devices"]["requests"].append({"exactly": {"deviceClassName": "g"}})
    found = engine.validate_docs([FakeDoc(missing)], ValidateOptions()).findings
    assert sorted(f.rule for f in found) == ["RC-X", "SCHEMA-REQUIRED"]
    calls.clear()
    broken = {**CLAIM, "spec": {"devices": {"requests": [{"name": 1}]}}}
    engine.validate_docs([FakeDoc(broken)], ValidateOptions())
    engine.validate_docs([FakeDoc(copy.deepcopy(CLAIM))], ValidateOptions(semantic=False))
    assert calls == []


def test_report_exit_codes_and_order() -> None:
    warn = {**CLAIM, "apiVersion": "resource.k8s.io/v1beta1", "spec": {}}
    _, report = run(warn, runtime=BETAS)
    assert report.exit_code == 0
    _, strict = run(warn, runtime=BETAS, strict=True)
    assert strict.exit_code == 1 and strict.strict
    _, report = run({"kind": "X"}, warn, runtime=BETAS)
    assert [f.document for f in report.findings] == [0, 1]
    assert report.exit_code == 1
    err = InputError("invalid YAML", SourcePos("bad.yaml", 0, 3, 1))
    report = engine.validate_docs([], ValidateOptions(), input_errors=[err], files=["bad.yaml"])
    assert report.exit_code == 2 and report.summary.files == 1 and report.summary.input_errors == 1


def test_to_dict_matches_the_published_output_schema() -> None:
    _, report = run(
        CLAIM,
        {"apiVersion": "v1", "kind": "Namespace"},
        {"kind": "X"},
        {**CLAIM, "apiVersion": "resource.k8s.io/v1beta2", "spec": {"x": 1}},
        runtime=BETAS,
    )
    doc = report.to_dict()
    Draft202012Validator(json.loads(OUTPUT_SCHEMA.read_text())).validate(doc)
    assert doc["summary"]["findingsByRule"] == {
        "API-VERSION-DEPRECATED": 1,
        "SCHEMA-NO-APIVERSION": 1,
        "SCHEMA-UNKNOWN-FIELD": 1,
    }
    assert report.rule_description("SCHEMA-UNKNOWN-FIELD").startswith("A field the API version")


def test_dra_kind_in_the_wrong_group_is_not_skipped() -> None:
    found, report = run({**CLAIM, "apiVersion": "v1"}, {**CLAIM, "apiVersion": "resource.k8s.io"})
    assert [(f.rule, f.message) for f in found] == [
        ("API-UNKNOWN-KIND", 'no matches for kind "ResourceClaim" in version "v1"; use resource.k8s.io/v1'),
        (
            "API-UNKNOWN-KIND",
            'no matches for kind "ResourceClaim" in version "resource.k8s.io"; use resource.k8s.io/v1',
        ),
    ]
    assert report.summary.skipped_total == 0


def test_kind_in_the_wrong_case_gets_a_hint() -> None:
    found, _ = run({**CLAIM, "kind": "resourceclaim"})
    assert [f.message for f in found] == [
        'no matches for kind "resourceclaim" in version "resource.k8s.io/v1" (did you mean "ResourceClaim"? '
        "kinds are case-sensitive)"
    ]
