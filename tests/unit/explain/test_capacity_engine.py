"""dractl capacity: worlds small enough to count by hand; each asserts the count and the reason.

Every test also checks the simulation against the slow reference (a fresh allocator per
copy, every node tried each time), so the shortcuts (dead nodes, one Allocator with
commit()) never change an answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from explain_builders import claim, device_class, node, pod, slice_, template, world

from dractl.explain.capacity import CapacityOptions, Shape, Simulation, capacity, count_sequential
from dractl.explain.engine import TargetSpec, resolve
from dractl.explain.whatif import WhatIf
from dractl.io.world import World
from dractl.model.build import build_object
from dractl.model.features import Features

V1 = "resource.k8s.io/v1"
GPU = device_class("gpu", "device.driver == 'gpu.example.com'")


def gpus(prefix: str, n: int, **attrs: Any) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        a = {k: {"string": v(i) if callable(v) else v} for k, v in attrs.items()}
        out.append({"name": f"{prefix}{i}", "attributes": a})
    return out


def ask(name: str = "ask", count: int = 1, match: str | None = None, **extra: Any) -> dict[str, Any]:
    c = claim(name, count=count)
    if match:
        c["spec"]["devices"]["constraints"] = [{"matchAttribute": match}]
    c["spec"]["devices"]["requests"][0]["exactly"].update(extra)
    return c


def held(name: str, pool: str, devices: list[str], driver: str = "gpu.example.com") -> dict[str, Any]:
    c = claim(name)
    c["status"] = {
        "allocation": {
            "devices": {
                "results": [{"request": "req", "driver": driver, "pool": pool, "device": d} for d in devices]
            }
        }
    }
    return c


def run(w: World, spec: TargetSpec, features: Features | None = None, **kw: Any) -> Any:
    return capacity(w, spec, CapacityOptions(features=features or Features.for_version("1.37"), **kw))


def files(*docs: dict[str, Any]) -> TargetSpec:
    return TargetSpec(claim_objects=tuple(build_object(d) for d in docs))  # type: ignore[arg-type]


def reference(w: World, spec: TargetSpec, features: Features | None = None) -> int:
    f = features or Features.for_version("1.37")
    w2, target = resolve(w, spec, WhatIf(), f)
    return count_sequential(w2, list(Shape.of(w2, target).fresh), f)


def three_nodes(*extra: dict[str, Any]) -> World:
    return world(
        GPU,
        node("a"),
        node("b"),
        node("c"),
        *(slice_(f"s-{n}", n, gpus(f"{n}-gpu", 4)) for n in "abc"),
        *extra,
    )


@pytest.mark.parametrize(
    ("count", "total", "per_node"),
    [
        (1, 10, {"a": 2, "b": 4, "c": 4}),
        (2, 5, {"a": 1, "b": 2, "c": 2}),
        (3, 2, {"a": 0, "b": 1, "c": 1}),
        (5, 0, {"a": 0, "b": 0, "c": 0}),
    ],
)
def test_node_local_gpus_counted_per_node(count: int, total: int, per_node: dict[str, int]) -> None:
    w = three_nodes(held("busy", "a", ["a-gpu0", "a-gpu1"]))
    spec = files(ask(count=count))
    r = run(w, spec)
    assert r.copies == total == reference(w, spec)
    assert {n.name: n.copies for n in r.nodes} == per_node
    assert sum(n for _, n in r.pools) == total * count
    assert r.exit_code == (0 if total else 1)
    assert r.blocking is not None and "ask-copy" in r.blocking.message


def test_too_few_on_node_is_stranded_capacity() -> None:
    w = three_nodes(held("busy", "a", ["a-gpu0", "a-gpu1"]))
    r = run(w, files(ask(count=3)))
    frag = {s.reason: s for s in r.fragmentation}
    # a keeps 2 free, b and c keep 1 each after one 3-GPU copy: 4 stranded on 3 nodes, largest 2
    assert frag["too-few-on-node"].devices == 4
    assert frag["too-few-on-node"].nodes == 3
    assert frag["too-few-on-node"].largest_block == 2


def test_name_order_is_first_fit_and_least_free_packs() -> None:
    w = three_nodes(held("busy", "b", ["b-gpu0"]))
    first = run(w, files(ask(count=2)), max_copies=2)
    assert [p.node for p in first.placements] == ["a", "a"]
    most = run(w, files(ask(count=2)), max_copies=2, order="most-free")
    assert [p.node for p in most.placements] == ["a", "c"]  # ties by name: a (4), then c (4 > b's 3)
    least = run(w, files(ask(count=1)), max_copies=2, order="least-free")
    assert [p.node for p in least.placements] == ["b", "b"]  # b has 3 free: the fullest first
    assert first.limited and "max-copies" in " ".join(first.notes)


def test_nvlink_domains_with_match_attribute() -> None:
    dom = {"domain": lambda i: "x" if i < 4 else "y"}
    w = world(GPU, node("n"), slice_("s", "n", gpus("g", 8, **dom)), held("busy", "n", ["g0"]))
    spec = files(ask(count=4, match="gpu.example.com/domain"))
    r = run(w, spec)
    assert r.copies == 1 == reference(w, spec)
    assert r.placements[0].devices == tuple(f"gpu.example.com/n/g{i}" for i in range(4, 8))
    assert {s.reason for s in r.fragmentation} == {"too-few-on-node"}  # only domain x's 3 are left


def test_free_gpus_split_across_domains_are_stranded_by_the_constraint() -> None:
    dom = {"domain": lambda i: "x" if i < 4 else "y"}
    w = world(GPU, node("n"), slice_("s", "n", gpus("g", 8, **dom)), held("busy", "n", ["g0", "g4"]))
    spec = files(ask(count=4, match="gpu.example.com/domain"))
    r = run(w, spec)
    assert r.copies == 0 == reference(w, spec)
    frag = {s.reason: s for s in r.fragmentation}
    assert frag["constraint"].devices == 6  # 6 GPUs free, 3 in each domain
    assert frag["constraint"].largest_block == 3
    assert "gpu.example.com/domain" in frag["constraint"].message
    assert r.blocking is not None and r.blocking.nodes == 1


def _mig_world(used: list[str]) -> World:
    sets = [{"name": "g0", "counters": {"mem": {"value": "7"}}}]
    devs: list[dict[str, Any]] = [
        {
            "name": "full",
            "attributes": {"kind": {"string": "full"}},
            "consumesCounters": [{"counterSet": "g0", "counters": {"mem": {"value": "7"}}}],
        }
    ]
    devs += [
        {
            "name": f"mig-{k}",
            "attributes": {"kind": {"string": "mig"}},
            "consumesCounters": [{"counterSet": "g0", "counters": {"mem": {"value": "1"}}}],
        }
        for k in range(7)
    ]
    pool = {"name": "n", "generation": 1, "resourceSliceCount": 2}  # 1.35+: counters in a slice of their own
    counters = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "c"},
        "spec": {"driver": "gpu.example.com", "nodeName": "n", "sharedCounters": sets, "pool": pool},
    }
    devices = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "d"},
        "spec": {"driver": "gpu.example.com", "nodeName": "n", "devices": devs, "pool": pool},
    }
    classes = [
        device_class("full", "device.attributes['gpu.example.com'].kind == 'full'"),
        device_class("mig", "device.attributes['gpu.example.com'].kind == 'mig'"),
    ]
    return world(
        *classes, node("n"), counters, devices, *(held(f"h{i}", "n", [d]) for i, d in enumerate(used))
    )


def test_partitionable_gpu_partitions_strand_counters() -> None:
    w = _mig_world(["mig-0", "mig-1"])
    full = run(w, files(_cls(ask(), "full")))
    assert full.copies == 0
    frag = {s.reason: s for s in full.fragmentation}
    assert frag["counters-exhausted"].devices == 1
    assert frag["partly-consumed-counters"].details["left"] == {"mem": 5}
    mig = run(w, files(_cls(ask(), "mig")))
    assert mig.copies == 5 == reference(w, files(_cls(ask(), "mig")))


def _cls(c: dict[str, Any], name: str) -> dict[str, Any]:
    c["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = name
    return c


def test_network_attached_pool_is_shared_by_nodes() -> None:
    shared = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "fabric"},
        "spec": {
            "driver": "gpu.example.com",
            "allNodes": True,
            "devices": gpus("f", 4),
            "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
        },
    }
    w = world(GPU, node("a"), node("b"), shared)
    spec = files(ask())
    r = run(w, spec)
    assert r.copies == 4 == reference(w, spec)
    assert dict(r.pools) == {"gpu.example.com/fabric": 4}
    assert {n.name: n.copies for n in r.nodes} == {"a": 4, "b": 0}


def test_consumable_capacity_shares_add_up() -> None:
    dev = {
        "name": "big",
        "allowMultipleAllocations": True,
        "capacity": {
            "memory": {"value": "40Gi", "requestPolicy": {"default": "10Gi", "validRange": {"min": "1Gi"}}}
        },
    }
    w = world(GPU, node("n"), slice_("s", "n", [dev]))
    c = ask(capacity={"requests": {"memory": "15Gi"}})
    features = Features.parse("DRAConsumableCapacity=true", Features.for_version("1.37"))
    r = run(w, files(c), features)
    assert r.copies == 2 == reference(w, files(c), features)  # 15 + 15 of 40; 10 left < 15
    frag = {s.reason: s for s in r.fragmentation}
    assert frag["capacity-below-request"].devices == 1


def test_taints_block_and_ignore_taints_lifts_them() -> None:
    devs = gpus("g", 2)
    devs[1]["taints"] = [{"key": "broken", "effect": "NoSchedule"}]
    w = world(GPU, node("n"), slice_("s", "n", devs))
    assert run(w, files(ask())).copies == 1
    assert run(w, files(ask()), whatif=WhatIf(ignore_taints=True)).copies == 2
    tolerant = ask(tolerations=[{"key": "broken", "operator": "Exists"}])
    assert run(w, files(tolerant)).copies == 2
    frag = {s.reason for s in run(w, files(ask())).fragmentation}
    assert "tainted" in frag


def test_gang_replicas_and_exit_code() -> None:
    w = three_nodes()
    assert run(w, files(ask(count=4)), replicas=3).gang_fits
    short = run(w, files(ask(count=4)), replicas=4)
    assert not short.gang_fits and short.exit_code == 1
    assert short.to_dict()["summary"]["pending"] == 1
    assert "cannot be placed" in short.summary_line


def test_pod_template_claims_are_fresh_per_copy_and_node_filters_apply() -> None:
    p = pod("p", claims=[{"name": "g", "resourceClaimTemplateName": "t"}], node_selector={"pool": "yes"})
    w = world(
        GPU,
        node("a", labels={"pool": "yes"}),
        node("b"),
        slice_("sa", "a", gpus("a", 2)),
        slice_("sb", "b", gpus("b", 2)),
        template("t"),
        p,
    )
    r = run(w, TargetSpec(pod_ref="default/p"))
    assert r.copies == 2
    assert {n.name: n.copies for n in r.nodes} == {"a": 2, "b": 0}
    assert next(n.filtered for n in r.nodes if n.name == "b")


def test_shared_named_claim_is_allocated_once_then_pins_the_copies() -> None:
    p = pod("p", claims=[{"name": "g", "resourceClaimName": "shared"}])
    w = world(
        GPU,
        node("a"),
        node("b"),
        slice_("sa", "a", gpus("a", 1)),
        slice_("sb", "b", gpus("b", 1)),
        claim("shared"),
        p,
    )
    r = run(w, TargetSpec(pod_ref="default/p"))
    assert r.copies == 256  # one allocation, then every copy reserves it: ResourceClaimReservedForMaxSize
    assert {n.name: n.copies for n in r.nodes} == {"a": 256, "b": 0}
    assert r.blocking is not None and "256" in r.blocking.message


def test_allocation_error_is_reported_not_counted() -> None:
    bad = ask(selectors=["device.attributes['gpu.example.com'].nosuch == 'x'"])
    w = three_nodes()
    r = run(w, files(bad))
    assert r.copies == 0 and r.error is not None and "CEL" in r.error
    assert r.exit_code == 1


def test_ignore_allocations_gives_the_theoretical_maximum() -> None:
    w = three_nodes(held("busy", "a", ["a-gpu0", "a-gpu1", "a-gpu2"]))
    assert run(w, files(ask())).copies == 9
    assert run(w, files(ask()), whatif=WhatIf(ignore_allocations=True)).copies == 12


def test_best_fit_is_advice_and_never_worse_here() -> None:
    dom = {"domain": lambda i: "x" if i < 2 else "y"}
    w = world(GPU, node("n"), slice_("s", "n", gpus("g", 4, **dom)))
    r = run(w, files(ask(count=2, match="gpu.example.com/domain")), best_fit=True)
    assert r.best_fit is not None
    assert r.best_fit.first_fit == r.copies == 2
    assert r.best_fit.best_fit >= 2
    assert "advice" in r.best_fit.to_dict()["label"]
    assert r.best_fit.to_dict()["withinNode"] == "ranked"  # said: bounded orderings, not explain's ranking


def test_inputs_are_not_mutated_and_json_is_stable() -> None:
    w = three_nodes(held("busy", "a", ["a-gpu0"]))
    before = (w.claims, w.slices)
    one = run(w, files(ask(count=2))).to_dict()
    two = run(w, files(ask(count=2))).to_dict()
    assert (w.claims, w.slices) == before
    assert one == two
    assert one["summary"]["copies"] == sum(n["copies"] for n in one["nodes"])


@pytest.mark.parametrize("implementation", ["stable", "incubating", "experimental"])
def test_every_allocator_implementation_agrees_with_its_own_sequential_loop(implementation: str) -> None:
    features = Features.for_version("1.34") if implementation == "stable" else Features.for_version("1.37")
    w = three_nodes(held("busy", "a", ["a-gpu0"]))
    spec = files(ask(count=2))
    r = run(w, spec, features, implementation=implementation)
    w2, target = resolve(w, spec, WhatIf(), features)
    expected = count_sequential(w2, list(Shape.of(w2, target).fresh), features, implementation=implementation)
    assert r.copies == expected == 5
    assert r.context["allocator"] == implementation


def test_an_implementation_that_lacks_an_enabled_feature_is_a_usage_error() -> None:
    from dractl.errors import UsageError

    with pytest.raises(UsageError, match="--allocator stable"):
        run(three_nodes(), files(ask()), Features.for_version("1.37"), implementation="stable")


def test_admin_access_copies_never_use_up_devices() -> None:
    w = three_nodes()
    r = run(w, files(ask(adminAccess=True)), max_copies=25)
    assert r.copies == 25 and r.limited  # admin access does not make a device allocated


def _free_recount(sim: Any) -> dict[str, int]:
    busy = sim.allocator.state.allocated_ids
    return {n: sum(1 for d in ids if d not in busy) for n, ids in sim._local.items()}


@pytest.mark.parametrize(
    "case",
    ["gpus", "mig", "shares", "admin", "fabric"],
)
def test_free_devices_kept_by_each_commit_equal_a_recount(case: str) -> None:
    """The per-node count of unallocated devices (what --order most-free|least-free sorts by)
    is updated from each placement's devices: it must equal counting afresh."""
    from dractl.explain.simulation import Simulation

    features = Features.for_version("1.37")
    if case == "gpus":
        w, c = three_nodes(held("busy", "a", ["a-gpu0"])), ask(count=2)
    elif case == "mig":
        w, c = _mig_world(["mig-0"]), _cls(ask(), "mig")
    elif case == "shares":
        dev = {
            "name": "big",
            "allowMultipleAllocations": True,
            "capacity": {"memory": {"value": "40Gi", "requestPolicy": {"default": "10Gi"}}},
        }
        w, c = world(GPU, node("n"), slice_("s", "n", [dev, *gpus("n", 1)])), ask()
        features = Features.parse("DRAConsumableCapacity=true", features)
    elif case == "admin":
        w, c = three_nodes(), ask(adminAccess=True)
    else:
        shared = slice_("f", "a", gpus("f", 2))
        w, c = world(GPU, node("a"), node("b"), shared, slice_("b", "b", gpus("b", 2))), ask()
    for order in ("name", "most-free", "least-free"):
        opts = CapacityOptions(features=features, kube_version="1.37", order=order, max_copies=12)
        w2, target = resolve(w, files(c), WhatIf(), features)
        sim = Simulation(w2, Shape.of(w2, target), opts, best_fit=False)
        placed = sim.run()
        assert placed, (case, order)
        assert {n: sim.unallocated_devices(n) for n in sim._local} == _free_recount(sim), (case, order)


