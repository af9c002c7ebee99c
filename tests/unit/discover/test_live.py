"""This machine's own sysfs (no GPU here): whatever it has is discovered and nothing crashes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from dractl.discover import BuildOptions, DiscoverOptions, build, discover


def test_discovers_this_machine() -> None:
    inv = discover(DiscoverOptions(node="this-node")).inventory
    names = {p.name for p in inv.probes}
    assert {"pci", "net", "cpu", "nvml"} <= names
    sysfs_pci = (
        sorted(p.name for p in Path("/sys/bus/pci/devices").iterdir())
        if Path("/sys/bus/pci/devices").is_dir()
        else []
    )
    assert [d.address for d in inv.pci] == sysfs_pci
    if Path("/sys/devices/system/cpu/online").exists():
        assert inv.cpu is not None and len(inv.cpu.cpus) >= 1
    nvml = next(p for p in inv.probes if p.name == "nvml")
    if not nvml.available:  # no GPU driver here: a clear reason, no GPUs, no traceback
        assert nvml.detail and inv.gpus == []
    result = build(inv, BuildOptions(node="this-node"))
    assert all(s["spec"]["nodeName"] == "this-node" for s in result.slices)


def test_cli_on_this_machine(run_cli: Callable[..., Any]) -> None:
    table = run_cli(["discover"])
    assert table.exit_code == 0 and "Probes" in table.stdout and "Traceback" not in table.stderr
    out = run_cli(["discover", "-o", "yaml", "--node", "this-node"])
    assert out.exit_code == 0
    assert all(d["kind"] == "ResourceSlice" for d in yaml.safe_load_all(out.stdout) if d)


def test_pynvml_is_imported_lazily() -> None:
    code = (
        "import sys; import dractl.discover, dractl.cli.discover; from dractl.cli.app import main; "
        "main(['--help']); assert 'pynvml' not in sys.modules, 'pynvml imported eagerly'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
