"""Rule suppression (issue 14 item 3): flags, config excludes and the per-object annotation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from dractl.model.objects import Origin
from dractl.validate.findings import Finding, Severity
from dractl.validate.suppress import (
    Exclude,
    Policy,
    annotation_lookup,
    parse_annotation,
    split,
    split_rules,
    unknown_patterns,
)

KNOWN = ["ADV-CLASS-EXISTS", "LINT-SELECTOR-NO-MATCH", "LINT-SELECTOR-UNKNOWN-ATTRIBUTE", "RC-REQ-NAME"]


def f(
    rule: str,
    file: str = "deploy/a.yaml",
    name: str = "c",
    document: int = 0,
    severity: Severity = Severity.WARNING,
) -> Finding:
    return Finding(
        severity,
        rule,
        "m",
        "spec",
        file=file,
        document=document,
        kind="ResourceClaim",
        name=name,
        namespace="ns",
    )


@dataclass
class Doc:
    raw: dict[str, Any]
    origin: Origin = field(default_factory=lambda: Origin("deploy/a.yaml", 0))


def test_skip_and_only_with_wildcards() -> None:
    policy = Policy().with_flags(skip=["lint-selector-*"], only=[])
    out = split([f("ADV-CLASS-EXISTS"), f("LINT-SELECTOR-NO-MATCH")], policy)
    assert [x.rule for x in out.kept] == ["ADV-CLASS-EXISTS"]
    ((gone, why),) = out.suppressed
    assert gone.rule == "LINT-SELECTOR-NO-MATCH" and why.kind == "external" and why.source == "--skip"
    only = split(
        [f("ADV-CLASS-EXISTS"), f("RC-REQ-NAME", severity=Severity.ERROR)],
        Policy().with_flags(only=["RC-REQ-NAME"]),
    )
    assert [x.rule for x in only.kept] == ["RC-REQ-NAME"]
    assert only.suppressed[0][1].justification == "only RC-REQ-NAME reported (--only)"


def test_enable_takes_a_rule_back_and_flags_only_replace_config_only() -> None:
    policy = Policy(skip=(("LINT-*", "cfg"),), enable=("LINT-SELECTOR-NO-MATCH",), only=(("ADV-*", "cfg"),))
    assert policy.decide("LINT-SELECTOR-NO-MATCH", "x") is not None  # not in only
    flagged = policy.with_flags(only=["LINT-SELECTOR-NO-MATCH,LINT-SELECTOR-UNKNOWN-ATTRIBUTE"])
    assert flagged.decide("LINT-SELECTOR-NO-MATCH", "x") is None
    assert flagged.decide("LINT-SELECTOR-UNKNOWN-ATTRIBUTE", "x") is not None  # still skipped by the config


@pytest.mark.parametrize(
    "pattern, file, hit",
    [
        ("charts/*/tests/*", "charts/gpu/tests/t.yaml", True),
        ("charts/*/tests/*", "charts/gpu/templates/t.yaml", False),
        ("vendor/", "vendor/x/y.yaml", True),
        ("vendor/**", "vendor/x/y.yaml", True),
        ("*.generated.yaml", "a/b/c.generated.yaml", True),
        ("vendor", "vendorized/x.yaml", False),
        ("vendor", "-", False),
    ],
)
def test_path_excludes_are_relative_to_the_config_folder(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, pattern: str, file: str, hit: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    policy = Policy(excludes=(Exclude(pattern, (), str(tmp_path)),))
    assert (policy.decide("ADV-CLASS-EXISTS", file) is not None) is hit
    scoped = Policy(excludes=(Exclude(pattern, ("LINT-*",), str(tmp_path)),))
    assert scoped.decide("ADV-CLASS-EXISTS", file) is None


def test_annotation_needs_a_reason_and_known_rules() -> None:
    assert parse_annotation("ADV-CLASS-EXISTS: installed by the gpu-operator chart", KNOWN).problem == ""
    assert parse_annotation("adv-class-exists,lint-selector-no-match: shared", KNOWN).rules == (
        "ADV-CLASS-EXISTS",
        "LINT-SELECTOR-NO-MATCH",
    )
    assert "needs a reason" in parse_annotation("ADV-CLASS-EXISTS", KNOWN).problem
    assert "needs a reason" in parse_annotation("ADV-CLASS-EXISTS:   ", KNOWN).problem
    assert "unknown rule ADV-CLASS-EXIST" in parse_annotation("ADV-CLASS-EXIST: typo", KNOWN).problem
    assert "names no rule" in parse_annotation(": why", KNOWN).problem
    assert parse_annotation(42, KNOWN).problem and parse_annotation("", KNOWN).problem


def test_annotation_suppresses_only_its_object() -> None:
    annotated = Doc(
        {
            "kind": "ResourceClaim",
            "metadata": {
                "name": "c",
                "namespace": "ns",
                "annotations": {
                    "dractl.io/ignore": "ADV-CLASS-EXISTS: the class comes from the platform chart"
                },
            },
        }
    )
    other = Doc(
        {"kind": "ResourceClaim", "metadata": {"name": "d", "namespace": "ns"}}, Origin("deploy/a.yaml", 1)
    )
    out = split(
        [f("ADV-CLASS-EXISTS"), f("ADV-CLASS-EXISTS", name="d", document=1), f("RC-REQ-NAME")],
        Policy(),
        annotation_lookup([annotated, other]),
        KNOWN,
    )
    assert [(x.rule, x.name) for x in out.kept] == [("ADV-CLASS-EXISTS", "d"), ("RC-REQ-NAME", "c")]
    ((gone, why),) = out.suppressed
    assert (gone.name, why.kind, why.justification) == (
        "c",
        "inSource",
        "the class comes from the platform chart",
    )
    off = split([f("ADV-CLASS-EXISTS")], Policy(annotations=False), annotation_lookup([annotated]), KNOWN)
    assert not off.suppressed


def test_an_invalid_annotation_suppresses_nothing_and_says_so_once() -> None:
    doc = Doc(
        {
            "kind": "ResourceClaim",
            "metadata": {
                "name": "c",
                "namespace": "ns",
                "annotations": {"dractl.io/ignore": "ADV-CLASS-EXISTS"},
            },
        }
    )
    out = split(
        [f("ADV-CLASS-EXISTS"), f("LINT-SELECTOR-NO-MATCH")], Policy(), annotation_lookup([doc]), KNOWN
    )
    assert not out.suppressed
    notes = [x for x in out.kept if x.rule == "DRACTL-IGNORE-INVALID"]
    assert len(notes) == 1 and notes[0].severity is Severity.WARNING and "needs a reason" in notes[0].message
    assert notes[0].path == "metadata.annotations[dractl.io/ignore]"


def test_helpers() -> None:
    assert split_rules(["a, b", "", "C"]) == ["A", "B", "C"]
    assert unknown_patterns(["ADV-*", "NOPE", "rc-req-name"], KNOWN) == ["NOPE"]
    assert Policy().empty and not Policy().with_flags(skip=["X"]).empty


def test_apply_moves_findings_to_suppressed_and_keeps_counts(tmp_path: Any) -> None:
    import json
    from pathlib import Path

    import yaml
    from jsonschema import Draft202012Validator

    from dractl.io import load_paths
    from dractl.render.sarif import to_sarif_dict
    from dractl.validate.engine import validate_docs
    from dractl.validate.options import ValidateOptions
    from dractl.validate.suppress import apply

    claim = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": "c",
            "namespace": "ns",
            "annotations": {
                "dractl.io/ignore": "API-VERSION-NOT-ENABLED: our clusters run --runtime-config v1beta1"
            },
        },
        "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "bogus": 1}]}},
    }
    path = Path(tmp_path) / "c.yaml"
    path.write_text(yaml.safe_dump(claim))
    docs = load_paths([str(path)]).docs
    report = validate_docs(docs, ValidateOptions())
    assert {f.rule for f in report.findings} == {"API-VERSION-NOT-ENABLED", "SCHEMA-UNKNOWN-FIELD"}
    out = apply(report, docs, Policy().with_flags(skip=["SCHEMA-UNKNOWN-FIELD"]))
    assert out.findings == () and out.exit_code == 0 and report.exit_code == 1
    assert out.summary.suppressed == 2 and out.summary.errors == 0 and out.summary.files == 1
    assert dict(out.summary.suppressed_by_rule) == {"API-VERSION-NOT-ENABLED": 1, "SCHEMA-UNKNOWN-FIELD": 1}
    doc = out.to_dict()
    schema = Path(__file__).resolve().parents[3] / "schemas" / "output" / "validation-report.schema.json"
    Draft202012Validator(json.loads(schema.read_text())).validate(doc)
    kinds = sorted(s["suppression"]["kind"] for s in doc["suppressed"])
    assert kinds == ["external", "inSource"]
    sarif = to_sarif_dict(out)["runs"][0]
    assert len(sarif["results"]) == 2 and all(r["suppressions"] for r in sarif["results"])
    assert {r["suppressions"][0]["justification"] for r in sarif["results"]} == {
        "our clusters run --runtime-config v1beta1",
        "rule SCHEMA-UNKNOWN-FIELD is skipped (--skip SCHEMA-UNKNOWN-FIELD)",
    }
    assert apply(report, docs[:0], Policy()) is report
