"""The NVML probe against the recorded H100 answers and against injected NVML errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from discover_support import H100, REPO, h100_nvml_data, run, write_nvml

from dractl.discover.engine import DiscoverOptions, discover
from dractl.discover.nvml import init_nvml, probe_gpus
from dractl.discover.nvml_fixture import FakeNvml
from dractl.discover.nvml_mig import profile_name
from dractl.discover.report import Inventory, Message
from dractl.discover.sysfs import SysFS
from dractl.errors import InputError


def test_eight_gpus_with_their_identity(h100: Inventory) -> None:
    assert h100.nvml is not None
    assert (h100.nvml.driver_version, h100.nvml.cuda_driver_version) == ("560.35.03", "12.6")
    assert len(h100.gpus) == 8
    g = h100.gpus[0]
    assert (g.name, g.brand, g.architecture, g.cuda_compute_capability) == (
        "NVIDIA H100 80GB HBM3",
        "Nvidia",
        "Hopper",
        "9.0",
    )
    assert (g.minor, g.uuid, g.memory_bytes) == (2, "GPU-5e9c3ab1-2f4d-7e8a-1b6c-93d0f4a2c871", 85520809984)
    assert (g.pci_bus_id, g.pcie_root, g.numa_node, g.addressing_mode) == (
        "0000:18:00.0",
        "pci0000:15",
        0,
        "HMM",
    )
    assert (g.nvlinks_active, g.nvlinks_total) == (18, 18)
    assert [x.numa_node for x in h100.gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [x.minor for x in h100.gpus] == [2, 3, 0, 1, 6, 7, 4, 5]


def test_mig_profiles_come_from_nvml(h100: Inventory) -> None:
    g = h100.gpus[0]
    assert g.mig_capable and not g.mig_enabled
    names = [(p.name, p.id, len(p.placements)) for p in g.mig_profiles]
    assert names == [
        ("1g.10gb", 19, 7),
        ("2g.20gb", 14, 3),
        ("3g.40gb", 9, 2),
        ("4g.40gb", 5, 1),
        ("7g.80gb", 0, 1),
        ("1g.10gb+me", 20, 7),
        ("1g.20gb", 15, 4),
    ]
    seven = next(p for p in g.mig_profiles if p.id == 0)
    assert (seven.slice_count, seven.multiprocessors, seven.memory_mib, seven.placements[0].size) == (
        7,
        132,
        80384,
        8,
    )


def test_profile_query_covers_every_index_and_no_table(fake_h100: FakeNvml) -> None:
    """Profiles are asked for by index 0..COUNT-1 (no table): change NVML's answer, the result follows."""
    fake_h100.calls["nvmlDeviceGetGpuInstanceProfileInfo"]["gpu0|3|2"] = {"$error": 3}
    fake_h100.calls["nvmlDeviceGetGpuInstanceProfileInfo"]["gpu0|0|2"]["name"] = "MIG 1g.12gb"
    _, gpus = probe_gpus(fake_h100, SysFS(H100 / "sys"), lambda m: None)
    assert [p.name for p in gpus[0].mig_profiles][:4] == ["1g.12gb", "2g.20gb", "3g.40gb", "7g.80gb"]
    asked = [c for c in fake_h100.log if c == "nvmlDeviceGetGpuInstanceProfileInfo"]
    assert len(asked) == 8 * 0x12


def test_fallback_profile_names_match_nvml_names(h100: Inventory) -> None:
    """Without NVML's v2 name, go-nvlib's rule rebuilds the same names from memory and slices."""
    g = h100.gpus[0]
    for p in g.mig_profiles:
        assert profile_name(p.index, p.slice_count, p.memory_mib, g.memory_bytes) == p.name


