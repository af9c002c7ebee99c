"""Renderers of the validation report: a fixed report in, the exact text out."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest
import yaml
from jsonschema import Draft202012Validator
from rich.console import Console

from dractl.errors import InputError, SourcePos, UsageError
from dractl.render import Format, allowed_formats, format_enum, render
from dractl.render.github import to_github
from dractl.render.junit import to_junit
from dractl.render.sarif import to_sarif_dict
from dractl.render.structured import to_json, to_yaml
from dractl.render.table import summary_line
from dractl.validate.findings import Finding, Severity
from dractl.validate.report import ObjectResult, ValidationReport

RULES = {"SCHEMA-UNKNOWN-FIELD": "Unknown field.", "API-VERSION-DEPRECATED": "Deprecated version."}


def report(input_errors: tuple[InputError, ...] = ()) -> ValidationReport:
    findings = [
        Finding(
            Severity.ERROR,
            "SCHEMA-UNKNOWN-FIELD",
            'unknown field "spec.a,b"',
            "spec.a,b",
            None,
            "dir/c.yaml",
            1,
            12,
            9,
            "ResourceClaim",
            "c",
            "ns",
        ),
        Finding(
            Severity.WARNING,
            "API-VERSION-DEPRECATED",
            "resource.k8s.io/v1beta1 DeviceClass is deprecated in v1.35+, unavailable in v1.38+",
            "apiVersion",
            None,
            "dir/c.yaml",
            0,
            1,
            1,
            "DeviceClass",
            "g",
        ),
        Finding(Severity.ERROR, "SCHEMA-NO-KIND", "kind not set\n100% sure", "kind", "Required", "x.yaml", 0),
    ]
    objects = [
        ObjectResult("dir/c.yaml", 0, "resource.k8s.io/v1beta1", "DeviceClass", "g", warnings=1),
        ObjectResult("dir/c.yaml", 1, "resource.k8s.io/v1", "ResourceClaim", "c", "ns", errors=1),
        ObjectResult("dir/c.yaml", 2, "v1", "Namespace", "ns", checked=False),
        ObjectResult("x.yaml", 0, "", "", errors=1),
    ]
    return ValidationReport.build("1.37", findings, objects, input_errors, ["dir/c.yaml", "x.yaml"], RULES)


def console(terminal: bool = False) -> Console:
    return Console(
        file=io.StringIO(),
        width=100,
        markup=False,
        emoji=False,
        highlight=False,
        color_system=None,
        force_terminal=terminal,
    )


def rendered(fmt: str, rep: ValidationReport | None = None, width: int = 100, terminal: bool = True) -> str:
    con = console(terminal)
    con.width = width
    render(rep or report(), fmt, con)
    return con.file.getvalue()  # type: ignore[attr-defined]


def test_table() -> None:
    assert rendered("table") == (
        "LOCATION          SEVERITY   RULE                     MESSAGE\n"
        "dir/c.yaml:1:1    warning    API-VERSION-DEPRECATED   apiVersion: resource.k8s.io/v1beta1\n"
        "                                                      DeviceClass is deprecated in v1.35+,\n"
        "                                                      unavailable in v1.38+\n"
        'dir/c.yaml:12:9   error      SCHEMA-UNKNOWN-FIELD     unknown field "spec.a,b"\n'
        "x.yaml            error      SCHEMA-NO-KIND           kind not set\\n100% sure\n"
        "Validated 3 objects in 2 files against Kubernetes 1.37: 2 errors, 1 warning; skipped 1 object of "
        "other kinds (Namespace: 1).\n"
    )


def test_piped_table_never_wraps_or_cuts() -> None:
    """Regression (issue 14 item 5): piped tables wrapped at Rich's 80/COLUMNS width."""
    text = rendered("table", width=40, terminal=False)
    assert text == (
        "LOCATION          SEVERITY   RULE                     MESSAGE\n"
        "dir/c.yaml:1:1    warning    API-VERSION-DEPRECATED   apiVersion: resource.k8s.io/v1beta1 DeviceClass "
        "is deprecated in v1.35+, unavailable in v1.38+\n"
        'dir/c.yaml:12:9   error      SCHEMA-UNKNOWN-FIELD     unknown field "spec.a,b"\n'
        "x.yaml            error      SCHEMA-NO-KIND           kind not set\\n100% sure\n"
        "Validated 3 objects in 2 files against Kubernetes 1.37: 2 errors, 1 warning; skipped 1 object of "
        "other kinds (Namespace: 1).\n"
    )


def test_no_headers_drops_the_header_row_only() -> None:
    from dractl.render import RenderOptions

    con = console()
    render(report(), "table", con, opts=RenderOptions(no_headers=True))
    lines = con.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[0].startswith("dir/c.yaml:1:1    warning") and len(lines) == 4
    assert lines[-1].startswith("Validated 3 objects")


