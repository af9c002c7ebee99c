"""`dractl discover` through the real entry point: formats, flags, errors, exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from discover_support import CONNECTX, EPYC, H100

FIX = ["--sysfs-root", str(H100 / "sys"), "--nvml-fixture", str(H100 / "nvml.json"), "--node", "dgx-01"]


def test_default_tables(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["discover", *FIX])
    assert r.exit_code == 0, r.stderr
    for title in (
        "GPUs (driver 560.35.03, CUDA 12.6)",
        "MIG profiles (from NVML)",
        "MIG devices",
        "PCI devices",
        "CPU / NUMA (224 CPUs, 2 sockets, SMT on)",
        "Probes",
        "ResourceSlices",
    ):
        assert title in r.stdout
    assert "GPU-5e9c3ab1-2f4d-7e8a-1b6c-93d0f4a2c871" in r.stdout  # piped rows are never cut
    assert "1g.10gb+me" in r.stdout and "row-remap-pending" in r.stdout
    assert r.stderr == ""


def test_yaml_is_a_stream_of_resourceslices(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["discover", *FIX, "-o", "yaml", "--only", "gpu", "--mig-mode", "partitionable"])
    assert r.exit_code == 0
    docs = list(yaml.safe_load_all(r.stdout))
    assert [d["kind"] for d in docs] == ["ResourceSlice"] * 5
    assert "&id" not in r.stdout and "*id" not in r.stdout  # no YAML anchors/aliases
    assert {d["spec"]["pool"]["resourceSliceCount"] for d in docs} == {5}
    assert "Warning: gpu-4: 2 MIG devices exist now" in r.stderr


def test_json_is_a_list(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["discover", "--sysfs-root", str(CONNECTX / "sys"), "--node", "nic-01", "-o", "json"])
    doc = json.loads(r.stdout)
    assert doc["kind"] == "List" and doc["items"][0]["spec"]["driver"] == "dra.net"


def test_inventory_output(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["discover", "--sysfs-root", str(EPYC / "sys"), "--only", "cpu", "--inventory", "-o", "json"])
    doc = json.loads(r.stdout)
    assert doc["kind"] == "DiscoveryInventory" and len(doc["cpu"]["cpus"]) == 128
    assert doc["cpu"]["numaNodes"][2]["cpus"][:2] == [32, 33] and doc["cpu"]["sockets"] == [0, 1]
    assert doc["gpus"] == [] and doc["nvml"] is None


def test_driver_and_pool_flags(run_cli: Callable[..., Any]) -> None:
    r = run_cli(
        ["discover", *FIX, "--only", "gpu", "--driver", "gpu.example.com", "--pool", "p1", "-o", "json"]
    )
    item = json.loads(r.stdout)["items"][0]["spec"]
    assert (item["driver"], item["pool"]["name"], item["nodeName"]) == ("gpu.example.com", "p1", "dgx-01")
    r = run_cli(["discover", *FIX, "--driver", "cpu=cpu.example.com", "-o", "json", "--only", "gpu,cpu"])
    assert {i["spec"]["driver"] for i in json.loads(r.stdout)["items"]} == {
        "gpu.nvidia.com",
        "cpu.example.com",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--only", "gpu,tpu"], "--only: unknown kind tpu; one or more of: gpu, nic, pci, cpu"),
        (["--driver", "x.example.com"], "--driver NAME needs --only with exactly one of gpu, nic, cpu"),
        (["--driver", "fpga=x.example.com"], "expected KIND=NAME"),
        (["--mig-mode", "dynamic"], 'invalid argument "dynamic" for "--mig-mode" flag'),
        (["--kube-version", "1.30"], 'invalid argument "1.30" for "--kube-version" flag'),
        (["--feature-gates", "Bogus=true"], "unknown DRA feature gate"),
        (["--node", "Worker_1"], "--node 'Worker_1': must be a lower-case DNS subdomain"),
        (["--pool", "a//b"], "--pool 'a//b': must be DNS subdomains joined by '/'"),
        (["--driver", "gpu=not a name"], "--driver 'not a name': must be a DNS subdomain"),
    ],
)
def test_usage_errors_exit_2(run_cli: Callable[..., Any], args: list[str], message: str) -> None:
    r = run_cli(["discover", *FIX, *args])
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.startswith("dractl: error:") and r.stdout == ""


def test_bad_inputs_exit_2(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    r = run_cli(["discover", "--sysfs-root", str(tmp_path / "nope")])
    assert r.exit_code == 2 and r.stderr.strip().endswith("--sysfs-root: not a directory")
    (tmp_path / "n.json").write_text("[]")
    r = run_cli(["discover", "--nvml-fixture", str(tmp_path / "n.json")])
    assert r.exit_code == 2 and "not an NVML fixture" in r.stderr and len(r.stderr.splitlines()) == 1


def test_save_fixture_and_replay(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "capture"
    first = run_cli(["discover", *FIX, "--save-fixture", str(out), "-o", "yaml"])
    assert first.exit_code == 0 and f"Saved fixture to {out}: sys, pci.ids, nvml.json" in first.stderr
    again = run_cli(
        [
            "discover",
            "--sysfs-root",
            str(out / "sys"),
            "--nvml-fixture",
            str(out / "nvml.json"),
            "--node",
            "dgx-01",
            "-o",
            "yaml",
        ]
    )
    assert again.exit_code == 0 and again.stdout == first.stdout


def test_help_has_examples(run_cli: Callable[..., Any]) -> None:
    r = run_cli(["discover", "--help"])
    assert r.exit_code == 0 and "Examples:" in r.stdout and "--save-fixture" in r.stdout


def test_unavailable_nvml_is_noted_on_stderr_for_yaml(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    nvml = tmp_path / "nvml.json"
    nvml.write_text(
        json.dumps({"format": "dractl-nvml-fixture/v1", "calls": {"nvmlInit": {"": {"$error": 9}}}})
    )
    r = run_cli(
        [
            "discover",
            "--sysfs-root",
            str(H100 / "sys"),
            "--nvml-fixture",
            str(nvml),
            "--only",
            "gpu",
            "-o",
            "yaml",
        ]
    )
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr.strip() == (
        "Note: GPU discovery skipped: the NVIDIA kernel driver is not loaded "
        "(check that the nvidia module is built for the running kernel)"
    )


def test_save_fixture_refuses_a_non_empty_directory(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    r = run_cli(["discover", *FIX, "--save-fixture", str(tmp_path)])
    assert r.exit_code == 2 and r.stderr.strip() == (
        f"dractl: error: {tmp_path}: --save-fixture: exists and is not an empty directory"
    )
