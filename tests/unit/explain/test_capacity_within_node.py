"""capacity --best-fit within a node: the device set is chosen by explain's best-fit score among
the allocator's own and those of its search with the candidates in best-fit orders.  Worlds
small enough to count by hand, where that choice changes how many copies fit; and copies that
consume nothing, which stay unbounded."""

from __future__ import annotations

from typing import Any

from explain_builders import claim, device_class, node, slice_, world

from dractl.explain.capacity import CapacityOptions, Shape, Simulation, capacity, count_sequential
from dractl.explain.engine import TargetSpec, resolve
from dractl.explain.whatif import WhatIf
from dractl.io.world import World
from dractl.model.build import build_object
from dractl.model.features import Features

V1 = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"
FEATURES = Features.for_version("1.37")


def _spec(*docs: dict[str, Any]) -> TargetSpec:
    return TargetSpec(claim_objects=tuple(build_object(d) for d in docs))  # type: ignore[arg-type]


def _placements(w: World, spec: TargetSpec, best_fit: bool) -> list[tuple[str, ...]]:
    w2, target = resolve(w, spec, WhatIf(), FEATURES)
    sim = Simulation(w2, Shape.of(w2, target), CapacityOptions(features=FEATURES), best_fit=best_fit)
    return [tuple(d.rsplit("/", 1)[1] for d in p.devices) for p in sim.run()]


def _mig_pair() -> World:
    """Two GPUs of 2 memory slices, each published as the whole GPU and two 1-slice partitions
    (the whole GPU first, as drivers list them); one class for any of them."""
    sets = [{"name": f"g{g}", "counters": {"mem": {"value": "2"}}} for g in range(2)]
    devices: list[dict[str, Any]] = []
    for g in range(2):
        devices.append(
            {
                "name": f"g{g}-full",
                "consumesCounters": [{"counterSet": f"g{g}", "counters": {"mem": {"value": "2"}}}],
            }
        )
        devices += [
            {
                "name": f"g{g}-p{p}",
                "consumesCounters": [{"counterSet": f"g{g}", "counters": {"mem": {"value": "1"}}}],
            }
            for p in range(2)
        ]
    pool = {"name": "n", "generation": 1, "resourceSliceCount": 2}
    counters = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "c"},
        "spec": {"driver": DRIVER, "nodeName": "n", "sharedCounters": sets, "pool": pool},
    }
    parts = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "d"},
        "spec": {"driver": DRIVER, "nodeName": "n", "devices": devices, "pool": pool},
    }
    return world(device_class("gpu", f"device.driver == '{DRIVER}'"), node("n"), counters, parts)


def test_best_fit_packs_partitions_into_one_gpu_so_that_a_second_copy_fits() -> None:
    """A copy asks for any 2 devices.  First fit takes the two whole GPUs: 1 copy.  Best fit:
    the allocator's set starts 2 fresh counter sets, the set of its search with partitions of
    partly used (here: the fullest, then the smallest) counter sets first starts 1: both
    partitions of g0; the second copy gets g1's partitions: 2 copies."""
    w, spec = _mig_pair(), _spec(claim("ask", count=2))
    assert _placements(w, spec, best_fit=False) == [("g0-full", "g1-full")]
    assert _placements(w, spec, best_fit=True) == [("g0-p0", "g0-p1"), ("g1-p0", "g1-p1")]
    r = capacity(w, spec, CapacityOptions(features=FEATURES, best_fit=True))
    assert r.best_fit is not None
    assert (r.copies, r.best_fit.first_fit, r.best_fit.best_fit) == (1, 1, 2)
    # the first copy's set came from a best-fit order; the second is the allocator's own
    assert r.best_fit.reordered == 1
    doc = r.to_dict()["bestFit"]
    assert (doc["withinNode"], doc["reorderedCopies"], doc["gain"]) == ("ranked", 1, 1)
    assert "bounded orderings" in doc["withinNodeNote"]


