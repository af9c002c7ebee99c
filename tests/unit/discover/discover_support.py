"""Helpers for the discovery tests: fixture paths, running discovery, mutated NVML fixtures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from dractl.discover import DiscoverOptions, Inventory, discover

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "discover"
H100 = FIXTURES / "h100-8gpu"
CONNECTX = FIXTURES / "connectx-sriov"
EPYC = FIXTURES / "cpu-2socket"
CORPUS = REPO / ".." / "shared" / "corpus"


def h100_nvml_data() -> dict[str, Any]:
    return json.loads((H100 / "nvml.json").read_text())


def run(
    root: Path,
    nvml: Path | None = None,
    kinds: tuple[str, ...] = ("gpu", "nic", "pci", "cpu"),
    node: str = "node-a",
) -> Inventory:
    return discover(
        DiscoverOptions(node=node, kinds=frozenset(kinds), sysfs_root=root / "sys", nvml_fixture=nvml)
    ).inventory


def write_nvml(tmp_path: Path, mutate: Any = None) -> Path:
    """A copy of the H100 NVML fixture, changed by ``mutate(calls)``."""
    data = copy.deepcopy(h100_nvml_data())
    if mutate is not None:
        mutate(data["calls"])
    path = tmp_path / "nvml.json"
    path.write_text(json.dumps(data))
    return path