def test_an_allocation_error_names_the_copy_that_failed() -> None:
    # the allocator is asked with the shape's own claims; an error is asked again with the copy's
    bad = ask(selectors=["device.attributes['gpu.example.com'].nosuch == 'x'"])
    r = run(three_nodes(), files(bad))
    assert r.error is not None and "default/ask-copy-1" in r.error, r.error


def test_the_named_copies_are_what_the_blocking_explanation_sees() -> None:
    w = three_nodes(held("busy", "a", ["a-gpu0"]))
    spec = files(ask(count=2))
    w2, target = resolve(w, spec, WhatIf(), Features.for_version("1.37"))
    sim = Simulation(w2, Shape.of(w2, target), CapacityOptions(), best_fit=False)
    placed = sim.run()
    claims = sim.placed_claims
    assert [c.meta.name for c in claims] == [f"ask-copy-{k}" for k in range(1, 6)]
    assert [c.meta.uid for c in claims] == [f"dractl-capacity-ask-{k}" for k in range(1, 6)]
    for c, p in zip(claims, placed, strict=True):
        assert c.allocation is not None
        assert tuple(r.device_id for r in c.allocation.results) == p.devices
    final = {c.meta.name for c in sim.final_world().claims}
    assert {"busy", *(c.meta.name for c in claims)} <= final


