"""Every JSON/YAML explanation in the golden cases follows the published output schema,
and the CLI's exit codes and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((REPO / "schemas" / "output" / "allocation-explanation.schema.json").read_text())
GOLDEN = REPO / "tests" / "golden" / "explain-allocation"
DOCS = sorted([*GOLDEN.glob("*/stdout.json"), *GOLDEN.glob("*/stdout.yaml")])
DEMO = str(REPO / "examples" / "demo")


def _load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path", DOCS, ids=[p.parent.name for p in DOCS])
def test_golden_documents_follow_the_schema(path: Path) -> None:
    doc = _load(path)
    Draft202012Validator(SCHEMA).validate(doc)
    assert doc["summary"]["fits"] == ((path.parent / "exit_code").read_text().strip() == "0")


def test_there_are_json_and_yaml_cases() -> None:
    assert {p.suffix for p in DOCS} == {".json", ".yaml"}


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        pytest.param(
            ["--claim", "single-gpu", "-f", DEMO, "-o", "json"],
            0,
            '"kind": "AllocationExplanation"',
            id="fits-json",
        ),
        pytest.param(
            ["--claim", "two-h100", "-f", DEMO, "-o", "yaml"], 1, "kind: AllocationExplanation", id="nowhere"
        ),
        pytest.param(["--claim", "two-h100", "-f", DEMO, "-o", "sarif"], 2, "", id="bad-output"),
        pytest.param(["--claim", "x", "--pod", "y", "-f", DEMO], 2, "", id="claim-and-pod"),
        pytest.param(["-f", DEMO], 2, "", id="nothing-to-explain"),
        pytest.param(["--claim", "single-gpu"], 3, "", id="no-world"),  # no files: the (absent) live cluster
        pytest.param(
            ["--claim", "single-gpu", "-f", DEMO, "--kube-version", "1.99"], 2, "", id="bad-version"
        ),
        pytest.param(
            ["--claim", "single-gpu", "-f", DEMO, "--feature-gates", "Nope=true"], 2, "", id="bad-gate"
        ),
        pytest.param(["--claim", "nope", "-f", DEMO], 2, "", id="unknown-claim"),
        pytest.param(
            ["--claim", "single-gpu", "--snapshot", DEMO + "/nodes.yaml"], 2, "", id="not-a-snapshot"
        ),
    ],
)
def test_cli_exit_codes(run_cli: Any, args: list[str], code: int, needle: str) -> None:
    result = run_cli(["explain-allocation", *args])
    assert result.exit_code == code, result.stderr
    if code in (2, 3):
        assert result.stderr.startswith("dractl: error: ")
        assert "Traceback" not in result.stderr and result.stdout == ""
    else:
        assert needle in result.stdout


def test_cli_json_matches_schema_for_every_demo_target(run_cli: Any) -> None:
    for target in (
        ["--claim", "single-gpu"],
        ["--claim", "two-h100"],
        ["--pod", "notebook"],
        ["--pod", "legacy-cuda"],
        ["--pod", "trainer-0"],
        ["--claim", "two-h100", "--best-fit"],
    ):
        result = run_cli(["explain-allocation", *target, "-f", DEMO, "-o", "json"])
        Draft202012Validator(SCHEMA).validate(json.loads(result.stdout))


def test_locked_gate_override_warns(run_cli: Any) -> None:
    result = run_cli(
        [
            "explain-allocation",
            "--claim",
            "single-gpu",
            "-f",
            DEMO,
            "--feature-gates",
            "DRAPrioritizedList=false",
        ]
    )
    assert "Warning: feature gate DRAPrioritizedList is locked" in result.stderr


def test_snapshot_header_sets_version_and_gates(run_cli: Any, tmp_path: Path) -> None:
    from dractl.io import write_snapshot

    objects = [d for f in sorted(Path(DEMO).glob("*.yaml")) for d in yaml.safe_load_all(f.read_text())]
    snap = tmp_path / "snap.yaml"
    snap.write_text(
        write_snapshot(
            objects,
            server_version="v1.35.2",
            feature_gates={"DRAPartitionableDevices": True},
            time="2026-01-01T00:00:00Z",
        )
    )
    result = run_cli(["explain-allocation", "--claim", "single-gpu", "--snapshot", str(snap), "-o", "json"])
    doc = json.loads(result.stdout)
    assert doc["context"]["kubeVersion"] == "1.35"
    assert doc["context"]["featureGates"]["DRAPartitionableDevices"] is True
    assert doc["context"]["featureGates"]["DRADeviceTaints"] is False  # 1.35 default
    flag = run_cli(
        [
            "explain-allocation",
            "--claim",
            "single-gpu",
            "--snapshot",
            str(snap),
            "--kube-version",
            "1.37",
            "-o",
            "json",
        ]
    )
    assert json.loads(flag.stdout)["context"]["kubeVersion"] == "1.37"
