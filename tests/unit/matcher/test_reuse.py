"""What one Allocator keeps between calls: each node's view (pools, candidates, selector
verdicts) and the counters left per pool, kept exact by commit(); a fresh Allocator on the
accumulated state is the reference every answer is compared with."""

from __future__ import annotations

from matcher_builders import ALL, claim, dev, device_class, devices_of, node, req, slice_
from test_counters import _partition, replace_pool

from dractl.matcher import AllocatedState, Allocator
from dractl.matcher.api import FIXED_SHARE_ID
from dractl.matcher.counters import CounterBook, available
from dractl.matcher.pools import gather


def _allocator(slices: list, classes: list | None = None, **kw: object) -> Allocator:
    return Allocator(  # type: ignore[arg-type]
        classes or [device_class()], slices, ALL, share_ids=lambda: FIXED_SHARE_ID, **kw
    )


def _fresh_answer(slices: list, claims: list, state: AllocatedState, the_node: object, classes: list) -> list:
    out = _allocator(slices, classes, allocated=state).allocate(the_node, claims)  # type: ignore[arg-type]
    return [out.status, out.error, out.results_dicts()]


def test_views_are_built_once_per_node_and_rebuilt_for_another_node_object() -> None:
    by_label = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
    }
    slices = [slice_("s", [dev("d0")], node_name=None, nodeSelector=by_label)]
    a = _allocator(slices)
    in_a = node("n", zone="a")
    assert a.view(in_a) is a.view(in_a)  # reused between calls
    assert devices_of(a.allocate(in_a, [claim("c", req("r"))])) == [["d0"]]
    relabelled = node("n", zone="b")  # same name, other labels: a new view, not the old one
    assert a.view(relabelled) is not a.view(in_a)
    assert a.allocate(relabelled, [claim("c", req("r"))]).status == "unallocatable"


def test_bad_node_selector_errors_on_every_call() -> None:
    bad = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Bogus"}]}]}
    a = _allocator([slice_("s", [dev("d0")], node_name=None, nodeSelector=bad)])
    first = a.allocate(node(), [claim("c", req("r"))])
    again = a.allocate(node(), [claim("c", req("r"))])
    assert first.status == again.status == "error"
    assert first.error == again.error and "gather pool information" in (first.error or "")


def test_selector_verdicts_are_shared_but_errors_are_not_cached() -> None:
    sel = 'device.attributes["driver-a"].n > 1'
    slices = [slice_("s", [dev("d0", attrs={"n": 1}), dev("d1", attrs={"n": 2}), dev("d2")])]
    a = _allocator(slices)
    first = a.allocate(node(), [claim("c", req("r", "class-a", 1, sel))])
    assert devices_of(first) == [["d1"]]
    a.commit(first.results)
    # d2 has no attribute n: the selector fails at runtime, on every call, naming the claim
    for name in ("x", "y"):
        out = a.allocate(node(), [claim(name, req("r", "class-a", 1, sel))])
        assert out.status == "error" and f"claim {name}" in (out.error or "") and "d2" in (out.error or "")


def test_commit_keeps_counters_exact_across_calls() -> None:
    counters = slice_(
        "counters",
        [],
        count=2,
        sharedCounters=[
            {"name": "gpu-0", "counters": {"mem": {"value": "7"}}},
            {"name": "gpu-1", "counters": {"mem": {"value": "3.5"}}},  # not a whole number
        ],
    )
    parts = [_partition(f"p{i}", "2") for i in range(4)]
    halves = [
        dev(f"h{i}", consumesCounters=[{"counterSet": "gpu-1", "counters": {"mem": {"value": "1.5"}}}])
        for i in range(3)
    ]
    slices = [counters, slice_("devices", [*parts, *halves], count=2)]
    classes = [device_class()]
    a = _allocator(slices, classes)
    state = AllocatedState()
    placed = []
    while True:
        claims = [claim(f"c{len(placed)}", req("r"))]
        got = a.allocate(node(), claims)
        assert [got.status, got.error, got.results_dicts()] == _fresh_answer(
            slices, claims, state, node(), classes
        )
        if got.status != "allocated":
            break
        placed += devices_of(got)[0]
        a.commit(got.results)
        state = state.add(got.results)
        pool = gather(slices, node(), ALL, slices)[0]
        assert a.state.counters_for(pool) == available(pool, state.devices.__contains__)
    assert placed == ["p0", "p1", "p2", "h0", "h1"]  # 3 x 2 of 7, then 2 x 1.5 of 3.5