def test_copies_leave_no_reference_cycles_behind() -> None:
    # tens of thousands of allocation attempts: their working state is freed at once, by
    # reference counting, not left for the cyclic collector
    import gc

    w = three_nodes()
    w2, target = resolve(w, files(ask()), WhatIf(), Features.for_version("1.37"))
    sim = Simulation(w2, Shape.of(w2, target), CapacityOptions(), best_fit=False)
    gc.collect()
    gc.disable()
    try:
        sim.run()
        left = gc.collect()
    finally:
        gc.enable()
    assert sim.attempts == 15 and left == 0


def test_stranded_capacity_reads_the_pools_the_simulation_gathered(monkeypatch: pytest.MonkeyPatch) -> None:
    from dractl.explain.fragmentation import fragmentation
    from dractl.matcher import pools

    w = _mig_world(["mig-0", "mig-1"])
    w2, target = resolve(w, files(_cls(ask(), "full")), WhatIf(), Features.for_version("1.37"))
    sim = Simulation(w2, Shape.of(w2, target), CapacityOptions(), best_fit=False)
    sim.run()
    gathered: list[str] = []
    real = pools.gather
    monkeypatch.setattr(pools, "gather", lambda *a, **k: gathered.append(a[1].meta.name) or real(*a, **k))
    frag = {s.reason: s for s in fragmentation(sim)}
    assert gathered == []  # the allocator's view of the node: no second gathering
    assert frag["counters-exhausted"].devices == 1
    assert frag["partly-consumed-counters"].details["left"] == {"mem": 5}


