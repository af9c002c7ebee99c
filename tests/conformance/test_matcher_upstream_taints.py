"""Device taints, tolerations and DeviceTaintRules, re-expressed from upstream tests outside the 223 cases.

Facts from k8s.io/dynamic-resource-allocation at 3d03671 (July 2026):
``resourceclaim/devicetoleration_test.go`` (TestTolerationToleratesTaint) and
``resourceslice/tracker/tracker_test.go`` (TestListPatchedResourceSlices: which devices a
DeviceTaintRule taints — patch-all-slices, add-taint-for-driver/pool/device, filter-all-criteria,
merge-taints).  Each is checked end to end through ``allocate`` (a tainted device that is not
tolerated is not allocated) and, for tolerations, on ``tolerates`` itself.
"""

from __future__ import annotations

from typing import Any

import pytest

from dractl.matcher import AllocationInputs, allocate
from dractl.matcher.taints import effective_taints, tolerates
from dractl.model.build import build_object
from dractl.model.features import Features

FEATURES = Features.from_mapping({"deviceTaints": True, "deviceTaintRules": True})
TAINT = {"key": "example.com/taint", "value": "tainted", "effect": "NoExecute"}


def _tol(**kw: str) -> dict[str, str]:
    return dict(kw)


# (description, toleration, taint, tolerated) — TestTolerationToleratesTaint
TOLERATION_CASES = [
    (
        "same key and effect, Exists, taint without value",
        _tol(key="foo", operator="Exists", effect="NoSchedule"),
        {"key": "foo", "effect": "NoSchedule"},
        True,
    ),
    (
        "same key and effect, Exists, taint with value",
        _tol(key="foo", operator="Exists", effect="NoSchedule"),
        {"key": "foo", "value": "bar", "effect": "NoSchedule"},
        True,
    ),
    (
        "same effect, empty key, Exists: matches all taints",
        _tol(key="", operator="Exists", effect="NoSchedule"),
        {"key": "foo", "value": "bar", "effect": "NoSchedule"},
        True,
    ),
    (
        "same key, effect and value, Equal",
        _tol(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        {"key": "foo", "value": "bar", "effect": "NoSchedule"},
        True,
    ),
    (
        "same key and effect, different values, Equal",
        _tol(key="foo", operator="Equal", value="value1", effect="NoSchedule"),
        {"key": "foo", "value": "value2", "effect": "NoSchedule"},
        False,
    ),
    (
        "same key and value, different effects, Equal",
        _tol(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        {"key": "foo", "value": "bar", "effect": "NoExecute"},
        False,
    ),
]


def _slice(name: str, driver: str, pool: str, devices: list[dict[str, Any]]) -> Any:
    return build_object(
        {
            "kind": "ResourceSlice",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "nodeName": "node-1",
                "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
                "devices": devices,
            },
        }
    )


def _claim(count: int = 1, tolerations: list[dict[str, str]] | None = None, cls: str = "any") -> Any:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if tolerations:
        exactly["tolerations"] = tolerations
    return build_object(
        {
            "kind": "ResourceClaim",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}},
        }
    )


def _class(name: str = "any", expr: str = "true") -> Any:
    return build_object(
        {
            "kind": "DeviceClass",
            "apiVersion": "resource.k8s.io/v1",
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expr}}]},
        }
    )


def _rule(selector: dict[str, str] | None, taint: dict[str, str] = TAINT) -> Any:
    spec: dict[str, Any] = {"taint": taint}
    if selector is not None:
        spec["deviceSelector"] = selector
    return build_object(
        {
            "kind": "DeviceTaintRule",
            "apiVersion": "resource.k8s.io/v1beta2",
            "metadata": {"name": "rule"},
            "spec": spec,
        }
    )


def _node() -> Any:
    return build_object({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "node-1"}})


