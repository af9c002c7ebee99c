"""to_v1: the API server's v1beta1 -> v1 shape conversion, without mutating the input."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dractl.model.convert import to_v1

BETA1 = "resource.k8s.io/v1beta1"


def slice_(devices: list[Any], api: str = BETA1) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {"driver": "d", "devices": devices},
    }


def claim(requests: list[Any], api: str = BETA1) -> dict[str, Any]:
    return {"apiVersion": api, "kind": "ResourceClaim", "spec": {"devices": {"requests": requests}}}


def test_basic_device_is_flattened() -> None:
    raw = slice_(
        [
            {"name": "gpu-0", "basic": {"attributes": {"a": {"int": 1}}, "capacity": {"m": {"value": "1"}}}},
            {"name": "gpu-1"},
        ]
    )
    before = copy.deepcopy(raw)
    out = to_v1(raw)
    assert raw == before
    assert out["spec"]["devices"] == [
        {"name": "gpu-0", "attributes": {"a": {"int": 1}}, "capacity": {"m": {"value": "1"}}},
        {"name": "gpu-1"},
    ]
    assert out["apiVersion"] == BETA1


def test_basic_null_and_explicit_fields() -> None:
    out = to_v1(slice_([{"name": "a", "basic": None}, {"name": "b", "basic": {"name": "ignored"}}]))
    assert out["spec"]["devices"] == [{"name": "a"}, {"name": "b"}]


def test_flat_request_becomes_exactly_with_every_exact_field() -> None:
    req = {
        "name": "r",
        "deviceClassName": "c",
        "selectors": [{"cel": {"expression": "true"}}],
        "allocationMode": "ExactCount",
        "count": 2,
        "adminAccess": True,
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "capacity": {"requests": {"memory": "1Gi"}},
    }
    out = to_v1(claim([req]))
    (r,) = out["spec"]["devices"]["requests"]
    assert r == {"name": "r", "exactly": {k: v for k, v in req.items() if k != "name"}}


def test_first_available_request_keeps_subrequests() -> None:
    subs = [
        {"name": "a", "deviceClassName": "c"},
        {"name": "b", "deviceClassName": "c", "allocationMode": "All"},
    ]
    (r,) = to_v1(claim([{"name": "r", "firstAvailable": subs}]))["spec"]["devices"]["requests"]
    assert r == {"name": "r", "firstAvailable": subs}


def test_stray_exact_fields_beside_first_available_stay_visible() -> None:
    (r,) = to_v1(claim([{"name": "r", "firstAvailable": [{"name": "a"}], "count": 3}]))["spec"]["devices"][
        "requests"
    ]
    assert r["exactly"] == {"count": 3}


def test_template_spec_is_converted() -> None:
    raw = {
        "apiVersion": BETA1,
        "kind": "ResourceClaimTemplate",
        "spec": {
            "metadata": {"labels": {"a": "b"}},
            "spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "c"}]}},
        },
    }
    out = to_v1(raw)
    assert out["spec"]["spec"]["devices"]["requests"] == [{"name": "r", "exactly": {"deviceClassName": "c"}}]
    assert out["spec"]["metadata"] == {"labels": {"a": "b"}}


@pytest.mark.parametrize("api", ["resource.k8s.io/v1", "resource.k8s.io/v1beta2"])
def test_v1_shaped_versions_are_returned_unchanged(api: str) -> None:
    raw = claim([{"name": "r", "deviceClassName": "c"}], api=api)
    assert to_v1(raw) is raw


@pytest.mark.parametrize(
    "raw",
    [
        {"apiVersion": BETA1, "kind": "ResourceClaim", "spec": "oops"},
        {"apiVersion": BETA1, "kind": "ResourceClaim", "spec": {"devices": None}},
        {"apiVersion": BETA1, "kind": "ResourceSlice", "spec": {"devices": "x"}},
        {"apiVersion": BETA1, "kind": "DeviceClass", "spec": {"selectors": []}},
        {"apiVersion": BETA1, "kind": "ResourceClaim", "spec": {"devices": {"requests": ["not a mapping"]}}},
    ],
    ids=["spec-not-mapping", "devices-null", "devices-not-list", "device-class", "request-not-mapping"],
)
def test_odd_shapes_pass_through_without_errors(raw: dict[str, Any]) -> None:
    out = to_v1(raw)
    assert out == raw