def _no_devices(name: str, devices: Any) -> dict[str, Any]:
    c = claim(name)
    if devices is None:
        c["spec"] = {}
    else:
        c["spec"]["devices"] = devices
    return c


@pytest.mark.parametrize(
    "devices", [None, {}, {"requests": []}], ids=["spec-empty", "devices-empty", "no-requests"]
)
def test_a_claim_that_needs_no_devices_is_unbounded_in_constant_time(devices: Any) -> None:
    # The allocator allocates a claim without requests without devices, on any node: copies never
    # run out.  The simulation sees the fixed point after one copy instead of placing --max-copies.
    w = three_nodes(held("busy", "a", ["a-gpu0"]))
    spec = files(_no_devices("empty", devices))
    r = run(w, spec)
    assert r.unbounded is not None and r.unbounded.reason == "no-devices"
    assert (r.unbounded.node, r.unbounded.simulated) == ("a", 1)
    assert r.attempts == 1 and len(r.placements) == 1 and r.placements[0].devices == ()
    assert r.copies == 100_000 and r.limited and r.exit_code == 0
    d = r.to_dict()
    assert d["summary"]["unbounded"] is True and d["unbounded"]["copiesSimulated"] == 1
    assert d["summary"]["copies"] == sum(n["copies"] for n in d["nodes"])
    assert {n["name"]: n["copies"] for n in d["nodes"]} == {"a": 100_000, "b": 0, "c": 0}
    assert "no limit" in r.summary_line and r.blocking is None and r.fragmentation == ()
    assert reference(w, spec) == 1000  # the slow loop: every copy fits, up to its own limit
    gang = run(w, spec, replicas=250_000, max_copies=10)
    assert gang.copies == 250_000 and gang.gang_fits and gang.exit_code == 0