@pytest.mark.parametrize(
    ("toleration", "taint", "tolerated"),
    [c[1:] for c in TOLERATION_CASES],
    ids=[c[0] for c in TOLERATION_CASES],
)
def test_toleration_tolerates_taint(
    toleration: dict[str, str], taint: dict[str, str], tolerated: bool
) -> None:
    tol = _claim(tolerations=[toleration]).spec.requests[0].exactly.tolerations[0]
    device = _slice("s", "driver1.example.com", "pool-1", [{"name": "d", "taints": [taint]}]).devices[0]
    assert tolerates(tol, device.taints[0]) is tolerated
    # end to end: the only device is tainted; the claim gets it exactly when the toleration matches
    outcome = allocate(
        AllocationInputs(
            _node(),
            [_class()],
            [_slice("s", "driver1.example.com", "pool-1", [{"name": "d", "taints": [taint]}])],
            [_claim(tolerations=[toleration])],
        ),
        FEATURES,
    )
    assert outcome.status == ("allocated" if tolerated else "unallocatable")


SLICES = [
    _slice("s1", "driver1.example.com", "pool-1", [{"name": "device-1"}]),
    _slice("s2", "driver2.example.com", "pool-2", [{"name": "device-2"}]),
]

# (tracker case, rule selector, devices that get the taint)
RULE_CASES = [
    ("patch-all-slices (no deviceSelector)", None, {"device-1", "device-2"}),
    ("empty deviceSelector", {}, {"device-1", "device-2"}),
    ("add-taint-for-driver", {"driver": "driver1.example.com"}, {"device-1"}),
    ("add-taint-for-pool", {"pool": "pool-1"}, {"device-1"}),
    ("add-taint-for-device", {"device": "device-1"}, {"device-1"}),
    (
        "filter-all-criteria",
        {"driver": "driver1.example.com", "pool": "pool-1", "device": "device-1"},
        {"device-1"},
    ),
    ("criteria that match nothing", {"driver": "driver1.example.com", "pool": "pool-2"}, set()),
]


@pytest.mark.parametrize(("selector", "tainted"), [c[1:] for c in RULE_CASES], ids=[c[0] for c in RULE_CASES])
def test_device_taint_rule_selection(selector: dict[str, str] | None, tainted: set[str]) -> None:
    rule = _rule(selector)
    got = {d.name for s in SLICES for d in s.devices if effective_taints(d, [rule])}
    assert got == tainted
    # end to end: a claim for both devices succeeds only when no device got the (untolerated) taint
    outcome = allocate(AllocationInputs(_node(), [_class()], SLICES, [_claim(count=2)], (rule,)), FEATURES)
    assert outcome.status == ("unallocatable" if tainted else "allocated")
    # and with the rules gate off, the rule is ignored
    off = Features.from_mapping({"deviceTaints": True, "deviceTaintRules": False})
    assert allocate(
        AllocationInputs(_node(), [_class()], SLICES, [_claim(count=2)], (rule,)), off
    ).status == ("allocated")


def test_merge_taints_keeps_the_slice_taints_first() -> None:
    """tracker merge-taints: the device's own taints come first, then those of the rule."""
    own = {"key": "example.com/taint2", "value": "tainted2", "effect": "NoExecute"}
    device = _slice("s1", "driver1.example.com", "pool-1", [{"name": "device-1", "taints": [own]}]).devices[0]
    taints = effective_taints(device, [_rule(None)])
    assert [(t.taint.key, t.rule) for t in taints] == [
        ("example.com/taint2", None),
        ("example.com/taint", "rule"),
    ]
    # tolerating only the slice's taint is not enough: the rule's taint still blocks
    claim = _claim(tolerations=[{"key": "example.com/taint2", "operator": "Exists"}])
    outcome = allocate(
        AllocationInputs(
            _node(),
            [_class()],
            [_slice("s1", "driver1.example.com", "pool-1", [{"name": "device-1", "taints": [own]}])],
            [claim],
            (_rule(None),),
        ),
        FEATURES,
    )
    assert outcome.status == "unallocatable"
    blocked = [d for d in outcome.trace.decisions if d.reason.value == "taint-not-tolerated"]
    assert blocked and "DeviceTaintRule rule" in blocked[0].detail
