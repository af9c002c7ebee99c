"""Hostile sysfs captures and NVML fixtures (issue 11): bounded reads and ranges, non-regular files
never read, fixture sections of the wrong type, untrusted names never set as attributes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from discover_support import EPYC, H100, run, write_nvml

from dractl.discover.cpu import MAX_CPUS, MAX_NODES, parse_cpulist
from dractl.discover.nvml_fixture import FakeNvml
from dractl.discover.sysfs import MAX_READ, SysFS
from dractl.errors import InputError


def test_cpu_lists_are_bounded_by_what_the_kernel_can_report() -> None:
    assert parse_cpulist("0-3,8") == (0, 1, 2, 3, 8)
    assert len(parse_cpulist("0-99999999")) == MAX_CPUS
    assert parse_cpulist("0-2000000,5") == tuple(range(MAX_CPUS))
    assert parse_cpulist("9" * 40) == ()  # not a number the kernel writes
    assert len(parse_cpulist("0-5000", MAX_NODES)) == MAX_NODES


def copy_tree(src: Path, tmp_path: Path) -> Path:
    root = tmp_path / "cap"
    shutil.copytree(src, root, symlinks=True)
    return root


def test_a_huge_online_range_costs_at_most_max_cpus(tmp_path: Path) -> None:
    root = copy_tree(EPYC, tmp_path)
    (root / "sys/devices/system/cpu/online").write_text("0-2000000\n")
    (root / "sys/devices/system/cpu/cpu0/topology/thread_siblings_list").write_text("0-99999999\n")
    inv = run(root, kinds=("cpu",))
    assert inv.cpu is not None and len(inv.cpu.cpus) <= MAX_CPUS
    assert all(len(c.siblings) <= MAX_CPUS for c in inv.cpu.cpus)


def test_sysfs_reads_skip_devices_fifos_and_oversized_files(tmp_path: Path) -> None:
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"1" * (MAX_READ + 1))
    (tmp_path / "ok").write_text("42\n")
    fs = SysFS(tmp_path)
    assert fs.read("zero") is None and fs.read("fifo") is None and fs.read("big") is None
    assert fs.read_int("ok") == 42


def fixture(tmp_path: Path, data: object, raw: bytes | None = None) -> Path:
    path = tmp_path / "nvml.json"
    path.write_bytes(raw if raw is not None else json.dumps(data).encode())
    return path


@pytest.mark.parametrize(
    "data,raw,field",
    [
        (None, b"\xff\xfe{}", None),
        (
            {"format": "dractl-nvml-fixture/v1", "calls": {"nvmlDeviceGetCount": [1, 2]}},
            None,
            "calls.nvmlDeviceGetCount",
        ),
        ({"format": "dractl-nvml-fixture/v1", "calls": {}, "constants": [1]}, None, "constants"),
        (
            {"format": "dractl-nvml-fixture/v1", "calls": {}, "constants": {"__dict__": 1}},
            None,
            "constants.__dict__",
        ),
        (
            {"format": "dractl-nvml-fixture/v1", "calls": {}, "constants": {"calls": 1}},
            None,
            "constants.calls",
        ),
        (None, b"[" * 100_000, None),
    ],
)
def test_malformed_fixtures_are_one_input_error(
    tmp_path: Path, data: object, raw: bytes | None, field: str | None
) -> None:
    with pytest.raises(InputError) as e:
        FakeNvml.load(fixture(tmp_path, data, raw))
    assert e.value.field == field
    assert "\n" not in e.value.one_line()


def test_fixture_reads_are_bounded_and_regular_only(tmp_path: Path) -> None:
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a readable regular file"):
        FakeNvml.load(tmp_path / "zero.json")


def test_constants_never_replace_the_fakes_own_state(tmp_path: Path) -> None:
    data = json.loads((H100 / "nvml.json").read_text())
    data["constants"] = {"NVML_NVLINK_MAX_LINKS": 4}
    nv = FakeNvml.load(fixture(tmp_path, data))
    assert nv.NVML_NVLINK_MAX_LINKS == 4 and isinstance(nv.calls, dict)


@pytest.mark.parametrize(
    "placement",
    [{"start": 0, "size": 4_000_000_000}, {"start": -1, "size": 1}, {"start": "0", "size": 1}, [0, 1]],
)
def test_placements_outside_the_gpu_are_input_errors(tmp_path: Path, placement: object) -> None:
    def mutate(calls: dict[str, dict[str, object]]) -> None:
        table = calls["nvmlDeviceGetGpuInstancePossiblePlacements"]
        assert table
        for key in table:
            table[key] = [placement]

    path = write_nvml(tmp_path, mutate)
    with pytest.raises(InputError, match="placement 0 is not"):
        run(H100, path, kinds=("gpu",))
