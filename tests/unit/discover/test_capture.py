"""--save-fixture: recording sysfs reads and NVML answers, and replaying them unchanged."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from discover_support import CONNECTX, H100, h100_nvml_data

from dractl.discover import DiscoverOptions, discover, save_fixture
from dractl.discover.nvml import init_nvml, probe_gpus
from dractl.discover.nvml_fixture import FakeNvml, Handle, RecordingNvml
from dractl.discover.sysfs import SysFS


class StubPynvml:
    """Real pynvml's answer shapes (ctypes handles and structures), fed by the H100 recording."""

    def __init__(self, fake: FakeNvml) -> None:
        self._fake = fake
        self._handles: dict[str, ctypes.c_void_p] = {}
        self._keys: dict[int, str] = {}
        self.NVMLError = fake.NVMLError
        self.c_nvmlGpuInstancePlacement_t = fake.c_nvmlGpuInstancePlacement_t
        self.c_nvmlGpuFabricInfoV_t = fake.c_nvmlGpuFabricInfoV_t
        self.NVML_GPU_INSTANCE_PROFILE_COUNT = 0x12
        self.NVML_NVLINK_MAX_LINKS = 18

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._fake, name)
        return lambda *args: self._wrap(fn(*(self._unwrap(a) for a in args)))

    def _unwrap(self, a: Any) -> Any:
        return Handle(self._keys[a.value]) if isinstance(a, ctypes.c_void_p) else a

    def _wrap(self, v: Any) -> Any:
        if isinstance(v, Handle):
            if v.key not in self._handles:
                self._handles[v.key] = ctypes.c_void_p(0x1000 + 16 * len(self._handles))
                self._keys[self._handles[v.key].value or 0] = v.key
            return self._handles[v.key]
        if isinstance(v, SimpleNamespace):
            return self._struct(v)
        return v

    def _struct(self, ns: SimpleNamespace) -> ctypes.Structure:
        fields: list[tuple[str, Any]] = []
        values: dict[str, Any] = {}
        for key, value in vars(ns).items():
            if isinstance(value, str):
                fields.append((key, ctypes.c_char * 96))
                values[key] = value.encode()
            elif isinstance(value, Handle):
                fields.append((key, ctypes.c_void_p))
                values[key] = self._wrap(value).value
            elif isinstance(value, SimpleNamespace):
                inner = self._struct(value)
                fields.append((key, type(inner)))
                values[key] = inner
            else:
                fields.append((key, ctypes.c_longlong))
                values[key] = value
        cls = type("Answer", (ctypes.Structure,), {"_fields_": fields})
        return cls(**values)


def test_recording_real_shaped_answers_replays_identically() -> None:
    sys = SysFS(H100 / "sys")
    recorder = RecordingNvml(StubPynvml(FakeNvml(h100_nvml_data())))
    init_nvml(recorder)
    system, gpus = probe_gpus(recorder, sys, lambda m: None)
    fixture = json.loads(json.dumps(recorder.fixture()))
    assert fixture["calls"]["nvmlDeviceGetHandleByIndex"]["3"] == {"$handle": "gpu3"}
    assert fixture["calls"]["nvmlGpuInstanceGetInfo"]["gpu6.gi2"]["placement"] == {"start": 4, "size": 4}
    assert fixture["calls"]["nvmlDeviceGetGpuInstanceProfileInfo"]["gpu0|8|2"] == {"$error": 3}
    replay = FakeNvml(fixture)
    init_nvml(replay)
    assert probe_gpus(replay, sys, lambda m: None) == (system, gpus)


def test_saved_sysfs_tree_replays_identically(tmp_path: Path) -> None:
    session = discover(DiscoverOptions(node="nic-01", sysfs_root=CONNECTX / "sys", record=True))
    written = save_fixture(session, tmp_path / "fx")
    assert written == ["sys", "pci.ids", "nvml.json"]
    assert (tmp_path / "fx/sys/class/net/ens1f0np0").is_symlink()
    again = discover(
        DiscoverOptions(node="nic-01", sysfs_root=tmp_path / "fx/sys", nvml_fixture=tmp_path / "fx/nvml.json")
    ).inventory
    before = session.inventory
    assert (again.pci, again.nics, again.rdma, again.cpu) == (
        before.pci,
        before.nics,
        before.rdma,
        before.cpu,
    )
    assert "MT2910 Family [ConnectX-7]" in (tmp_path / "fx/pci.ids").read_text()


def test_this_machine_capture_round_trip(tmp_path: Path) -> None:
    """Whatever this machine has (no GPU here): capture it, replay it, get the same inventory."""
    session = discover(DiscoverOptions(node="this", record=True))
    save_fixture(session, tmp_path / "me")
    replay = discover(
        DiscoverOptions(
            node="this",
            sysfs_root=tmp_path / "me/sys",
            nvml_fixture=tmp_path / "me/nvml.json" if (tmp_path / "me/nvml.json").exists() else None,
        )
    ).inventory
    live = session.inventory
    assert (replay.pci, replay.nics, replay.rdma, replay.cpu, replay.gpus) == (
        live.pci,
        live.nics,
        live.rdma,
        live.cpu,
        live.gpus,
    )
