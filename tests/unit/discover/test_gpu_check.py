"""scripts/gpu-check.sh against the H100 fixture and a fake nvidia-smi (no GPU on this machine)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from discover_support import H100, REPO, h100_nvml_data

SCRIPT = REPO / "scripts" / "gpu-check.sh"


def fake_nvidia_smi(tmp_path: Path, drop_last_gpu: bool = False) -> Path:
    calls = h100_nvml_data()["calls"]
    gpus, listing = [], []
    count = 7 if drop_last_gpu else 8
    for i in range(count):
        g = f"gpu{i}"
        bus = calls["nvmlDeviceGetPciInfo"][g]["busId"]
        mib = calls["nvmlDeviceGetMemoryInfo"][g]["total"] // 2**20
        mig = "Enabled" if calls["nvmlDeviceGetMigMode"][g][0] else "Disabled"
        uuid = calls["nvmlDeviceGetUUID"][g]
        gpus.append(
            f'<gpu id="{bus}"><uuid>{uuid}</uuid>'
            f"<minor_number>{calls['nvmlDeviceGetMinorNumber'][g]}</minor_number>"
            f"<pci><pci_bus_id>{bus}</pci_bus_id></pci><fb_memory_usage><total>{mib} MiB</total>"
            f"</fb_memory_usage><mig_mode><current_mig>{mig}</current_mig></mig_mode></gpu>"
        )
        listing.append(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: {uuid})")
        for j in range(7):
            m = calls["nvmlDeviceGetUUID"].get(f"{g}.mig{j}")
            if m:
                listing.append(f"  MIG 1g.10gb     Device  {j}: (UUID: {m})")
    xml = f'<?xml version="1.0" ?><nvidia_smi_log><attached_gpus>{count}</attached_gpus>{"".join(gpus)}</nvidia_smi_log>'
    (tmp_path / "smi.xml").write_text(xml)
    (tmp_path / "smi-L.txt").write_text("\n".join(listing) + "\n")
    tool = tmp_path / "nvidia-smi"
    tool.write_text(
        f'#!/bin/sh\nif [ "$1" = "-L" ]; then cat {tmp_path / "smi-L.txt"}; '
        f"else cat {tmp_path / 'smi.xml'}; fi\n"
    )
    tool.chmod(0o755)
    return tool


def run_script(tmp_path: Path, tool: Path) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        NVIDIA_SMI=str(tool),
        PYTHON=sys.executable,
        GPU_CHECK_DISCOVER_ARGS=f"--sysfs-root {H100 / 'sys'} --nvml-fixture {H100 / 'nvml.json'}",
    )
    return subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gpu_check_passes_when_nvidia_smi_agrees(tmp_path: Path) -> None:
    result = run_script(tmp_path, fake_nvidia_smi(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "GPUs: 8 (nvidia-smi: 8); MIG devices: 9" in result.stdout
    assert "slices validate: ok; fixture replay: ok" in result.stdout
    assert result.stdout.rstrip().endswith("gpu-check: PASS")
    assert (tmp_path / "out/fixture/nvml.json").is_file() and (tmp_path / "out/fixture/sys").is_dir()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gpu_check_reports_mismatches(tmp_path: Path) -> None:
    result = run_script(tmp_path, fake_nvidia_smi(tmp_path, drop_last_gpu=True))
    assert result.returncode == 1
    assert "MISMATCH: GPU count: dractl 8, nvidia-smi 7" in result.stdout
    assert "gpu-check: FAIL" in result.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gpu_check_needs_nvidia_smi(tmp_path: Path) -> None:
    env = dict(os.environ, NVIDIA_SMI=str(tmp_path / "missing"), PYTHON=sys.executable)
    result = subprocess.run(
        ["bash", str(SCRIPT), str(tmp_path / "o")], env=env, capture_output=True, text=True
    )
    assert result.returncode == 2 and "not found" in result.stderr