def test_v1_profile_info_when_the_v_variant_is_missing(tmp_path: Path) -> None:
    def mutate(calls: dict[str, Any]) -> None:
        table = calls["nvmlDeviceGetGpuInstanceProfileInfo"]
        for key in list(table):
            g, index, _ = key.split("|")
            v1 = dict(table[key])
            v1.pop("name", None)
            table[f"{g}|{index}|1"] = v1 if "$error" not in v1 else table[key]
            table[key] = {"$error": 13}

    inv = run(H100, write_nvml(tmp_path, mutate), kinds=("gpu",))
    assert [p.name for p in inv.gpus[0].mig_profiles] == [
        p.name for p in run(H100, H100 / "nvml.json", kinds=("gpu",)).gpus[0].mig_profiles
    ]


def test_existing_mig_devices(h100: Inventory) -> None:
    g6, g7 = h100.gpus[6], h100.gpus[7]
    assert g6.mig_enabled and g7.mig_enabled
    assert [
        (m.profile.name if m.profile else None, m.placement.start if m.placement else None)
        for m in g6.mig_devices
    ] == [("3g.40gb", 0), ("3g.40gb", 4)]
    assert len(g7.mig_devices) == 7 and all(m.uuid.startswith("MIG-") for m in g7.mig_devices)
    assert g6.mig_devices[0].memory_bytes == 40192 * 2**20


def test_health(h100: Inventory) -> None:
    assert h100.gpus[3].health.remapped_rows_pending and h100.gpus[3].health.summary == "row-remap-pending"
    assert h100.gpus[0].health.summary == "ok"
    assert h100.gpus[0].health.retired_pages_pending is None  # NOT_SUPPORTED on Hopper: not an error
    assert not any(m.level == "warning" for m in h100.messages)


def test_gpu_lost_becomes_a_taint(tmp_path: Path) -> None:
    path = write_nvml(tmp_path, lambda c: c["nvmlDeviceGetMemoryInfo"].update({"gpu4": {"$error": 15}}))
    inv = run(H100, path, kinds=("gpu",))
    lost = inv.gpus[4]
    assert lost.health.lost and [t.key for t in lost.taints] == ["gpu.nvidia.com/gpu-lost"]
    assert lost.uuid == "GPU-e3f81a6c-4b2d-9c07-5a8e-1d6f3b9a2e47" and lost.minor == 6
    assert any("GPU 4" in m.text and "GPU is lost" in m.text for m in inv.messages)
    assert not inv.gpus[5].taints


def test_no_permission_on_health_queries_taints_unmonitored(tmp_path: Path) -> None:
    def mutate(calls: dict[str, Any]) -> None:
        calls["nvmlDeviceGetRemappedRows"]["gpu2"] = {"$error": 4}
        calls["nvmlDeviceGetTotalEccErrors"]["gpu2|1|0"] = {"$error": 4}

    inv = run(H100, write_nvml(tmp_path, mutate), kinds=("gpu",))
    assert [(t.key, t.effect) for t in inv.gpus[2].taints] == [("gpu.nvidia.com/unmonitored", "None")]
    assert any("insufficient permissions" in m.text for m in inv.messages)


def test_not_supported_fields_are_just_absent(tmp_path: Path) -> None:
    def mutate(calls: dict[str, Any]) -> None:
        calls["nvmlDeviceGetAddressingMode"]["gpu0"] = {"$error": 3}
        calls["nvmlDeviceGetMigMode"]["gpu1"] = {"$error": 3}
        del calls["nvmlDeviceGetNvLinkState"]

    inv = run(H100, write_nvml(tmp_path, mutate), kinds=("gpu",))
    assert inv.gpus[0].addressing_mode is None and inv.gpus[0].nvlinks_total is None
    assert not inv.gpus[1].mig_capable and inv.gpus[1].mig_profiles == ()
    assert not [m for m in inv.messages if m.level == "warning"]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (12, "libnvidia-ml.so.1) was not found"),
        (9, "kernel driver is not loaded"),
        (4, "insufficient permissions (run as root"),
        (18, "versions do not match"),
    ],
)
def test_nvml_init_failures_are_reported_not_raised(tmp_path: Path, code: int, text: str) -> None:
    path = write_nvml(tmp_path, lambda c: c.update({"nvmlInit": {"": {"$error": code}}}))
    inv = run(H100, path, kinds=("gpu",))
    assert inv.gpus == []
    status = next(p for p in inv.probes if p.name == "nvml")
    assert not status.available and text in status.detail