def test_no_devices_needed_but_no_node_to_place_on_is_zero() -> None:
    t = template("t")
    t["spec"]["spec"] = {}
    p = pod("p", claims=[{"name": "x", "resourceClaimTemplateName": "t"}], node_selector={"no": "such"})
    r = run(world(GPU, node("a"), t, p), TargetSpec(pod_ref="default/p"))
    assert r.copies == 0 and r.unbounded is None and r.exit_code == 1


def test_a_pod_whose_claims_need_no_devices_is_unbounded_where_its_filters_allow() -> None:
    t = template("t")
    t["spec"]["spec"] = {"devices": {"requests": []}}
    p = pod("p", claims=[{"name": "x", "resourceClaimTemplateName": "t"}], node_selector={"pool": "yes"})
    base = [GPU, node("a"), node("b", labels={"pool": "yes"}), slice_("sa", "a", gpus("a", 1)), t, p]
    r = run(world(*base), TargetSpec(pod_ref="default/p"), max_copies=500)
    assert r.unbounded is not None and r.unbounded.node == "b" and r.copies == 500
    assert {n.name: n.copies for n in r.nodes} == {"a": 0, "b": 500}
    # a device-needing claim next to it bounds the count again: one GPU on the allowed node
    p2 = pod(
        "p2",
        claims=[
            {"name": "x", "resourceClaimTemplateName": "t"},
            {"name": "g", "resourceClaimTemplateName": "g"},
        ],
    )
    r2 = run(world(*base, template("g"), p2), TargetSpec(pod_ref="default/p2"))
    assert r2.unbounded is None and r2.copies == 1


