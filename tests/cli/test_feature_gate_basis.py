"""Every view says which feature gates it assumed: the release defaults, the gates a snapshot
header recorded, the --feature-gates overrides — in the table's last line and in the JSON
document's ``context.featureGateBasis`` (validated against the published schemas)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from dractl.io import write_snapshot

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
SCHEMAS = REPO / "schemas" / "output"

VIEWS = {
    "availability": (["availability"], "availability-report"),
    "claims": (["claims", "-A"], "claims-report"),
    "health": (["health"], "health-report"),
    "taints": (["taints"], "taints-report"),
    "explain": (["explain-allocation", "--claim", "default/training-gpus"], "allocation-explanation"),
    "capacity": (["capacity", "--claim", "default/training-gpus"], "capacity-report"),
}


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo cluster as a 1.36 snapshot whose header records DRAPartitionableDevices off."""
    objects = [d for p in sorted(DEMO.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
    path = tmp_path_factory.mktemp("snap") / "cluster.yaml"
    path.write_text(
        write_snapshot(
            objects,
            server_version="v1.36.3",
            feature_gates={"DRAPartitionableDevices": False, "DRADeviceTaints": True},
            time="2026-01-01T00:00:00Z",
        )
    )
    return path


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_every_view_names_its_assumed_gates(run_cli: Any, snapshot: Path, view: str) -> None:
    argv, schema = VIEWS[view]
    flags = ["--snapshot", str(snapshot), "--feature-gates", "DRAConsumableCapacity=false"]
    doc = json.loads(run_cli([*argv, *flags, "-o", "json"]).stdout)
    jsonschema.validate(doc, json.loads((SCHEMAS / f"{schema}.schema.json").read_text()))
    assert doc["context"]["featureGateBasis"] == {
        "defaults": "1.36",
        "changed": [
            {"gate": "DRAConsumableCapacity", "enabled": False, "by": "--feature-gates"},
            {"gate": "DRAPartitionableDevices", "enabled": False, "by": "snapshot"},
        ],
    }
    assert doc["context"]["featureGates"]["DRAPartitionableDevices"] is False
    table = run_cli([*argv, *flags]).stdout
    assert table.rstrip("\n").splitlines()[-1] == (
        "Feature gates: the defaults of Kubernetes 1.36, except DRAConsumableCapacity=false "
        "(--feature-gates), DRAPartitionableDevices=false (snapshot)."
    )


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_plain_defaults_are_said_too(run_cli: Any, view: str) -> None:
    argv, _ = VIEWS[view]
    result = run_cli([*argv, "-f", str(DEMO), "--kube-version", "1.35"])
    assert result.stdout.rstrip("\n").splitlines()[-1] == "Feature gates: the defaults of Kubernetes 1.35."
