"""Allocator semantics cross-checked against the July 2026 source (allocator_experimental.go, 3d03671)
in situations the shared 223 cases don't set up.

- allocationMode All looks at *every* pool gathered for the node: an incomplete pool of another
  driver (with no device of the requested class) still aborts with "asks for all devices, but
  resource pool X is currently being updated"; a pool on another node is not gathered.
- The claim limit (AllocationResultsMaxSize = 32) is checked on the lower bound of the device count
  before any search: ExactCount 33, All over 33 matching devices, and a count far above int64/2.
- Device search order (pools_experimental.go sortPoolsByID, sortSlicesByName): pools in (driver,
  pool) order, the slices of a pool by name, devices in slice order — whatever the input order.
"""

from __future__ import annotations

from typing import Any

import pytest

from dractl.matcher import AllocationInputs, allocate
from dractl.model.build import build_object
from dractl.model.features import Features

F = Features.for_version("1.37")
NODE: Any = build_object({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-1"}})


def _slice(
    name: str, driver: str, pool: str, devices: list[str], *, count: int = 1, node: str = "node-1"
) -> Any:
    return build_object(
        {
            "kind": "ResourceSlice",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "nodeName": node,
                "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
                "devices": [{"name": d} for d in devices],
            },
        }
    )


def _class(name: str = "class-a", expr: str = 'device.driver == "driver-a"') -> Any:
    return build_object(
        {
            "kind": "DeviceClass",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}]},
        }
    )


def _claim(mode: str, count: int | None = None, cls: str = "class-a") -> Any:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": mode}
    if count is not None:
        exactly["count"] = count
    return build_object(
        {
            "kind": "ResourceClaim",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": "claim-0", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "req-0", "exactly": exactly}]}},
        }
    )


def test_all_mode_fails_on_any_incomplete_pool_of_the_node() -> None:
    slices = [_slice("s1", "driver-a", "pool-1", ["d0"]), _slice("s2", "driver-b", "pool-2", ["x"], count=2)]
    outcome = allocate(AllocationInputs(NODE, [_class()], slices, [_claim("All")]), F)
    assert outcome.status == "error"
    assert outcome.error == (
        "claim default/claim-0, request req-0: asks for all devices, but resource pool "
        "driver-b/pool-2 is currently being updated"
    )
    # ExactCount does not look at that pool at all
    assert (
        allocate(AllocationInputs(NODE, [_class()], slices, [_claim("ExactCount", 1)]), F).status
        == "allocated"
    )
    # and a pool published for another node is not gathered for this one
    elsewhere = [slices[0], _slice("s2", "driver-b", "pool-2", ["x"], count=2, node="node-2")]
    assert allocate(AllocationInputs(NODE, [_class()], elsewhere, [_claim("All")]), F).status == "allocated"


@pytest.mark.parametrize(
    ("mode", "count", "devices", "wanted"),
    [
        ("ExactCount", 33, 1, 33),
        ("All", None, 33, 33),
        ("ExactCount", 2**62, 1, 2**62),
    ],
)
def test_claim_limit_is_checked_before_the_search(
    mode: str, count: int | None, devices: int, wanted: int
) -> None:
    slices = [_slice("s1", "driver-a", "pool-1", [f"d{i}" for i in range(devices)])]
    outcome = allocate(AllocationInputs(NODE, [_class()], slices, [_claim(mode, count)]), F)
    assert outcome.status == "error"
    assert outcome.error == (
        f"claim default/claim-0: number of requested devices {wanted} exceeds the claim limit of 32"
    )


def test_all_mode_with_exactly_32_devices_is_allowed() -> None:
    slices = [_slice("s1", "driver-a", "pool-1", [f"d{i}" for i in range(32)])]
    outcome = allocate(AllocationInputs(NODE, [_class()], slices, [_claim("All")]), F)
    assert outcome.status == "allocated"
    assert [r.device for r in outcome.results[0].results] == [f"d{i}" for i in range(32)]


def test_search_order_is_by_driver_and_pool_then_slice_order() -> None:
    any_class = _class("any", "true")
    slices = [
        _slice("z", "driver-z", "pool-1", ["z0"]),
        _slice("b", "driver-a", "pool-b", ["b0", "b1"]),
        _slice("a", "driver-a", "pool-a", ["a1", "a0"]),
    ]
    outcome = allocate(AllocationInputs(NODE, [any_class], slices, [_claim("ExactCount", 3, cls="any")]), F)
    assert outcome.status == "allocated"
    assert [(r.driver, r.pool, r.device) for r in outcome.results[0].results] == [
        ("driver-a", "pool-a", "a1"),
        ("driver-a", "pool-a", "a0"),
        ("driver-a", "pool-b", "b0"),
    ]


def test_slices_of_a_pool_are_searched_by_name() -> None:
    any_class = _class("any", "true")
    slices = [
        _slice("slice-b", "driver-a", "pool-1", ["b0"], count=2),
        _slice("slice-a", "driver-a", "pool-1", ["a0"], count=2),
    ]
    outcome = allocate(AllocationInputs(NODE, [any_class], slices, [_claim("ExactCount", 1, cls="any")]), F)
    assert [r.device for r in outcome.results[0].results] == ["a0"]