def test_wide_table_names_the_object() -> None:
    text = rendered("wide", width=160)
    assert text.splitlines()[0].split() == ["LOCATION", "SEVERITY", "RULE", "OBJECT", "MESSAGE"]
    assert "ResourceClaim/ns/c" in text and "DeviceClass/g" in text


def test_narrow_terminals_get_lines() -> None:
    assert rendered("table", width=60).splitlines()[:3] == [
        "dir/c.yaml:1:1: warning API-VERSION-DEPRECATED: apiVersion: resource.k8s.io/v1beta1 DeviceClass is "
        "deprecated in v1.35+, unavailable in v1.38+",
        'dir/c.yaml:12:9: error SCHEMA-UNKNOWN-FIELD: unknown field "spec.a,b"',
        "x.yaml: error SCHEMA-NO-KIND: kind not set\\n100% sure",
    ]
    assert (
        'dir/c.yaml:12:9: error SCHEMA-UNKNOWN-FIELD: ResourceClaim/ns/c: unknown field "spec.a,b"'
        in rendered("wide", width=100)
    )


def test_summary_line_variants() -> None:
    empty = ValidationReport.build("1.35", [], [], [], ["a.yaml"])
    assert (
        summary_line(empty.to_dict()["summary"])
        == "Validated 0 objects in 1 file against Kubernetes 1.35: no problems found."
    )
    bad = report((InputError("invalid YAML", SourcePos("y.yaml", 0, 2, 3)),))
    assert summary_line(bad.to_dict()["summary"]).endswith("; 1 input could not be read.")


def test_json_and_yaml_are_the_same_document() -> None:
    rep = report()
    assert json.loads(to_json(rep)) == yaml.safe_load(to_yaml(rep)) == rep.to_dict()
    assert list(rep.to_dict()) == ["apiVersion", "kind", "items", "inputErrors", "objects", "summary"]


def test_github_annotations_are_escaped() -> None:
    rep = report((InputError("not YAML", SourcePos("t.tmpl")),))
    assert to_github(rep) == (
        "::warning file=dir/c.yaml,line=1,col=1,title=API-VERSION-DEPRECATED::apiVersion: resource.k8s.io/v1beta1 "
        "DeviceClass is deprecated in v1.35+, unavailable in v1.38+\n"
        '::error file=dir/c.yaml,line=12,col=9,title=SCHEMA-UNKNOWN-FIELD::unknown field "spec.a,b"\n'
        "::error file=x.yaml,title=SCHEMA-NO-KIND::kind not set\\n100%25 sure\n"
        "::error file=t.tmpl,title=INPUT-ERROR::t.tmpl: not YAML\n"
    )


def test_junit_one_testcase_per_object() -> None:
    root = ET.fromstring(to_junit(report()))
    assert root.attrib == {
        "name": "dractl validate",
        "tests": "4",
        "failures": "2",
        "errors": "0",
        "skipped": "1",
    }
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["dir/c.yaml", "x.yaml"]
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == [
        "DeviceClass g (document 0)",
        "ResourceClaim ns/c (document 1)",
        "Namespace ns (document 2)",
    ]
    assert cases[0].find("failure") is None and "API-VERSION-DEPRECATED" in cases[0].findtext("system-out")
    assert cases[1].find("failure").get("type") == "SCHEMA-UNKNOWN-FIELD"
    assert cases[2].find("skipped") is not None


def test_junit_input_errors_are_error_cases() -> None:
    rep = ValidationReport.build("1.37", [], [], [InputError("invalid YAML", SourcePos("b.yaml", 0, 4, 2))])
    root = ET.fromstring(to_junit(rep))
    assert root.get("errors") == "1"
    assert root.find("testsuite/testcase/error").get("message") == "b.yaml:4:2: invalid YAML"


# The parts of the SARIF 2.1.0 schema (sarif-schema-2.1.0.json) that code-scanning services check.
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {"type": "object", "required": ["text"]},
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": 0},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"type": "object", "required": ["text"]},
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1},
                                                            "startColumn": {"type": "integer", "minimum": 1},
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def test_sarif_structure() -> None:
    doc = to_sarif_dict(report())
    Draft202012Validator(SARIF_SUBSET).validate(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert rules[0]["shortDescription"]["text"] == "Deprecated version."
    regions = [r["locations"][0]["physicalLocation"].get("region") for r in run["results"]]
    assert regions == [{"startLine": 1, "startColumn": 1}, {"startLine": 12, "startColumn": 9}, None]
    assert run["invocations"][0]["executionSuccessful"] is True


def test_unsupported_format_is_a_usage_error() -> None:
    class Other:
        report_type = "other"

    with pytest.raises(UsageError, match=r"--output sarif is not supported by taints; one of: $"):
        render(Other(), "sarif", console(), "taints")


def test_allowed_formats_drive_the_option_enum() -> None:
    assert allowed_formats("validation") == [f for f in Format if f is not Format.NAME]
    enum = format_enum("validation")
    assert [m.value for m in enum] == [f.value for f in allowed_formats("validation")]
    assert allowed_formats("no-such-report") == []