def test_unexpected_error_code_is_a_message(tmp_path: Path) -> None:
    path = write_nvml(tmp_path, lambda c: c["nvmlDeviceGetName"].update({"gpu1": {"$error": 999}}))
    inv = run(H100, path, kinds=("gpu",))
    assert inv.gpus[1].name is None
    assert any(
        m.text == "GPU 1 (GPU-0a7f2c3e-9d1b-4e55-8c2a-6f3b1d9e7a40): product name: unknown NVML error"
        for m in inv.messages
    )


def test_bad_fixture_files_are_input_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError) as err:
        FakeNvml.load(tmp_path / "bad.json")
    assert re.search(r"bad.json:1:2: not JSON: Expecting property name", err.value.one_line())
    with pytest.raises(InputError, match="cannot read NVML fixture"):
        FakeNvml.load(tmp_path / "missing.json")
    (tmp_path / "other.json").write_text(json.dumps({"calls": {}}))
    with pytest.raises(InputError) as err:
        FakeNvml.load(tmp_path / "other.json")
    assert err.value.one_line().endswith(
        'other.json: format: not an NVML fixture (expected "format": "dractl-nvml-fixture/v1" and "calls")'
    )


WRITE_CALL = re.compile(r"nvml\w*(Set|Create|Destroy|Reset|Clear|Register|Enable|Disable)\w*")


def test_probe_only_queries(h100: Inventory, fake_h100: FakeNvml) -> None:
    """Read-only: every NVML function discovery calls is a query (or init/shutdown)."""
    init_nvml(fake_h100)
    probe_gpus(fake_h100, SysFS(H100 / "sys"), lambda m: None)
    called = set(fake_h100.log)
    assert called and not {c for c in called if WRITE_CALL.fullmatch(c)}
    assert all(
        re.fullmatch(r"nvml(Init|Shutdown|SystemGet\w+|DeviceGet\w+|GpuInstanceGet\w+)", c) for c in called
    )
    source = "\n".join(p.read_text() for p in (REPO / "dractl" / "discover").glob("*.py"))
    assert not WRITE_CALL.search(source.replace("nvmlDeviceGetMigDeviceHandleByIndex", ""))


def test_fixture_functions_exist_in_pynvml() -> None:
    """The fake answers the same functions real pynvml has (so replay exercises real call shapes)."""
    pynvml = pytest.importorskip("pynvml")
    for name in h100_nvml_data()["calls"]:
        assert callable(getattr(pynvml, name, None)), name


def test_replay_never_imports_pynvml() -> None:
    code = (
        "import sys; from dractl.discover import discover, DiscoverOptions; from pathlib import Path; "
        f"discover(DiscoverOptions(node='n', sysfs_root=Path({str(H100 / 'sys')!r}), "
        f"nvml_fixture=Path({str(H100 / 'nvml.json')!r}))); assert 'pynvml' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_messages_from_probe_gpus_are_collected(fake_h100: FakeNvml) -> None:
    fake_h100.calls["nvmlSystemGetDriverVersion"][""] = {"$error": 999}
    got: list[Message] = []
    system, _ = probe_gpus(fake_h100, SysFS(H100 / "sys"), got.append)
    assert system.driver_version is None and got[0].text == "driver version: unknown NVML error"


def test_discover_options_reject_missing_sysfs_root(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a directory"):
        discover(DiscoverOptions(sysfs_root=tmp_path / "nope"))
