"""Consumable capacity, re-expressed from upstream tests that are not in the shared 223-case table.

Facts from k8s.io/dynamic-resource-allocation at 3d03671 (July 2026, the release the matcher ports):
``structured/internal/experimental/consumable_capacity_test.go`` (testCalculateConsumedCapacity,
testViolateCapacityRequestPolicy) and a TestAllocator case that was in the table in 2025
(``consumable-capacity-multi-allocatable-device-with-some-remaining-consumable-capacity``).
Plus QA regressions: the step rounding must be exact for values above 2**53.
"""

from __future__ import annotations

from typing import Any

import pytest

from dractl.matcher import FIXED_SHARE_ID, AllocatedState, AllocationInputs, allocate
from dractl.matcher.capacity import consumed_for, violates_policy
from dractl.model.build import build_object
from dractl.model.build import device as build_device
from dractl.model.features import Features
from dractl.model.quantity import Quantity

Q = Quantity.parse


def _cap(value: str, policy: dict[str, Any] | None) -> Any:
    raw: dict[str, Any] = {"name": "d", "capacity": {"c": {"value": value}}}
    if policy is not None:
        raw["capacity"]["c"]["requestPolicy"] = policy
    return build_device(raw).capacity["c"]


# (name, requested, capacity value, policy, expected consumption) — testCalculateConsumedCapacity
CALCULATE = [
    ("empty", None, "1", {}, "1"),
    ("min in range", None, "2", {"default": "1", "validRange": {"min": "1"}}, "1"),
    ("default in set", None, "2", {"default": "1", "validValues": ["1"]}, "1"),
    ("more than min in range", "2", "2", {"default": "1", "validRange": {"min": "1"}}, "2"),
    ("less than min in range", "1", "2", {"default": "1", "validRange": {"min": "2"}}, "2"),
    ("with step (round up)", "2", "3", {"default": "1", "validRange": {"min": "1", "step": "2"}}, "3"),
    ("with step (no remaining)", "2", "2", {"default": "1", "validRange": {"min": "1", "step": "1"}}, "2"),
    ("valid value in set", "2", "3", {"default": "1", "validValues": ["1", "2", "3"]}, "2"),
    ("set (round up)", "2", "3", {"default": "1", "validValues": ["1", "3"]}, "3"),
    ("larger than set", "3", "3", {"default": "1", "validValues": ["1", "2"]}, "3"),
]


@pytest.mark.parametrize(
    ("requested", "value", "policy", "expected"), [c[1:] for c in CALCULATE], ids=[c[0] for c in CALCULATE]
)
def test_calculate_consumed_capacity(
    requested: str | None, value: str, policy: dict[str, Any], expected: str
) -> None:
    got = consumed_for(Q(requested) if requested is not None else None, _cap(value, policy))
    assert got.value == Q(expected).value


# (name, consumed, policy, violates) — testViolateCapacityRequestPolicy
VIOLATE = [
    ("no constraint", "1", None, False),
    ("less than maximum", "1", {"default": "1", "validRange": {"min": "1", "max": "2"}}, False),
    ("more than maximum", "2", {"default": "1", "validRange": {"min": "1", "max": "1"}}, True),
    ("in set", "1", {"default": "1", "validValues": ["1"]}, False),
    ("not in set", "2", {"default": "1", "validValues": ["1"]}, True),
]


@pytest.mark.parametrize(
    ("consumed", "policy", "violates"), [c[1:] for c in VIOLATE], ids=[c[0] for c in VIOLATE]
)
def test_violates_policy(consumed: str, policy: dict[str, Any] | None, violates: bool) -> None:
    cap = _cap("10", policy)
    assert violates_policy(Q(consumed), cap.request_policy) is violates


def test_step_rounding_is_exact_above_2_pow_53() -> None:
    """QA regression: rounding used float division, so 2**60+1 was consumed as 2**60 (under-counted)."""
    big = 2**60 + 1
    cap = _cap(str(2**62), {"default": "1", "validRange": {"min": "0", "step": "1"}})
    assert consumed_for(Q(str(big)), cap).value == big
    cap3 = _cap(str(2**62), {"default": "1", "validRange": {"min": "1", "step": "3"}})
    # Go: added = 2**60; n = added/3 (+1 when there is a remainder); consumed = 1 + 3n
    n = 2**60 // 3 + (1 if 2**60 % 3 else 0)
    assert consumed_for(Q(str(big)), cap3).value == 1 + 3 * n
    odd = _cap(str(2**62), {"default": "1", "validRange": {"min": "1", "step": "2"}})
    assert violates_policy(Q(str(2**60 + 2)), odd.request_policy)  # 2**60+1 from min: not a step multiple
    assert not violates_policy(Q(str(2**60 + 1)), odd.request_policy)


def _world(allocated: AllocatedState, request_qty: str) -> Any:
    features = Features.from_mapping({"consumableCapacity": True})
    cls: Any = build_object(
        {
            "kind": "DeviceClass",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": "class-a"},
            "spec": {
                "selectors": [
                    {
                        "cel": {
                            "expression": 'device.driver == "driver-a" && '
                            "device.allowMultipleAllocations == true"
                        }
                    }
                ]
            },
        }
    )
    policy = {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}
    slc: Any = build_object(
        {
            "kind": "ResourceSlice",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": "slice-1"},
            "spec": {
                "driver": "driver-a",
                "nodeName": "node-1",
                "pool": {"name": "pool-1", "generation": 1, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": "device-1",
                        "allowMultipleAllocations": True,
                        "capacity": {"capacity-0": {"value": "4", "requestPolicy": policy}},
                    }
                ],
            },
        }
    )
    claim: Any = build_object(
        {
            "kind": "ResourceClaim",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": "claim-0"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "req-0",
                            "exactly": {
                                "deviceClassName": "class-a",
                                "allocationMode": "ExactCount",
                                "count": 1,
                                "capacity": {"requests": {"capacity-0": request_qty}},
                            },
                        }
                    ]
                }
            },
        }
    )
    node: Any = build_object({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-1"}})
    return allocate(
        AllocationInputs(node, [cls], [slc], [claim], (), allocated),
        features,
        share_ids=lambda: FIXED_SHARE_ID,
    )


def test_multi_allocatable_device_with_some_remaining_capacity() -> None:
    """2025 TestAllocator case: 2 of 4 already consumed, a request for 2 still fits (consumedCapacity 2)."""
    used = AllocatedState(capacity={"driver-a/pool-1/device-1": {"capacity-0": Q("2")}})
    outcome = _world(used, "2")
    assert outcome.status == "allocated"
    result = outcome.results_dicts()[0]["devices"]["results"][0]
    assert result["device"] == "device-1"
    assert result["shareID"] == FIXED_SHARE_ID
    assert result["consumedCapacity"] == {"capacity-0": "2"}
    # and a third share no longer fits: 2 + 2 + 2 > 4 (not an error: unallocatable on this node)
    full = AllocatedState(capacity={"driver-a/pool-1/device-1": {"capacity-0": Q("4")}})
    assert _world(full, "2").status == "unallocatable"
    # a request of 3 rounds up to the next step (4) and no longer fits next to 2 already consumed
    assert _world(used, "3").status == "unallocatable"