def _domains() -> World:
    """Six GPUs on one node: two in NVLink domain A, two in B, one alone in C and one in D."""
    doms = [("a0", "A"), ("a1", "A"), ("b0", "B"), ("b1", "B"), ("c0", "C"), ("d0", "D")]
    devices = [{"name": n, "attributes": {"domain": {"string": d}}} for n, d in doms]
    return world(device_class("gpu", f"device.driver == '{DRIVER}'"), node("n"), slice_("s", "n", devices))


def _one_plus_pair() -> dict[str, Any]:
    """A copy: one GPU anywhere, and a pair of GPUs in one domain."""
    c = claim("ask")
    c["spec"]["devices"]["requests"] = [
        {"name": "one", "exactly": {"deviceClassName": "gpu"}},
        {"name": "pair", "exactly": {"deviceClassName": "gpu", "count": 2}},
    ]
    c["spec"]["devices"]["constraints"] = [{"matchAttribute": f"{DRIVER}/domain", "requests": ["pair"]}]
    return c


def test_best_fit_keeps_a_whole_domain_free_for_the_next_copy() -> None:
    """First fit: the single GPU from domain A (a0), the pair from B: a1, c0, d0 are left, no
    pair: 1 copy.  Best fit: the allocator's set shrinks the largest free group (2) to 1; the
    set of its search with the groups of fewest free devices first (c0, d0, then A, then B)
    takes c0 and A's pair and keeps B whole; the second copy takes d0 and B: 2 copies."""
    w, spec = _domains(), _spec(_one_plus_pair())
    assert _placements(w, spec, best_fit=False) == [("a0", "b0", "b1")]
    assert _placements(w, spec, best_fit=True) == [("c0", "a0", "a1"), ("d0", "b0", "b1")]
    r = capacity(w, spec, CapacityOptions(features=FEATURES, best_fit=True))
    assert r.best_fit is not None
    assert (r.best_fit.first_fit, r.best_fit.best_fit, r.best_fit.reordered) == (1, 2, 1)


def test_first_fit_answers_are_untouched_by_best_fit() -> None:
    """The first-fit count and placements are the allocator's, with or without --best-fit."""
    for w, spec in ((_mig_pair(), _spec(claim("ask", count=2))), (_domains(), _spec(_one_plus_pair()))):
        plain = capacity(w, spec, CapacityOptions(features=FEATURES))
        both = capacity(w, spec, CapacityOptions(features=FEATURES, best_fit=True))
        assert plain.placements == both.placements and plain.copies == both.copies == 1
        w2, target = resolve(w, spec, WhatIf(), FEATURES)
        assert count_sequential(w2, list(Shape.of(w2, target).fresh), FEATURES) == 1