def test_commit_of_another_drivers_pool_of_the_same_name() -> None:
    # counters are keyed by pool name; the cached entry belongs to the first pool asked for:
    # committing a device of the other driver's pool leaves it as a fresh computation would
    def pool(driver: str) -> list:
        counters = slice_(
            f"{driver}-counters",
            [],
            driver=driver,
            pool="shared",
            count=2,
            sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}],
        )
        devices = slice_(
            f"{driver}-devices",
            [_partition("p", "4"), _partition("q", "4")],
            driver=driver,
            pool="shared",
            count=2,
        )
        return [counters, devices]

    classes = [
        device_class("a", "device.driver == 'driver-a'"),
        device_class("b", "device.driver == 'driver-b'"),
    ]
    for slices in (
        pool("driver-a") + pool("driver-b"),
        pool("driver-a") + [replace_pool(s, "x") for s in pool("driver-b")],
    ):
        a = _allocator(slices, classes)
        state = AllocatedState()
        for i, cls in enumerate(["b", "a", "b", "a", "a"]):
            claims = [claim(f"c{i}", req("r", cls))]
            got = a.allocate(node(), claims)
            assert [got.status, got.error, got.results_dicts()] == _fresh_answer(
                slices, claims, state, node(), classes
            )
            if got.status == "allocated":
                a.commit(got.results)
                state = state.add(got.results)


def test_counter_book_over_count_matches_checking_every_counter() -> None:
    counters = slice_(
        "counters",
        [],
        count=2,
        sharedCounters=[
            {"name": "a", "counters": {"x": {"value": "2"}, "y": {"value": "1"}}},
            {"name": "b", "counters": {"x": {"value": "1"}}},
        ],
    )
    devs = [
        dev("ax", consumesCounters=[{"counterSet": "a", "counters": {"x": {"value": "2"}}}]),
        dev("ay", consumesCounters=[{"counterSet": "a", "counters": {"y": {"value": "1"}}}]),
        dev(
            "both",
            consumesCounters=[
                {"counterSet": "a", "counters": {"x": {"value": "1"}}},
                {"counterSet": "b", "counters": {"x": {"value": "1"}}},
            ],
        ),
        dev("bx", consumesCounters=[{"counterSet": "b", "counters": {"x": {"value": "1"}}}]),
    ]
    slices = [counters, slice_("devices", devs, count=2)]
    pool = gather(slices, node(), ALL, slices)[0]
    by = {d.name: d for d in pool.slices[0].devices}
    book = CounterBook(lambda p: available(p, lambda _: False))
    assert book.reserve(pool, by["ax"]) and book.reserve(pool, by["ay"])
    assert not book.reserve(pool, by["both"])  # a.x is used up
    assert book.reserve(pool, by["bx"])  # b.x was untouched by the refused reservation
    book.release(pool, by["ax"])
    assert not book.reserve(pool, by["both"])  # now b.x is used up
    # over-committed counters (more allocated than exists) block every device of the pool
    over = CounterBook(lambda p: {"a": {"x": -1, "y": 1}, "b": {"x": 1}})  # type: ignore[dict-item]
    assert not over.reserve(pool, by["bx"])


def test_copies_of_a_claim_reuse_its_requests_and_are_named_as_themselves() -> None:
    from dataclasses import replace

    a = _allocator([slice_("s", [dev("d0"), dev("d1")])])
    first = claim("first", req("r", "class-a", 1, "device.attributes['driver-a'].n > 0"))
    copy = replace(first, meta=replace(first.meta, name="copy"))  # the same spec object
    assert copy.spec is first.spec
    a.allocate(node(), [first])  # the first call keeps no prepared requests
    assert a._prepared == {}
    for c in (first, copy):  # d0 has no attribute n: the error names the claim of this call
        out = a.allocate(node(), [c])
        assert out.status == "error" and f"claim {c.meta.name}:" in (out.error or "")
        assert [hit[0] for hit in a._prepared.values()] == [first.spec]  # kept, then reused
    plain = claim("p", req("r", count=2))
    again = replace(plain, meta=replace(plain.meta, name="p2"))
    assert devices_of(a.allocate(node(), [plain])) == [["d0", "d1"]]
    out = a.allocate(node(), [plain, again])  # two claims, one spec: each gets its own requests
    assert out.status == "unallocatable"
    a2 = _allocator([slice_("s", [dev(f"d{i}") for i in range(4)])])
    assert devices_of(a2.allocate(node(), [plain, again])) == [["d0", "d1"], ["d2", "d3"]]
    assert devices_of(a2.allocate(node(), [again, plain])) == [["d0", "d1"], ["d2", "d3"]]


def test_commit_says_whether_the_allocated_state_changed() -> None:
    # capacity stops counting at a copy whose commit changes nothing (every next copy is the same)
    a = _allocator([slice_("s", [dev("d0"), dev("d1")])])
    nothing = claim("none")  # no requests: allocated without devices
    admin = claim("admin", req("r", adminAccess=True))
    plain = claim("plain", req("r"))
    for c in (nothing, admin):
        got = a.allocate(node(), [c])
        assert got.status == "allocated"
        assert a.commit(got.results) is False
        assert a.allocate(node(), [c]).results_dicts() == got.results_dicts()  # the same answer again
    first = a.allocate(node(), [plain])
    assert a.commit(first.results) is True
    assert devices_of(a.allocate(node(), [plain])) == [["d1"]]
