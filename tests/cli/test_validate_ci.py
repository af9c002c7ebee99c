"""CI-grade validation at the command line (issue 14): --runtime-config, suppression by flag, config
file and annotation, --classes-from, workloads, and the consistency fixes that live in the pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

V1 = "resource.k8s.io/v1"
BETA_CLASS = {
    "apiVersion": "resource.k8s.io/v1beta2",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}
CLAIM = {
    "apiVersion": V1,
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "team"},
    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
}


def _write(path: Path, *objs: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump_all(list(objs), sort_keys=False))
    return path


def _json(out: str) -> dict[str, Any]:
    return json.loads(out)


def test_v1beta2_device_class_at_137_default_and_with_runtime_config(run_cli: Any, tmp_path: Path) -> None:
    path = _write(tmp_path / "class.yaml", BETA_CLASS)
    default = run_cli(["validate", str(path), "-o", "json"])
    assert default.exit_code == 1
    (item,) = _json(default.stdout)["items"]
    assert item["rule"] == "API-VERSION-NOT-ENABLED" and item["severity"] == "error"
    assert "--runtime-config resource.k8s.io/v1beta2=true" in item["message"]
    enabled = run_cli(
        ["validate", str(path), "--runtime-config", "resource.k8s.io/v1beta2=true", "-o", "json"]
    )
    assert enabled.exit_code == 0, enabled.stderr
    assert [i["rule"] for i in _json(enabled.stdout)["items"]] == ["API-VERSION-DEPRECATED"]
    also = run_cli(["lint", str(path), "--runtime-config", "api/beta=true", "-o", "json"])
    assert also.exit_code == 0, also.stderr
    bad = run_cli(["validate", str(path), "--runtime-config", "resource.k8s.io/v1beta2=maybe"])
    assert bad.exit_code == 2 and bad.stderr.startswith(
        "dractl: error: --runtime-config: invalid runtime-config"
    )


def test_snapshot_header_served_versions_decide(run_cli: Any, tmp_path: Path) -> None:
    header = {
        "apiVersion": "dractl/v1alpha1",
        "kind": "Snapshot",
        "serverVersion": "v1.37.2",
        "servedVersions": ["resource.k8s.io/v1", "resource.k8s.io/v1beta2"],
    }
    snap = _write(tmp_path / "snap.yaml", header)
    path = _write(tmp_path / "class.yaml", BETA_CLASS)
    result = run_cli(["lint", str(path), "--snapshot", str(snap), "-o", "json"])
    rules = {i["rule"] for i in _json(result.stdout)["items"]}
    assert "API-VERSION-NOT-ENABLED" not in rules and "API-VERSION-DEPRECATED" in rules


def test_skip_and_only_suppress_but_count(run_cli: Any, tmp_path: Path) -> None:
    path = _write(tmp_path / "claim.yaml", CLAIM)
    plain = run_cli(["lint", str(path), "-o", "json"])
    assert [i["rule"] for i in _json(plain.stdout)["items"]] == ["ADV-CLASS-EXISTS"]
    skipped = run_cli(["lint", str(path), "--skip", "adv-class-*", "--strict"])
    assert skipped.exit_code == 0, skipped.stdout
    assert "1 suppressed" in skipped.stdout
    doc = _json(run_cli(["lint", str(path), "--only", "RC-REQ-NAME", "-o", "json"]).stdout)
    assert doc["items"] == [] and doc["summary"]["suppressed"] == 1
    assert doc["suppressed"][0]["suppression"]["source"] == "--only"
    sarif = _json(run_cli(["lint", str(path), "--skip", "ADV-CLASS-EXISTS", "-o", "sarif"]).stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["suppressions"][0]["kind"] == "external"
    rule = sarif["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["shortDescription"]["text"] != rule["id"]
    typo = run_cli(["lint", str(path), "--skip", "ADV-CLASS-EXIST"])
    assert (
        typo.exit_code == 2
        and "--skip: unknown rule ADV-CLASS-EXIST; did you mean ADV-CLASS-EXISTS" in typo.stderr
    )


def test_config_file_found_upward_and_explicit(run_cli: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "deploy" / "tests").mkdir(parents=True)
    (repo / ".dractl.yaml").write_text(
        "runtimeConfig: resource.k8s.io/v1beta2=true\n"
        "rules: {disable: [API-VERSION-DEPRECATED]}\n"
        "exclude: [{path: deploy/tests/, rules: [ADV-*]}]\n"
    )
    _write(repo / "deploy" / "class.yaml", BETA_CLASS)
    missing = {
        **CLAIM,
        "spec": {"devices": {"requests": [{"name": "n", "exactly": {"deviceClassName": "nic"}}]}},
    }
    _write(repo / "deploy" / "tests" / "claim.yaml", missing)
    result = run_cli(["lint", ".", "-o", "json"], cwd=repo / "deploy")  # the config is one folder up
    assert result.exit_code == 0, result.stdout + result.stderr
    doc = _json(result.stdout)
    assert doc["items"] == []
    assert doc["summary"]["suppressedByRule"] == {"ADV-CLASS-EXISTS": 1, "API-VERSION-DEPRECATED": 1}
    other = tmp_path / "ci.yaml"
    other.write_text("rules: {only: [SCHEMA-*]}\n")
    explicit = _json(run_cli(["lint", str(repo / "deploy"), "--config", str(other), "-o", "json"]).stdout)
    assert [i["rule"] for i in explicit["items"]] == []  # only SCHEMA-* reported; v1beta2 not enabled here
    assert explicit["summary"]["suppressedByRule"]["API-VERSION-NOT-ENABLED"] == 1
    broken = tmp_path / "broken.yaml"
    broken.write_text("rulez: {}\n")
    bad = run_cli(["lint", str(repo / "deploy"), "--config", str(broken)])
    assert bad.exit_code == 2 and f"{broken}:1: rulez: unknown key (did you mean rules?)" in bad.stderr


def test_annotation_needs_a_reason(run_cli: Any, tmp_path: Path) -> None:
    ok = {
        **CLAIM,
        "metadata": {
            **CLAIM["metadata"],
            "annotations": {"dractl.io/ignore": "ADV-CLASS-EXISTS: installed by the gpu-operator chart"},
        },
    }
    doc = _json(run_cli(["lint", str(_write(tmp_path / "a.yaml", ok)), "-o", "json"]).stdout)
    assert doc["items"] == [] and doc["suppressed"][0]["suppression"] == {
        "kind": "inSource",
        "source": "dractl.io/ignore",
        "justification": "installed by the gpu-operator chart",
    }
    bare = {
        **CLAIM,
        "metadata": {**CLAIM["metadata"], "annotations": {"dractl.io/ignore": "ADV-CLASS-EXISTS"}},
    }
    doc = _json(run_cli(["lint", str(_write(tmp_path / "b.yaml", bare)), "-o", "json"]).stdout)
    assert sorted(i["rule"] for i in doc["items"]) == ["ADV-CLASS-EXISTS", "DRACTL-IGNORE-INVALID"]


def test_classes_from_a_chart(run_cli: Any, tmp_path: Path) -> None:
    chart = _write(tmp_path / "chart.yaml", {**BETA_CLASS, "apiVersion": V1})
    claim = _write(tmp_path / "claim.yaml", CLAIM)
    doc = _json(run_cli(["lint", str(claim), "--classes-from", str(chart), "-o", "json"]).stdout)
    assert doc["items"] == [] and doc["summary"]["objects"] == 1  # the class is context, not an input
    by_claim = _json(
        run_cli(["claim", "validate", str(claim), "--classes-from", str(tmp_path), "-o", "json"]).stdout
    )
    assert by_claim["items"] == []


def test_validate_and_lint_give_one_admin_access_answer(run_cli: Any, tmp_path: Path) -> None:
    """Regression (issue 14 item 6): validate warned RCT-ADMIN although the Namespace was in the input."""
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
    rct = {
        "apiVersion": V1,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "team"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {"deviceClassName": "gpu.example.com", "adminAccess": True},
                        }
                    ]
                }
            }
        },
    }
    path = _write(tmp_path / "in.yaml", ns, rct, {**BETA_CLASS, "apiVersion": V1})

    def admin(command: str) -> list[tuple[str, str]]:
        doc = _json(run_cli([command, str(path), "-o", "json"]).stdout)
        return [(i["rule"], i["severity"]) for i in doc["items"] if i["rule"] in ("RCT-ADMIN", "RC-ADMIN-NS")]

    assert admin("validate") == admin("lint") != []
    labelled = {**ns, "metadata": {"name": "team", "labels": {"resource.kubernetes.io/admin-access": "true"}}}
    path = _write(tmp_path / "in.yaml", labelled, rct, {**BETA_CLASS, "apiVersion": V1})
    assert admin("validate") == admin("lint") == []


@pytest.mark.parametrize(
    "other",
    [
        {
            "apiVersion": "resource.k8s.io/v1alpha3",
            "kind": "ResourcePoolStatusRequest",
            "metadata": {"name": "r"},
        },
        {"metadata": {"name": "no-kind"}, "spec": {"x": 1}},
    ],
)
def test_family_commands_ignore_other_kinds(run_cli: Any, tmp_path: Path, other: dict[str, Any]) -> None:
    """Regression (item 6): claim/class/slice validate reported objects outside their family."""
    path = _write(tmp_path / "in.yaml", CLAIM, other)
    for command in (["claim", "validate"], ["class", "validate"], ["slice", "validate"]):
        result = run_cli([*command, str(path), "-o", "json"])
        doc = _json(result.stdout)
        assert all(i["name"] != other["metadata"]["name"] for i in doc["items"]), (command, doc["items"])
        assert "ignored" in result.stderr


def test_helm_render_with_a_daemonset_on_stdin(run_cli: Any) -> None:
    """`helm template … | dractl lint -`: the DaemonSet's removed claim shape fails, at its line."""
    render = (Path(__file__).resolve().parents[1] / "fixtures" / "workloads" / "helm-render.yaml").read_text()
    result = run_cli(["lint", "-", "-o", "json"], input=render)
    assert result.exit_code == 1
    items = {(i["kind"], i["rule"]): i for i in _json(result.stdout)["items"]}
    source = items[("DaemonSet", "POD-CLAIM-SOURCE")]
    assert source["path"] == "spec.template.spec.resourceClaims[0].source"
    assert render.splitlines()[source["line"] - 1].strip() == "source:"
    assert ("Deployment", "POD-CLAIM-REF") in items


def test_sarif_rule_descriptions_are_not_the_bare_id(run_cli: Any, tmp_path: Path) -> None:
    """Regression (item 6): `validate -o sarif` described API-server rules (RC-…) by their id only."""
    bad = {
        **CLAIM,
        "spec": {
            "devices": {"requests": [{"name": "Bad_Name", "exactly": {"deviceClassName": "gpu.example.com"}}]}
        },
    }
    path = _write(tmp_path / "claim.yaml", bad)
    for command in ("validate", "lint"):
        sarif = _json(run_cli([command, str(path), "-o", "sarif"]).stdout)
        rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        assert rules and all(r["shortDescription"]["text"] not in ("", r["id"]) for r in rules), rules