def test_shares_that_consume_nothing_are_unbounded() -> None:
    """A multi-allocatable NIC; each copy asks for a share of 0 of its bandwidth.  The first
    copy makes the device allocated, the second changes nothing: every later copy is placed
    the same way, so the count is unbounded (reported as --max-copies), for best fit too."""
    nic = {"name": "nic", "allowMultipleAllocations": True, "capacity": {"bandwidth": {"value": "100G"}}}
    w = world(device_class("gpu", f"device.driver == '{DRIVER}'"), node("n"), slice_("s", "n", [nic]))
    c = claim("ask")
    c["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {"requests": {"bandwidth": "0"}}
    features = Features.parse("DRAConsumableCapacity=true", FEATURES)
    r = capacity(w, _spec(c), CapacityOptions(features=features, max_copies=500, best_fit=True))
    assert r.unbounded is not None and r.unbounded.reason == "state-unchanged"
    assert (r.unbounded.node, r.unbounded.simulated, len(r.placements)) == ("n", 2, 2)
    assert r.copies == 500 and r.limited and r.exit_code == 0
    doc = r.to_dict()
    assert doc["summary"]["unbounded"] is True and doc["unbounded"]["reason"] == "state-unchanged"
    assert r.best_fit is not None and r.best_fit.best_fit == 500
    # the sequential reference agrees: no copy ever fails
    w2, target = resolve(w, _spec(c), WhatIf(), features)
    assert count_sequential(w2, list(Shape.of(w2, target).fresh), features, limit=40) == 40
    # a share that consumes something is bounded: 100G / 10G
    c["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {"requests": {"bandwidth": "10G"}}
    bounded = capacity(w, _spec(c), CapacityOptions(features=features))
    assert bounded.unbounded is None and bounded.copies == 10


def test_the_stable_allocator_keeps_its_own_device_set_and_says_so() -> None:
    """Kubernetes 1.34's allocator (stable) searches every slice of the cluster on each node:
    best fit keeps its device set within a node (``withinNode: allocator``)."""
    features = Features.for_version("1.34")
    r = capacity(_domains(), _spec(_one_plus_pair()), CapacityOptions(features=features, best_fit=True))
    assert r.best_fit is not None and r.context["allocator"] == "auto"
    doc = r.to_dict()["bestFit"]
    assert (doc["withinNode"], doc["firstFit"], doc["bestFit"], doc["reorderedCopies"]) == (
        "allocator",
        1,
        1,
        0,
    )
    assert "stable allocator" in doc["withinNodeNote"]


def _partitions(pool: str, node_name: str | None, n: int) -> list[dict[str, Any]]:
    """A GPU of ``n`` memory slices published as ``n`` 1-slice partitions (``node_name`` None:
    network-attached, every node reaches it)."""
    where: dict[str, Any] = {"nodeName": node_name} if node_name else {"allNodes": True}
    ref = {"name": pool, "generation": 1, "resourceSliceCount": 2}
    use = [{"counterSet": "g", "counters": {"mem": {"value": "1"}}}]
    return [
        {
            "apiVersion": V1,
            "kind": "ResourceSlice",
            "metadata": {"name": f"{pool}-counters"},
            "spec": {
                "driver": DRIVER,
                **where,
                "pool": ref,
                "sharedCounters": [{"name": "g", "counters": {"mem": {"value": str(n)}}}],
            },
        },
        {
            "apiVersion": V1,
            "kind": "ResourceSlice",
            "metadata": {"name": f"{pool}-devices"},
            "spec": {
                "driver": DRIVER,
                **where,
                "pool": ref,
                "devices": [{"name": f"p{i}", "consumesCounters": use} for i in range(n)],
            },
        },
    ]


def test_best_fit_is_advice_fewer_fresh_counter_sets_may_place_fewer_copies() -> None:
    """The score's limit, said in the output's label (advice): nodes a and b each have a GPU of
    one slice; a network-attached GPU of two slices is reached by both.  A copy asks for any 2
    partitions.  First fit: a's and one network slice, then b's and the other: 2 copies.  Best
    fit prefers starting one fresh counter set to two (freshCounterSets) and takes both
    network slices for the first copy: the local slices are left without a partner, 1 copy."""
    w = world(
        device_class("gpu", f"device.driver == '{DRIVER}'"),
        node("a"),
        node("b"),
        *_partitions("a", "a", 1),
        *_partitions("b", "b", 1),
        *_partitions("net", None, 2),
    )
    r = capacity(w, _spec(claim("ask", count=2)), CapacityOptions(features=FEATURES, best_fit=True))
    assert r.best_fit is not None
    assert (r.best_fit.first_fit, r.best_fit.best_fit, r.to_dict()["bestFit"]["gain"]) == (2, 1, -1)
    assert [p.devices for p in r.placements] == [
        (f"{DRIVER}/a/p0", f"{DRIVER}/net/p0"),
        (f"{DRIVER}/b/p0", f"{DRIVER}/net/p1"),
    ]
