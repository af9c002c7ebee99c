"""Claims, health and taints engines, and the label selector."""

from __future__ import annotations

import json

import pytest
from inventory_builders import DRIVER, claim, dev, device_class, node, pod, slice_, taint_rule, world

from dractl.errors import UsageError
from dractl.inventory.claims import ClaimsOptions, claims
from dractl.inventory.core import Inventory
from dractl.inventory.health import HealthOptions, device_health, device_health_states, health
from dractl.inventory.labels import parse_selector
from dractl.inventory.taints import TaintsOptions, taints
from dractl.model.features import Features

F37 = Features.for_version("1.37")


def base(*extra):
    return world(node("n1"), device_class(), slice_("s", "n1", [dev("a"), dev("b"), dev("c")]), *extra)


# ------------------------------------------------------------------------------ claims


@pytest.mark.parametrize(
    "doc, state, unreserved",
    [
        pytest.param(claim("x"), "pending", False, id="pending"),
        pytest.param(
            claim("x", [{"pool": "n1", "device": "a"}]), "allocated", True, id="allocated-unreserved"
        ),
        pytest.param(
            claim("x", [{"pool": "n1", "device": "a"}], reserved=["p"]), "reserved", False, id="reserved"
        ),
        pytest.param(
            claim("x", [{"pool": "n1", "device": "a"}], deleting=True), "deleting", False, id="deleting"
        ),
    ],
)
def test_claim_states(doc, state: str, unreserved: bool) -> None:
    r = claims(base(doc), ClaimsOptions(F37))
    (row,) = r.items
    assert (row.state, row.unreserved) == (state, unreserved)
    assert r.unreserved == int(unreserved) and len(r.warnings) == int(unreserved)
    if doc.get("status", {}).get("allocation"):
        assert row.node == "n1"  # from the devices' pool when the allocation has no node selector


def test_claims_namespace_selector_and_state_filters() -> None:
    a = claim("a", ns="team-a")
    a["metadata"]["labels"] = {"app": "x"}
    w = base(
        a, claim("b", ns="team-b"), claim("c", [{"pool": "n1", "device": "a"}], ns="team-a", reserved=["p"])
    )
    names = lambda **kw: [r.name for r in claims(w, ClaimsOptions(F37, **kw)).items]  # noqa: E731
    assert names() == ["a", "c", "b"]
    assert names(namespace="team-a") == ["a", "c"]
    assert names(selector=parse_selector("app=x")) == ["a"]
    assert names(state="reserved") == ["c"]


def test_claim_devices_share_ids_conditions_and_no_opaque_parameters() -> None:
    c = claim(
        "x",
        [{"pool": "n1", "device": "a", "shareID": "s-1", "consumedCapacity": {"bw": "4G"}}],
        reserved=["p"],
        device_statuses=[
            {
                "driver": DRIVER,
                "pool": "n1",
                "device": "a",
                "shareID": "s-1",
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "Up",
                        "message": "",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    }
                ],
            }
        ],
    )
    c["spec"]["devices"]["config"] = [
        {"requests": ["req"], "opaque": {"driver": DRIVER, "parameters": {"password": "hunter2"}}}
    ]
    r = claims(base(c), ClaimsOptions(F37))
    (d,) = r.items[0].devices
    assert (d.device, d.share_id, dict(d.consumed), d.conditions) == (
        f"{DRIVER}/n1/a",
        "s-1",
        {"bw": "4G"},
        ("Ready=True (Up)",),
    )
    assert r.items[0].configs == (f"{DRIVER} for req",)
    assert "hunter2" not in json.dumps(r.to_dict())


# ------------------------------------------------------------------------------ health


def test_health_combines_pod_status_taints_and_conditions() -> None:
    w = world(
        node("n1"),
        device_class(),
        slice_(
            "s",
            "n1",
            [
                dev("a"),
                dev("b", taints=[{"key": "gpu.nvidia.com/gpu-lost", "effect": "NoSchedule"}]),
                dev("c", taints=[{"key": "gpu.nvidia.com/unmonitored", "effect": "None"}]),
                dev("d"),
            ],
        ),
        claim("x", [{"pool": "n1", "device": "a"}, {"pool": "n1", "device": "d"}], reserved=["p"]),
        pod("p", "x", health={f"{DRIVER}/n1/a": "Healthy", f"{DRIVER}/n1/d": "Unhealthy"}),
    )
    r = health(w, HealthOptions(F37))
    got = {i.device.rsplit("/", 1)[1]: i.health for i in r.items}
    assert got == {"a": "Healthy", "b": "Unhealthy", "c": "Unknown", "d": "Unhealthy"}
    d = next(i for i in r.items if i.device.endswith("/d"))
    assert (d.claims, d.pods) == (("default/x",), ("default/p",))
    assert (r.summary.unhealthy, r.summary.unknown, r.summary.affected_pods) == (2, 1, 1)
    only_bad = health(w, HealthOptions(F37, unhealthy_only=True))
    assert [i.device.rsplit("/", 1)[1] for i in only_bad.items] == ["b", "c", "d"]
    # availability's health column: the same answers, without the signals
    inv = Inventory(w, F37)
    assert device_health_states(inv) == {dev: h for dev, (h, _) in device_health(inv).items()}
    assert set(device_health_states(inv)) == {f"{DRIVER}/n1/{x}" for x in "abcd"}


