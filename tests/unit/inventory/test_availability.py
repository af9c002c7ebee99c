"""Availability: free means what the allocator treats as free; KEP-5677 counts; pool states."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from inventory_builders import (
    DRIVER,
    claim,
    consumes,
    counter_set,
    dev,
    device_class,
    node,
    pod,
    slice_,
    taint_rule,
    world,
)

from dractl.errors import UsageError
from dractl.inventory.availability import AvailabilityOptions, availability
from dractl.io.sources import FileSource
from dractl.matcher import AllocatedState, AllocationInputs, allocate
from dractl.model.build import build_object
from dractl.model.features import Features

F37 = Features.for_version("1.37")
DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo"


def run(w, **kw):
    return availability(w, AvailabilityOptions(kw.pop("features", F37), **kw))


def states(report) -> dict[str, str]:
    return {d.id: d.state for p in report.items for d in p.devices}


def partitioned() -> list[dict]:
    # one GPU: the full device takes every counter, two halves take one slice each
    sets = [counter_set("gpu-0-counter-set", **{"memory-slice-0": "1", "memory-slice-1": "1", "sm": "10"})]
    return [
        node("n1"),
        device_class(),
        slice_("counters", "n1", [], count=2, counters=sets, pool="n1"),
        slice_(
            "devices",
            "n1",
            [
                dev(
                    "gpu-0",
                    consumesCounters=consumes(
                        "gpu-0-counter-set", **{"memory-slice-0": "1", "memory-slice-1": "1", "sm": "10"}
                    ),
                ),
                dev(
                    "half-0",
                    consumesCounters=consumes("gpu-0-counter-set", **{"memory-slice-0": "1", "sm": "5"}),
                ),
                dev(
                    "half-1",
                    consumesCounters=consumes("gpu-0-counter-set", **{"memory-slice-1": "1", "sm": "5"}),
                ),
            ],
            count=2,
            pool="n1",
        ),
    ]


def test_partition_in_use_makes_the_full_gpu_not_free() -> None:
    w = world(*partitioned(), claim("a", [{"pool": "n1", "device": "half-0"}], reserved=["p"]))
    r = run(w)
    assert states(r) == {
        f"{DRIVER}/n1/gpu-0": "counters-exhausted",
        f"{DRIVER}/n1/half-0": "allocated",
        f"{DRIVER}/n1/half-1": "free",
    }
    pool = r.items[0]
    assert (pool.counts.total, pool.counts.allocated, pool.counts.free) == (3, 1, 1)
    groups = {(c.counter, c.left, c.total, c.grouped) for c in pool.counters}
    assert groups == {("memory-slice", "1", "2", True), ("sm", "5", "10", False)}


def test_partitionable_devices_gate_off_means_no_partition_is_free() -> None:
    off = Features.parse("DRAPartitionableDevices=false", F37)
    r = run(world(*partitioned()), features=off)
    assert set(states(r).values()) == {"feature-disabled"}
    assert any("DRAPartitionableDevices is off" in w for w in r.warnings)


def shared_nic(used: str | None) -> list[dict]:
    cap = {
        "bw": {
            "value": "100G",
            "requestPolicy": {"default": "10G", "validRange": {"min": "1G", "step": "1G"}},
        }
    }
    docs = [
        node("n1"),
        device_class(),
        slice_("s", "n1", [dev("nic", allowMultipleAllocations=True, capacity=cap)]),
    ]
    if used:
        docs.append(
            claim(
                "c",
                [
                    {
                        "pool": "n1",
                        "device": "nic",
                        "shareID": "11111111-1111-1111-1111-111111111111",
                        "consumedCapacity": {"bw": used},
                    }
                ],
                reserved=["p"],
            )
        )
    return docs


@pytest.mark.parametrize(
    "used, state, allocated",
    [
        pytest.param(None, "free", False, id="unused"),
        pytest.param("40G", "shared", True, id="partly-used-still-free"),
        pytest.param("95G", "capacity-insufficient", True, id="default-request-no-longer-fits"),
    ],
)
def test_consumable_capacity(used: str | None, state: str, allocated: bool) -> None:
    r = run(world(*shared_nic(used)))
    (d,) = r.items[0].devices
    assert (d.state, d.allocated) == (state, allocated)
    assert [(c.name, c.used, c.total) for c in d.capacity] == [("bw", used or "0", "100G")]
    assert r.items[0].counts.allocated == int(allocated)


def test_kep_5677_counts_tainted_allocated_devices_once() -> None:
    w = world(
        node("n1"),
        device_class(),
        slice_(
            "s",
            "n1",
            [
                dev("a"),
                dev("b"),
                dev("c", taints=[{"key": "k", "effect": "NoSchedule"}]),
                dev("d", taints=[{"key": "k", "effect": "None"}]),
            ],
        ),
        taint_rule("r", device="a"),
        claim("x", [{"pool": "n1", "device": "a"}], reserved=["p"]),
    )
    c = run(w).items[0].counts
    assert (c.total, c.allocated, c.unavailable, c.available, c.free) == (4, 1, 1, 2, 2)
    assert dict(c.tainted) == {"NoSchedule": 1, "NoExecute": 1, "None": 1}


def test_incomplete_invalid_and_older_generation_pools() -> None:
    w = world(
        node("n1"),
        device_class(),
        slice_("half", "n1", [dev("a")], pool="half", count=2),
        slice_("dup", "n1", [dev("a"), dev("a")], pool="dup"),
        slice_("old", "n1", [dev("x"), dev("y")], pool="gen", generation=1),
        slice_("new", "n1", [dev("z")], pool="gen", generation=2),
    )
    by_pool = {p.pool: p for p in run(w).items}
    assert (by_pool["half"].status, by_pool["half"].counts.free) == ("incomplete", 0)
    assert (by_pool["dup"].status, by_pool["dup"].counts.free) == ("invalid", 0)
    assert "duplicate device name a" in by_pool["dup"].problem
    assert [d.name for d in by_pool["gen"].devices] == ["z"] and "older generation" in by_pool["gen"].problem
    assert len(run(w).flagged) == 2


def test_network_pool_counts_for_every_node_that_reaches_it() -> None:
    w = world(
        node("n1", rack="a"),
        node("n2", rack="b"),
        device_class(),
        slice_("local", "n1", [dev("l0")]),
        slice_("fabric", None, [dev("f0"), dev("f1")], all_nodes=True),
    )
    r = run(w)
    fabric = next(p for p in r.items if p.pool == "fabric")
    assert (fabric.node, fabric.reachable_nodes) == (None, 2)
    (cls,) = r.classes
    assert (cls.total, cls.free, cls.nodes, cls.largest_free_block, cls.largest_free_node) == (
        3,
        3,
        2,
        3,
        "n1",
    )
    only_b = run(w, selector=__import__("dractl.inventory.labels", fromlist=["x"]).parse_selector("rack=b"))
    assert [p.pool for p in only_b.items] == ["fabric"] and only_b.classes[0].largest_free_block == 2


def test_unknown_class_or_node_is_a_usage_error() -> None:
    w = world(node("n1"), device_class())
    with pytest.raises(UsageError, match="--class tpu: no such DeviceClass"):
        run(w, device_class="tpu")
    with pytest.raises(UsageError, match="--node n9: no such node"):
        run(w, node="n9")


def test_health_from_pod_status_counts_as_unhealthy() -> None:
    w = world(
        node("n1"),
        device_class(),
        slice_("s", "n1", [dev("a"), dev("b")]),
        claim("c", [{"pool": "n1", "device": "a"}, {"pool": "n1", "device": "b"}], reserved=["p"]),
        pod("p", "c", health={f"{DRIVER}/n1/a": "Unhealthy", f"{DRIVER}/n1/b": "Healthy"}),
    )
    assert run(w).items[0].counts.unhealthy == 1


@pytest.mark.parametrize("version", ["1.34", "1.37"])
@pytest.mark.parametrize("source", ["demo", "partitioned", "shared-nic"])
def test_free_is_exactly_what_the_allocator_can_allocate(source: str, version: str) -> None:
    """For every device: free ⇔ the embedded allocator can allocate a one-device claim that
    selects exactly that device (no tolerations) on the device's node."""
    if source == "demo":
        w = FileSource((str(DEMO),)).load()
    else:
        w = world(
            *(partitioned() if source == "partitioned" else shared_nic("40G")),
            claim("a", [{"pool": "n1", "device": "half-0"}]) if source == "partitioned" else node("n0"),
        )
    before = copy.deepcopy([s.raw for s in w.slices])
    features = Features.for_version(version)
    r = run(w, features=features)
    state = AllocatedState.from_claims(w.claims)
    checked = 0
    cls = build_object(
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "probe"}, "spec": {}}
    )
    probe = build_object(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "probe", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "r",
                            "exactly": {
                                "deviceClassName": "probe",
                                "selectors": [
                                    {"cel": {"expression": '"probe" in device.attributes["dractl.test"]'}}
                                ],
                            },
                        }
                    ]
                }
            },
        }
    )
    for p in r.items:
        for d in p.devices:
            # mark just this device (CEL cannot name a device), leave everything else as it is
            slices = [
                _marked(s, d.name) if (s.driver, s.pool.name) == (p.driver, p.pool) else s for s in w.slices
            ]
            node_obj = w.node(p.node) if p.node else None
            out = allocate(
                AllocationInputs(node_obj, [cls], slices, [probe], w.taint_rules, state),
                features,
                trace=False,
            )
            assert (out.status == "allocated") == d.free, (d.id, d.state, out.status, out.error)
            checked += 1
    assert checked > 0
    assert [s.raw for s in w.slices] == before  # nothing mutated


def _marked(s, name: str):
    from dataclasses import replace

    from dractl.model.objects import AttributeValue

    mark = {"dractl.test/probe": AttributeValue("bool", True)}
    return replace(
        s,
        devices=tuple(
            replace(d, attributes={**d.attributes, **mark}) if d.name == name else d for d in s.devices
        ),
    )


def test_the_table_document_leaves_out_only_devices_without_capacity() -> None:
    docs = shared_nic("40G")
    docs[2]["spec"]["devices"].append(dev("plain"))
    full = run(world(*docs)).to_dict()
    table = run(world(*docs)).to_dict(table=True)
    assert [d["name"] for d in full["items"][0]["devices"]] == ["nic", "plain"]
    assert [d["name"] for d in table["items"][0]["devices"]] == ["nic"]
    full["items"][0]["devices"] = table["items"][0]["devices"]
    assert table == full  # counts, counters, summary: the same document otherwise
