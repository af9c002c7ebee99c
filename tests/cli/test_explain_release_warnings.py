"""explain-allocation warns (stderr and JSON ``warnings``) when the world it reasons over holds
slices or classes the chosen release's API server rejects, naming each object and the rule; it
still answers with the objects as given."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.io import write_snapshot

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
BAD_SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: extra-gpu}
spec:
  driver: fpga.example.com
  nodeName: gpu-node-1
  pool: {name: extra, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-9
    attributes:
      model: {string: x1}
    taints:
    - {key: a, effect: Bogus}
"""
ARGS = ["explain-allocation", "--claim", "default/single-gpu"]
WARNING = (
    "ResourceSlice extra-gpu: the API server of Kubernetes 1.37 rejects it (RS-TAINT-EFFECT "
    'spec.devices[0].taints[0].effect: Unsupported value: "Bogus"'
)


@pytest.fixture(scope="module")
def world_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rejected")
    for p in DEMO.glob("*.yaml"):
        shutil.copy(p, root / p.name)
    (root / "bad-slice.yaml").write_text(BAD_SLICE)
    return root


def test_files_the_release_rejects_are_named(run_cli: Any, world_dir: Path) -> None:
    result = run_cli([*ARGS, "-f", str(world_dir), "-o", "json"])
    assert result.exit_code == 0  # it still fits: the answer is given, with the warning
    assert f"Warning: {WARNING}" in result.stderr
    warnings = json.loads(result.stdout)["warnings"]
    assert any(
        w.startswith(WARNING) and w.endswith("the explanation still uses it as given") for w in warnings
    )
    table = run_cli([*ARGS, "-f", str(world_dir)])
    assert "warning: ResourceSlice extra-gpu: the API server of Kubernetes 1.37 rejects it" in table.stdout


def test_a_clean_world_has_no_such_warning(run_cli: Any) -> None:
    result = run_cli([*ARGS, "-f", str(DEMO), "-o", "json"])
    assert "rejects it" not in result.stderr + result.stdout


def test_a_snapshot_at_its_own_release_is_not_rechecked(
    run_cli: Any, world_dir: Path, tmp_path: Path
) -> None:
    objects = [d for p in sorted(world_dir.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
    snap = tmp_path / "snap.yaml"
    snap.write_text(write_snapshot(objects, server_version="v1.37.1", feature_gates={}, time=None))
    own = run_cli([*ARGS, "--snapshot", str(snap)])
    assert own.exit_code == 0 and "rejects it" not in own.stderr  # that cluster served it
    chosen = run_cli([*ARGS, "--snapshot", str(snap), "--kube-version", "1.37"])
    assert WARNING in chosen.stderr  # a release chosen by flag is checked
