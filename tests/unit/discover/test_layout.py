"""Pool splitting within the API limits (api-limits.json) and pool consistency."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from discover_support import REPO

from dractl.discover.layout import is_advanced, layout

LIMITS = json.loads((REPO / ".." / "shared" / "docs" / "api-limits.json").read_text())["versions"]


def plain(n: int) -> list[dict[str, Any]]:
    return [{"name": f"dev-{k}", "attributes": {"index": {"int": k}}} for k in range(n)]


def consuming(n: int, sets: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"part-{k}",
            "consumesCounters": [{"counterSet": f"set-{k % sets}", "counters": {"memory": {"value": "1Gi"}}}],
        }
        for k in range(n)
    ]


def counter_sets(n: int, counters: int = 15) -> list[dict[str, Any]]:
    return [
        {"name": f"set-{k}", "counters": {f"c-{j}": {"value": "1"} for j in range(counters)}}
        for k in range(n)
    ]


def check_pool(slices: list[dict[str, Any]], version: str) -> None:
    """The invariants every emitted pool must keep."""
    limits = LIMITS[version]
    assert len({s["metadata"]["name"] for s in slices}) == len(slices)
    pools = {json.dumps(s["spec"]["pool"], sort_keys=True) for s in slices}
    assert len(pools) == 1 and slices[0]["spec"]["pool"]["resourceSliceCount"] == len(slices)
    names = [d["name"] for s in slices for d in s["spec"].get("devices", [])]
    assert len(names) == len(set(names))
    for s in slices:
        spec = s["spec"]
        devices = spec.get("devices", [])
        advanced = limits.get(
            "ResourceSliceMaxDevicesWithTaintsOrConsumesCounters",
            limits.get("ResourceSliceMaxDevicesWithAdvancedFeatures"),
        )
        cap = advanced if advanced and any(map(is_advanced, devices)) else limits["ResourceSliceMaxDevices"]
        assert len(devices) <= cap
        assert len(spec.get("sharedCounters", [])) <= limits.get("ResourceSliceMaxCounterSets", 8)
        if version >= "1.35":
            assert not (devices and spec.get("sharedCounters"))
        else:
            assert (
                sum(len(c["counters"]) for c in spec.get("sharedCounters", []))
                <= limits["ResourceSliceMaxSharedCounters"]
            )
            assert (
                sum(len(c["counters"]) for d in devices for c in d.get("consumesCounters", []))
                <= limits["ResourceSliceMaxDeviceCountersPerSlice"]
            )


@pytest.mark.parametrize(
    ("n", "expected"), [(0, []), (1, [1]), (128, [128]), (129, [128, 1]), (300, [128, 128, 44])]
)
def test_plain_devices_fill_slices_of_128(n: int, expected: list[int]) -> None:
    slices = layout("d.example.com", "pool", "node", plain(n), [], "1.37")
    assert [len(s["spec"]["devices"]) for s in slices] == expected
    if slices:
        check_pool(slices, "1.37")


def test_devices_with_taints_or_counters_fill_slices_of_64() -> None:
    devices = plain(100)
    devices[70]["taints"] = [{"key": "k", "effect": "NoSchedule"}]
    slices = layout("d.example.com", "pool", "node", devices, [], "1.36")
    assert [len(s["spec"]["devices"]) for s in slices] == [70, 30]  # the tainted one starts a slice of <= 64
    check_pool(slices, "1.36")
    parts = layout("d.example.com", "pool", "node", consuming(130, 10), counter_sets(10), "1.37")
    assert [len(s["spec"].get("devices", [])) for s in parts] == [0, 0, 64, 64, 2]
    assert [len(s["spec"].get("sharedCounters", [])) for s in parts] == [8, 2, 0, 0, 0]
    check_pool(parts, "1.37")


def test_list_attributes_count_as_advanced() -> None:
    assert is_advanced({"attributes": {"x": {"ints": [1]}}})
    assert not is_advanced({"attributes": {"x": {"int": 1}}})


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36", "1.37"])
def test_counter_sets_and_consumers_per_version(version: str) -> None:
    slices = layout(
        "gpu.nvidia.com", "pool", "node", consuming(26 * 8, 8), counter_sets(8), version, generation=3
    )
    check_pool(slices, version)
    assert {s["spec"]["pool"]["generation"] for s in slices} == {3}
    if version == "1.34":  # sets live with their consumers, at most 32 counters per slice
        for s in slices:
            own = {c["name"] for c in s["spec"]["sharedCounters"]}
            assert {c["counterSet"] for d in s["spec"]["devices"] for c in d["consumesCounters"]} <= own


def test_layout_does_not_mutate_its_input() -> None:
    devices, sets = consuming(70, 2), counter_sets(2)
    before = copy.deepcopy((devices, sets))
    layout("d.example.com", "pool", "node", devices, sets, "1.34")
    layout("d.example.com", "pool", "node", devices, sets, "1.37")
    assert (devices, sets) == before


def test_slice_names_are_dns_subdomains(tmp_path: Path) -> None:
    slices = layout("GPU.Example.com", "pool", "Node_A", plain(1), [], "1.37")
    assert slices[0]["metadata"]["name"] == "node-a-gpu.example.com-0"
