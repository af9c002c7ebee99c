"""``dractl selector check`` and ``dractl selector eval`` through the real entry point."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: NVIDIA H100 80GB HBM3}
      index: {int: 0}
    capacity:
      memory: {value: 80Gi}
  - name: gpu-1
    attributes:
      productName: {string: NVIDIA A10}
      index: {int: 1}
    capacity:
      memory: {value: 24Gi}
  - name: gpu-2
    attributes:
      productName: {string: NVIDIA H100 80GB HBM3}
      index: {int: 2}
      driverVersion: {version: 560.35.03}
    capacity:
      memory: {value: 80Gi}
"""
MEMORY = 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0'


def test_check_accepts_and_rejects(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["selector", "check", MEMORY])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("accepted, estimated cost 7: ")
    r = run_cli(
        ["selector", "check", MEMORY, 'quantity("1") != quantity("2")', "device.driver", "-o", "json"]
    )
    assert r.exit_code == 1
    out = json.loads(r.stdout)["items"]
    assert [o["valid"] for o in out] == [True, False, False]
    assert out[1]["errorType"] == "Forbidden" and "too complex" in out[1]["error"]
    assert out[2]["error"] == "must evaluate to bool or the unknown type, not string"


def test_check_honours_feature_gates(run_cli: Callable[..., Any]) -> None:
    expr = 'device.attributes["dra.net"].vlans.includes(100)'
    assert (
        run_cli(["selector", "check", expr, "--feature-gates", "DRAListTypeAttributes=false"]).exit_code == 1
    )
    assert (
        run_cli(["selector", "check", expr, "--feature-gates", "DRAListTypeAttributes=true"]).exit_code == 0
    )
    bad = run_cli(["selector", "check", expr, "--feature-gates", "NoSuchGate=true"])
    assert bad.exit_code == 2 and "NoSuchGate" in bad.stderr


def test_eval_reports_matches_errors_and_missing_names(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    (tmp_path / "slice.yaml").write_text(SLICE)
    typo = 'device.attributes["gpu.nvidia.com"].idx == 0'
    r = run_cli(["selector", "eval", MEMORY, typo, "-f", str(tmp_path), "-o", "json"])
    assert r.exit_code == 1, r.stderr
    mem, bad = json.loads(r.stdout)["items"]
    assert [x["matches"] for x in mem["results"]] == [True, False, None]
    assert "Patch number must not contain leading zeroes" in mem["results"][2]["error"]
    assert bad["references"] == [
        {"kind": "attributes", "name": "gpu.nvidia.com/idx", "presentOn": 0, "devices": 3, "otherKindOn": 0}
    ]
    table = run_cli(["selector", "eval", typo, "-f", str(tmp_path / "slice.yaml")])
    assert "gpu.nvidia.com/idx (attributes) exists on 0 of 3 devices" in table.stdout
    assert "no such key: idx" in table.stdout


def test_eval_clean_run_exits_zero(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    (tmp_path / "slice.yaml").write_text(SLICE.replace("560.35.03", "560.35.3"))
    r = run_cli(["selector", "eval", MEMORY, "-f", str(tmp_path / "slice.yaml")])
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "2 of 3 devices match; 0 failed with an error" in r.stdout


def test_eval_input_errors(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    assert run_cli(["selector", "eval", MEMORY]).exit_code == 2
    r = run_cli(["selector", "eval", MEMORY, "-f", str(tmp_path / "missing.yaml")])
    assert r.exit_code == 2 and "missing.yaml" in r.stderr
    r = run_cli(["selector", "eval", "1 +", "-f", "-"], input=SLICE)
    assert r.exit_code == 1 and "Does not compile" in r.stdout


def test_eval_suggests_capacity_for_an_attribute_typo(run_cli: Any) -> None:
    demo = str(REPO / "examples" / "demo" / "slices-gpu-node-2.yaml")
    expr = 'device.attributes["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0'
    result = run_cli(["selector", "eval", expr, "-f", demo])
    assert result.exit_code == 1
    assert (
        "Note: gpu.nvidia.com/memory (attributes) exists on 0 of 4 devices; it is a capacity on 4 "
        'devices: did you mean device.capacity["gpu.nvidia.com"].memory?'
    ) in result.stdout


def test_eval_warns_when_the_inputs_hold_no_devices(run_cli: Any) -> None:
    claims = str(REPO / "examples" / "demo" / "claims-pending.yaml")
    result = run_cli(["selector", "eval", "true", "-f", claims])
    assert result.exit_code == 0
    assert "Warning: no ResourceSlice devices in the given files: nothing to evaluate" in result.stderr
