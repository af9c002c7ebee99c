"""Fixtures for the discovery tests: the committed fixture trees, discovered once per session."""

from __future__ import annotations

import pytest
from discover_support import CONNECTX, EPYC, H100, h100_nvml_data, run

from dractl.discover import Inventory
from dractl.discover.nvml_fixture import FakeNvml


@pytest.fixture(scope="session")
def h100() -> Inventory:
    return run(H100, H100 / "nvml.json", node="dgx-01")


@pytest.fixture(scope="session")
def connectx() -> Inventory:
    return run(CONNECTX, kinds=("nic", "pci"), node="nic-01")


@pytest.fixture(scope="session")
def epyc() -> Inventory:
    return run(EPYC, kinds=("cpu",), node="cpu-01")


@pytest.fixture
def fake_h100() -> FakeNvml:
    return FakeNvml(h100_nvml_data())