def test_health_values_outside_the_api_count_as_unknown() -> None:
    w = base(
        claim("x", [{"pool": "n1", "device": "a"}], reserved=["p"]),
        pod("p", "x", health={f"{DRIVER}/n1/a": "Broken\x1b[0m"}),
    )
    (item,) = health(w, HealthOptions(F37)).items
    assert item.health == "Unknown" and item.signals[0].health == "Broken\x1b[0m"


# ------------------------------------------------------------------------------ taints


def test_no_execute_evicts_running_pods_of_untolerating_claims() -> None:
    tol = [{"key": "example.com/t", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]
    forever = [{"key": "example.com/t", "operator": "Exists", "effect": "NoExecute"}]
    w = base(
        taint_rule("drain", pool="n1"),
        claim("plain", [{"pool": "n1", "device": "a"}], reserved=["p1"]),
        claim("soon", [{"pool": "n1", "device": "b", "tolerations": tol}], reserved=["p2"]),
        claim("never", [{"pool": "n1", "device": "c", "tolerations": forever}], reserved=["p3"]),
        claim("pending", tolerations=forever),
        pod("p1", "plain"),
        pod("p2", "soon"),
        pod("p3", "never"),
    )
    r = taints(w, TaintsOptions(F37))
    rows = {row.device.rsplit("/", 1)[1]: row for row in r.items}
    assert rows["a"].evicts == ("default/p1",) and rows["a"].eviction_delay is None
    assert rows["b"].evicts == ("default/p2",) and rows["b"].eviction_delay == 60
    assert rows["c"].evicts == () and rows["c"].tolerated_by == ("default/never",)
    assert all(row.pending_tolerating == ("default/pending",) for row in r.items)
    assert r.to_dict()["summary"]["podsToEvict"] == 2
    assert [(x.name, x.devices, x.cluster_wide) for x in r.rules] == [("drain", 3, False)]


def test_finished_pods_are_not_evicted_and_empty_selector_is_cluster_wide() -> None:
    everything = taint_rule("all")
    everything["spec"]["deviceSelector"] = {}  # empty: every device (no selector: see below)
    w = base(
        everything,
        claim("x", [{"pool": "n1", "device": "a"}], reserved=["p"]),
        pod("p", "x", phase="Succeeded"),
    )
    r = taints(w, TaintsOptions(F37))
    assert all(row.evicts == () for row in r.items)
    assert r.rules[0].cluster_wide and r.rules[0].devices == 3
    assert any("taints every device" in x for x in r.warnings)
    assert taints(w, TaintsOptions(F37, effect="NoSchedule")).items == ()


def test_taint_gates_off_mean_no_taints() -> None:
    off = Features.parse("DRADeviceTaintRules=false", F37)
    r = taints(base(taint_rule("all")), TaintsOptions(off))
    assert r.items == () and any("DRADeviceTaintRules is off" in x for x in r.warnings)


# ------------------------------------------------------------------------------ labels


@pytest.mark.parametrize(
    "text, labels, expected",
    [
        ("a=b", {"a": "b"}, True),
        ("a==b", {"a": "c"}, False),
        ("a!=b", {}, True),
        ("a in (x, y),b", {"a": "y", "b": ""}, True),
        ("a notin (x)", {"a": "x"}, False),
        ("!a", {"a": "1"}, False),
        ("example.com/zone=z1", {"example.com/zone": "z1"}, True),
        ("", {"a": "1"}, True),
    ],
)
def test_label_selector(text: str, labels: dict[str, str], expected: bool) -> None:
    sel = parse_selector(text)
    assert sel is not None and sel.matches(labels) is expected


@pytest.mark.parametrize("text", ["a=b,", "a in ()", "a in (x", "=b", "a b", "a=b=c", "a in (x,,y)"])
def test_bad_label_selectors_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="--selector"):
        parse_selector(text, "claims")


def test_no_selector_matches_none_from_1_37_1_and_never_evicts() -> None:
    """kubernetes PR #141648 (v1.37.1): no deviceSelector matches no device; before, the scheduler
    tainted every device with it, while the eviction controller matched none."""
    w = base(taint_rule("bare"), claim("x", [{"pool": "n1", "device": "a"}], reserved=["p"]), pod("p", "x"))
    fixed = taints(w, TaintsOptions(F37.at_patch("1.37", 1)))
    assert fixed.items == () and (fixed.rules[0].devices, fixed.rules[0].cluster_wide) == (0, False)
    old = taints(w, TaintsOptions(F37.at_patch("1.37", 0)))
    assert (old.rules[0].devices, old.rules[0].cluster_wide) == (3, True)
    assert old.items and all(row.evicts == () for row in old.items)  # NoExecute, yet nobody evicted
    assert any("fixed in Kubernetes v1.37.1" in x for x in old.warnings)
