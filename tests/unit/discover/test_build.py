"""The ResourceSlice builder on the fixtures: names, values, MIG modelling, options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from discover_support import H100, run, write_nvml

from dractl.discover import BuildOptions, Inventory, build
from dractl.discover.versions import is_strict
from dractl.model.features import Features
from dractl.model.quantity import Quantity


def devices(result: Any) -> list[dict[str, Any]]:
    return [d for s in result.slices for d in s["spec"].get("devices", [])]


def gpu_build(inv: Inventory, **kw: Any) -> Any:
    return build(inv, BuildOptions(node="dgx-01", kinds=frozenset({"gpu"}), **kw))


def test_static_gpus_and_mig_devices(h100: Inventory) -> None:
    result = gpu_build(h100)
    devs = {d["name"]: d for d in devices(result)}
    assert [n for n in devs if "mig" not in n] == ["gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-6", "gpu-7"]
    assert sorted(n for n in devs if "mig" in n) == sorted(
        ["gpu-4-mig-3g40gb-9-0", "gpu-4-mig-3g40gb-9-4"] + [f"gpu-5-mig-1g10gb-19-{k}" for k in range(7)]
    )
    g = devs["gpu-0"]["attributes"]
    assert g["driverVersion"] == {"version": "560.35.3"}  # NVML says 560.35.03
    assert g["cudaDriverVersion"] == {"version": "12.6.0"} and g["cudaComputeCapability"] == {
        "version": "9.0.0"
    }
    assert g["uuid"] == {"string": "GPU-c41e8d27-6a3f-2b9c-d058-7e1a4f6b2c93"}  # minor 0 is NVML index 2
    assert devs["gpu-0"]["capacity"] == {"memory": {"value": "81559Mi"}}
    mig = devs["gpu-4-mig-3g40gb-9-4"]
    assert mig["attributes"]["parentUUID"] == {"string": "GPU-9f1b3d5e-7a2c-4e86-b1d9-3c5a7e2f4b60"}
    assert mig["attributes"]["profile"] == {"string": "3g.40gb"}
    assert mig["attributes"]["uuid"] == {"string": "MIG-1c7d9e3a-5f2b-4a86-9d0e-3b7a1f5c8e24"}
    assert {k: v["value"] for k, v in mig["capacity"].items()} == {
        "copyEngines": "3",
        "decoders": "3",
        "encoders": "0",
        "jpegEngines": "3",
        "memory": "40192Mi",
        "multiprocessors": "60",
        "ofaEngines": "0",
        "memorySlice4": "1",
        "memorySlice5": "1",
        "memorySlice6": "1",
        "memorySlice7": "1",
    }
    assert [(p.driver, p.devices, p.slices, p.counter_sets) for p in result.pools] == [
        ("gpu.nvidia.com", 15, 1, 0)
    ]
    for d in devices(result):
        for value in d["attributes"].values():
            if "version" in value:
                assert is_strict(value["version"])


def test_partitionable_modelling(h100: Inventory) -> None:
    result = gpu_build(h100, mig_mode="partitionable")
    devs = devices(result)
    sets = {c["name"]: c for s in result.slices for c in s["spec"].get("sharedCounters", [])}
    assert len(devs) == 8 * 26 and len(sets) == 8
    assert [len(s["spec"].get("devices", [])) for s in result.slices] == [0, 64, 64, 64, 16]
    cset = sets["gpu-0-counter-set"]["counters"]
    assert cset["memory"] == {"value": "80384Mi"} and cset["multiprocessors"] == {"value": "132"}
    assert sorted(k for k in cset if k.startswith("memory-slice-")) == [f"memory-slice-{k}" for k in range(8)]
    assert len(cset) == 15
    full = next(d for d in devs if d["name"] == "gpu-0")
    assert full["consumesCounters"] == [{"counterSet": "gpu-0-counter-set", "counters": cset}]
    part = next(d for d in devs if d["name"] == "gpu-0-mig-2g20gb-14-4")
    assert part["consumesCounters"][0]["counters"]["memory-slice-4"] == {"value": "1"}
    assert set(part["consumesCounters"][0]["counters"]) == {
        "memory",
        "multiprocessors",
        "copy-engines",
        "decoders",
        "encoders",
        "jpeg-engines",
        "ofa-engines",
        "memory-slice-4",
        "memory-slice-5",
    }
    for d in devs:  # every consumed counter exists in its set and fits in it
        for use in d.get("consumesCounters", []):
            for name, value in use["counters"].items():
                have = sets[use["counterSet"]]["counters"][name]["value"]
                assert Quantity.parse(value["value"]).compare(Quantity.parse(have)) <= 0
    assert any("models every placement as free" in m.text for m in result.messages)


def test_legacy_attributes_and_driver_name(h100: Inventory) -> None:
    result = gpu_build(h100, legacy_gpu_attributes=True, drivers={"gpu": "gpu.example.com"})
    dev = devices(result)[0]
    assert dev["attributes"]["index"] == {"int": 2} and dev["attributes"]["minor"] == {"int": 0}
    assert result.slices[0]["spec"]["driver"] == "gpu.example.com"


def test_pool_and_generation_options(h100: Inventory) -> None:
    result = build(h100, BuildOptions(node="dgx-01", pool="rack-7/dgx-01", generation=4))
    assert {(s["spec"]["pool"]["name"], s["spec"]["pool"]["generation"]) for s in result.slices} == {
        ("rack-7/dgx-01", 4)
    }
    assert {s["spec"]["driver"] for s in result.slices} == {"gpu.nvidia.com", "dra.cpu"}


def test_gpu_lost_is_published_with_a_taint_and_gate_warning(tmp_path: Path) -> None:
    inv = run(
        H100,
        write_nvml(tmp_path, lambda c: c["nvmlDeviceGetMemoryInfo"].update({"gpu4": {"$error": 15}})),
        kinds=("gpu",),
    )
    lost = next(d for d in devices(gpu_build(inv)) if d["name"] == "gpu-6")
    assert lost["taints"] == [{"key": "gpu.nvidia.com/gpu-lost", "effect": "NoSchedule"}]
    assert lost["attributes"]["uuid"] == {"string": "GPU-e3f81a6c-4b2d-9c07-5a8e-1d6f3b9a2e47"}
    old = gpu_build(inv, kube_version="1.35")
    assert any("DRADeviceTaints" in m.text for m in old.messages)
    on = gpu_build(
        inv,
        kube_version="1.35",
        features=Features.parse("DRADeviceTaints=true", Features.for_version("1.35")),
    )
    assert not any("DRADeviceTaints" in m.text for m in on.messages)


def test_unparseable_driver_version_is_left_out(tmp_path: Path) -> None:
    inv = run(
        H100,
        write_nvml(tmp_path, lambda c: c["nvmlSystemGetDriverVersion"].update({"": "r560 beta"})),
        kinds=("gpu",),
    )
    result = gpu_build(inv)
    assert all("driverVersion" not in d["attributes"] for d in devices(result))
    assert any("'r560 beta' cannot be made a SemVer 2.0 version" in m.text for m in result.messages)


def test_nic_and_cpu_pools(connectx: Inventory, epyc: Inventory) -> None:
    nic = build(connectx, BuildOptions(node="nic-01"))
    names = [d["name"] for d in devices(nic)]
    assert "pci-0000-17-00-5" not in names  # bound to vfio-pci: no netdev, DRANET skips it
    assert "docker0" not in names and "lo" not in names and "cni0" in names
    assert len(names) == 11
    grouped = build(epyc, BuildOptions(node="cpu-01"))
    assert [(d["name"], d["capacity"]["dra.cpu/cpu"]["value"]) for d in devices(grouped)] == [
        (f"cpudevnuma00{k}", "32") for k in range(4)
    ]
    individual = build(epyc, BuildOptions(node="cpu-01", cpu_mode="individual"))
    assert len(devices(individual)) == 128 and len(individual.slices) == 1
    assert any(
        "DRAConsumableCapacity" in m.text
        for m in build(epyc, BuildOptions(node="cpu-01", kube_version="1.35")).messages
    )


def test_224_cpus_split_into_two_slices(h100: Inventory) -> None:
    result = build(h100, BuildOptions(node="dgx-01", kinds=frozenset({"cpu"}), cpu_mode="individual"))
    assert [len(s["spec"]["devices"]) for s in result.slices] == [128, 96]
    assert {s["spec"]["pool"]["resourceSliceCount"] for s in result.slices} == {2}


@pytest.mark.parametrize("kinds", [frozenset({"pci"}), frozenset()])
def test_kinds_without_a_driver_build_nothing(h100: Inventory, kinds: frozenset[str]) -> None:
    assert build(h100, BuildOptions(node="n", kinds=kinds)).slices == []


def test_list_type_numa_node_with_the_gate(h100: Inventory) -> None:
    features = Features.parse("DRAListTypeAttributes=true", Features.for_version("1.37"))
    result = gpu_build(h100, features=features)
    assert devices(result)[0]["attributes"]["resource.kubernetes.io/numaNode"] == {"ints": [0]}
    assert len(result.slices) == 1  # 15 devices: list attributes lower the limit to 64, still one slice
    assert devices(gpu_build(h100))[0]["attributes"]["resource.kubernetes.io/numaNode"] == {"int": 0}
