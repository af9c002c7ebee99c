"""A DeviceTaintRule without ``spec.deviceSelector``: until kubernetes PR #141648 (cherry-picked to
release-1.37 as #141998, first in v1.37.1) the scheduler's taint tracker applied it to every
device; from v1.37.1 it matches none, as the API documents.  The eviction controller never
matched it.  The allocator, explain and the inventory views follow the release (and its patch:
``--kube-version 1.37.0`` / ``1.37.1``, or a snapshot header's server version)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.io import write_snapshot
from dractl.io.sources import FileSource
from dractl.matcher.engine import Allocator
from dractl.model.features import Features

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
RULE = """apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: no-selector}
spec:
  taint: {key: maintenance, effect: NoExecute}
"""


@pytest.fixture(scope="module")
def world_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dtr")
    for p in DEMO.glob("*.yaml"):
        shutil.copy(p, root / p.name)
    (root / "rule.yaml").write_text(RULE)
    return root


def _snapshot(world_dir: Path, tmp_path: Path, version: str) -> Path:
    objects = [d for p in sorted(world_dir.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
    path = tmp_path / f"snap-{version}.yaml"
    path.write_text(write_snapshot(objects, server_version=version, feature_gates={}, time=None))
    return path


@pytest.mark.parametrize(
    "minor, patch, taints_all",
    [("1.37", 0, True), ("1.37", 1, False), ("1.37", 4, False), ("1.37", None, False), ("1.36", 9, True)],
)
def test_the_allocator_follows_the_release(
    world_dir: Path, minor: str, patch: int | None, taints_all: bool
) -> None:
    world = FileSource((str(world_dir),)).load()
    features = Features.from_mapping(
        {"DRADeviceTaints": True, "DRADeviceTaintRules": True},
        Features.for_version(minor).at_patch(minor, patch),
    )
    allocator = Allocator(world.device_classes, world.slices, features, taint_rules=world.taint_rules)
    devices = [d for s in world.slices for d in s.devices]
    hit = [any(t.rule == "no-selector" for t in allocator.taints_of(d)) for d in devices]
    assert hit == [taints_all] * len(devices)


def test_explain_at_the_patch_release(run_cli: Any, world_dir: Path) -> None:
    before = run_cli(
        [
            "explain-allocation",
            "--claim",
            "default/single-gpu",
            "-f",
            str(world_dir),
            "--kube-version",
            "1.37.0",
        ]
    )
    after = run_cli(
        [
            "explain-allocation",
            "--claim",
            "default/single-gpu",
            "-f",
            str(world_dir),
            "--kube-version",
            "v1.37.1",
        ]
    )
    assert before.exit_code == 1 and before.stdout.startswith(
        "claim default/single-gpu: fits on 0 of 3 nodes"
    )
    assert "maintenance" in before.stdout  # the taint that blocks, named
    assert after.exit_code == 0 and after.stdout.startswith("claim default/single-gpu: fits on 2 of 3 nodes")


def test_views_on_snapshots_follow_the_header_patch(run_cli: Any, world_dir: Path, tmp_path: Path) -> None:
    old = _snapshot(world_dir, tmp_path, "v1.37.0")
    new = _snapshot(world_dir, tmp_path, "v1.37.1")
    doc_old = json.loads(run_cli(["availability", "--snapshot", str(old), "-o", "json"]).stdout)
    doc_new = json.loads(run_cli(["availability", "--snapshot", str(new), "-o", "json"]).stdout)
    assert doc_old["summary"]["free"] == 0 and doc_new["summary"]["free"] == 18
    taints_old = json.loads(run_cli(["taints", "--snapshot", str(old), "-o", "json"]).stdout)
    taints_new = json.loads(run_cli(["taints", "--snapshot", str(new), "-o", "json"]).stdout)
    rule_old = next(r for r in taints_old["summary"]["rules"] if r["name"] == "no-selector")
    rule_new = next(r for r in taints_new["summary"]["rules"] if r["name"] == "no-selector")
    assert (rule_old["devices"], rule_old["clusterWide"]) == (28, True)
    assert (rule_new["devices"], rule_new["clusterWide"], rule_new["selector"]) == (
        0,
        False,
        "none: matches no device",
    )
    # NoExecute, but the eviction controller never matched a rule without selector: nobody evicted by it
    assert all(
        not row["evicts"] for row in taints_old["items"] if row["source"] == "DeviceTaintRule no-selector"
    )
    assert any("v1.37.1 (PR #141648)" in w for w in taints_old["warnings"])
    assert any("matches no device" in w for w in taints_new["warnings"])
    explain = run_cli(["explain-allocation", "--claim", "default/single-gpu", "--snapshot", str(old)])
    assert explain.exit_code == 1  # the header's v1.37.0 decides