def test_a_shared_named_claim_without_requests_still_bounds_by_its_consumers() -> None:
    shared = _no_devices("shared", {"requests": []})
    p = pod("p", claims=[{"name": "g", "resourceClaimName": "shared"}])
    r = run(world(GPU, node("a"), shared, p), TargetSpec(pod_ref="default/p"))
    assert r.unbounded is None and r.copies == 256  # every copy is one more consumer of the claim


def test_admin_access_copies_are_unbounded_state_unchanged() -> None:
    r = run(three_nodes(), files(ask(adminAccess=True)))
    assert r.unbounded is not None and r.unbounded.reason == "state-unchanged"
    assert len(r.placements) == 1 and r.copies == 100_000 and r.exit_code == 0


def _availability_free(w: World, features: Features) -> dict[str, int]:
    from dractl.inventory.availability import AvailabilityOptions, availability

    out: dict[str, int] = {}
    for p in availability(w, AvailabilityOptions(features=features)).items:
        if p.node is not None:
            out[p.node] = out.get(p.node, 0) + p.counts.free
    return out


@pytest.mark.parametrize("case", ["mig", "taints", "shares", "gpus", "incomplete"])
def test_free_devices_are_what_availability_calls_free_after_the_copies(case: str) -> None:
    """freeDevices: a full GPU whose partitions are in use is not free (its counters are
    taken), a tainted device is not, a shared device with capacity left is, an incomplete
    pool has none: exactly availability's free on the world with the copies allocated."""
    features = Features.for_version("1.37")
    if case == "mig":
        w, c = _mig_world(["mig-0"]), _cls(ask(), "mig")
    elif case == "taints":
        bad = gpus("t", 2)
        bad[0]["taints"] = [{"key": "x", "effect": "NoSchedule"}]
        w, c = world(GPU, node("a"), slice_("s", "a", [*bad, *gpus("a", 2)])), ask()
    elif case == "shares":
        dev = {
            "name": "big",
            "allowMultipleAllocations": True,
            "capacity": {"memory": {"value": "40Gi", "requestPolicy": {"default": "10Gi"}}},
        }
        w, c = world(GPU, node("n"), slice_("s", "n", [dev, *gpus("n", 1)])), ask(count=1)
        features = Features.parse("DRAConsumableCapacity=true", features)
        c["spec"]["devices"]["requests"][0]["exactly"]["capacity"] = {"requests": {"memory": "30Gi"}}
    elif case == "gpus":
        w, c = three_nodes(held("busy", "a", ["a-gpu0"])), ask(count=3)
    else:
        half = slice_("h", "b", gpus("h", 2))
        half["spec"]["pool"]["resourceSliceCount"] = 2
        w, c = world(GPU, node("a"), node("b"), slice_("s", "a", gpus("a", 1)), half), ask()
    w2, target = resolve(w, files(c), WhatIf(), features)
    sim = Simulation(w2, Shape.of(w2, target), CapacityOptions(features=features), best_fit=False)
    sim.run()
    got = {n.name: n.free_devices for n in sim.per_node()}
    want = _availability_free(sim.final_world(), features)
    assert got == {n: want.get(n, 0) for n in got}, case
    if case == "mig":  # the full GPU of the partition in use is allocated-free but not free
        assert sim.unallocated_devices("n") > got["n"]
