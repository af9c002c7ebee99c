"""Shared counters, including the fix for kubernetes#140436 (PR #140431): counters
reserved for a device are given back when a later check rejects that device."""

from __future__ import annotations

from matcher_builders import ALL, claim, dev, device_class, devices_of, req, run, slice_

from dractl.matcher import AllocatedState, Reason
from dractl.model.features import Features

COUNTERS = slice_(
    "counters", [], count=2, sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}]
)


def _partition(name: str, mem: str, **extra: object) -> dict:
    return dev(name, consumesCounters=[{"counterSet": "gpu-0", "counters": {"mem": {"value": mem}}}], **extra)


def test_counters_limit_partitions() -> None:
    devices = slice_(
        "devices", [_partition("p0", "4"), _partition("p1", "4"), _partition("p2", "4")], count=2
    )
    outcome = run([COUNTERS, devices], [claim("c", req("r", count=2))])
    assert devices_of(outcome) == [["p0", "p1"]]
    assert run([COUNTERS, devices], [claim("c", req("r", count=3))]).status == "unallocatable"


def test_committed_allocations_consume_counters() -> None:
    devices = slice_("devices", [_partition("full", "8"), _partition("half", "4")], count=2)
    state = AllocatedState(devices=frozenset({"driver-a/pool-1/half"}))
    outcome = run([COUNTERS, devices], [claim("c", req("r"))], allocated=state)
    assert outcome.status == "unallocatable"
    assert any(
        d.reason is Reason.COUNTERS_EXHAUSTED and d.device_id == "driver-a/pool-1/full"
        for d in outcome.trace.decisions
    )


def test_counters_released_when_device_rejected_for_taint() -> None:
    # "tainted" reserves all 8 counters, then is rejected for its taint.  Upstream (July 2026)
    # kept the reservation, so "clean" looked exhausted and the claim failed; fixed: clean fits.
    devices = slice_(
        "devices",
        [
            _partition("tainted", "8", taints=[{"key": "bad", "effect": "NoSchedule"}]),
            _partition("clean", "8"),
        ],
        count=2,
    )
    outcome = run([COUNTERS, devices], [claim("c", req("r"))])
    assert devices_of(outcome) == [["clean"]]
    reasons = {d.device_id: d.reason for d in outcome.trace.decisions}
    assert reasons["driver-a/pool-1/tainted"] is Reason.TAINT_NOT_TOLERATED


def test_counters_released_when_device_rejected_for_constraint() -> None:
    devices = slice_(
        "devices",
        [
            dev("plain", attrs={"numa": 0}),
            _partition("far", "8", attrs={"numa": 1}),
            _partition("near", "8", attrs={"numa": 0}),
        ],
        count=2,
    )
    c = claim("c", req("r0"), req("r1"), constraints=[{"matchAttribute": "driver-a/numa"}])
    outcome = run([COUNTERS, devices], [c])
    assert devices_of(outcome) == [["plain", "near"]]


def test_counters_released_on_backtracking() -> None:
    devices = slice_(
        "devices",
        [
            _partition("p0", "8", attrs={"numa": 1}),
            dev("x", attrs={"numa": 0}),
            _partition("p1", "8", attrs={"numa": 0}),
        ],
        count=2,
    )
    c = claim("c", req("r0"), req("r1"), constraints=[{"matchAttribute": "driver-a/numa"}])
    assert devices_of(run([COUNTERS, devices], [c])) == [["x", "p1"]]


def test_partition_unusable_without_feature() -> None:
    devices = slice_("devices", [_partition("p0", "4")], count=1)
    outcome = run([devices], [claim("c", req("r"))], features=Features.from_mapping({"deviceTaints": True}))
    assert outcome.status == "unallocatable"
    assert outcome.trace.decisions[-1].reason is Reason.FEATURE_DISABLED


def test_unknown_counter_set_makes_pool_invalid() -> None:
    devices = slice_(
        "devices", [dev("p", consumesCounters=[{"counterSet": "nope", "counters": {}}])], count=2
    )
    outcome = run([COUNTERS, devices], [claim("c", req("r"))], features=ALL)
    assert outcome.error == "invalid resource pools were encountered"
    assert any(
        d.reason is Reason.POOL_INVALID and "counter set nope not found" in d.detail
        for d in outcome.trace.decisions
    )


def test_counter_bookkeeping_is_keyed_by_pool_name_as_in_kubernetes() -> None:
    # Kubernetes' checkAvailableCounters keys available and consumed counters by the pool
    # name alone: two drivers' pools called "shared" draw on the first one's counter sets.
    def pool(driver: str) -> list:
        counters = slice_(
            f"{driver}-counters",
            [],
            driver=driver,
            pool="shared",
            count=2,
            sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}],
        )
        devices = slice_(f"{driver}-devices", [_partition("p", "8")], driver=driver, pool="shared", count=2)
        return [counters, devices]

    classes = [device_class("any")]
    one_each = [claim("c", req("a", "any"), req("b", "any"))]
    out = run(pool("driver-a") + pool("driver-b"), one_each, classes=classes)
    assert out.status == "unallocatable"  # the second device finds the shared name's counters used up
    renamed = pool("driver-a") + [replace_pool(s, "other") for s in pool("driver-b")]
    assert devices_of(run(renamed, one_each, classes=classes)) == [["p", "p"]]


def replace_pool(s: object, name: str) -> object:
    from dataclasses import replace

    return replace(
        s,
        pool=replace(s.pool, name=name),  # type: ignore[attr-defined]
        devices=tuple(replace(d, pool=name) for d in s.devices),
    )  # type: ignore[attr-defined]
