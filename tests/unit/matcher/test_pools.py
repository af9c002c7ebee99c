"""Pool gathering: generations, completeness, validity, node selection, order."""

from __future__ import annotations

from typing import Any

from matcher_builders import ALL, dev, node, slice_

from dractl.matcher.pools import gather


def _gather(slices: list, the_node: object = None) -> list:
    n = the_node if the_node is not None else node()
    return gather([s for s in slices], n, ALL, slices)  # type: ignore[arg-type]


def test_newest_generation_wins() -> None:
    pools = _gather([slice_("old", [dev("a")], generation=1), slice_("new", [dev("b")], generation=2)])
    assert [[d.name for s in p.slices for d in s.devices] for p in pools] == [["b"]]


def test_missing_slice_makes_pool_incomplete() -> None:
    (pool,) = _gather([slice_("s1", [dev("a")], count=2)])
    assert pool.incomplete and not pool.slices


def test_slice_of_other_node_completes_the_pool() -> None:
    mine = slice_("s1", [dev("a")], count=2)
    other = slice_("s2", [dev("b")], count=2, node_name="node-2")
    (pool,) = gather([mine], node(), ALL, [mine, other])
    assert not pool.incomplete and [s.meta.name for s in pool.other_slices] == ["s2"]


def test_newer_generation_elsewhere_hides_the_pool() -> None:
    mine = slice_("s1", [dev("a")], count=2)
    newer = slice_("s2", [dev("b")], count=2, generation=2, node_name="node-2")
    assert gather([mine], node(), ALL, [mine, newer]) == []


def test_duplicate_device_names_make_pool_invalid() -> None:
    (pool,) = _gather([slice_("s1", [dev("a")], count=2), slice_("s2", [dev("a")], count=2)])
    assert pool.invalid and pool.invalid_reason == "duplicate device name a"


def test_order_pools_by_driver_and_name_slices_by_name_binding_last() -> None:
    slices = [
        slice_("z", [dev("a", bindingConditions=["Ready"])], pool="p0"),
        slice_("b", [dev("a")], pool="p2", count=2),
        slice_("a", [dev("b")], pool="p2", count=2),
        slice_("c", [dev("a")], pool="p1"),
        slice_("d", [dev("a")], pool="p9", driver="a-driver"),
    ]
    pools = _gather(slices)
    assert [p.id for p in pools] == ["a-driver/p9", "driver-a/p1", "driver-a/p2", "driver-a/p0"]
    assert [s.meta.name for s in pools[2].slices] == ["a", "b"]


def test_node_selection_kinds() -> None:
    sel = {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z9"]}]}]
    }
    slices = [
        slice_("all", [dev("a")], pool="all", node_name=None, allNodes=True),
        slice_("sel", [dev("a")], pool="sel", node_name=None, nodeSelector=sel),
        slice_("other", [dev("a")], pool="other", node_name="node-2"),
        slice_(
            "per",
            [dev("x", nodeName="node-2"), dev("y", allNodes=True)],
            pool="per",
            node_name=None,
            perDeviceNodeSelection=True,
        ),
    ]
    assert [p.name for p in _gather(slices, node("node-1", zone="z1"))] == ["all", "per", "sel"]
    assert [p.name for p in _gather(slices, node("node-1", zone="z9"))] == ["all", "per"]


def test_the_first_problem_of_an_invalid_pool_is_reported_in_check_order() -> None:
    bad_use = dev("p", consumesCounters=[{"counterSet": "nope", "counters": {"m": {"value": "1"}}}])
    sets = [{"name": "cs", "counters": {"m": {"value": "1"}}}]

    def reason(*slices: object) -> str:
        (pool,) = gather(list(slices), node(), ALL, list(slices))  # type: ignore[arg-type]
        assert pool.invalid
        return pool.invalid_reason

    # a bad counter reference comes first in the slices, a duplicate name later: duplicates win
    assert (
        reason(
            slice_("a", [bad_use], count=3),
            slice_("b", [dev("x"), dev("x")], count=3),
            slice_("c", [], count=3, sharedCounters=sets),
        )
        == "duplicate device name x"
    )
    # counter sets are checked before what devices consume
    assert (
        reason(slice_("a", [bad_use], count=2), slice_("c", [], count=2, sharedCounters=sets + sets))
        == "duplicate counter set name cs"
    )
    assert reason(slice_("a", [bad_use], count=2), slice_("c", [], count=2, sharedCounters=sets)) == (
        "counter set nope not found"
    )


def _flat_world() -> list:
    taint = {"key": "k", "value": "v", "effect": "NoSchedule"}
    return [
        slice_("a1", [dev("p0"), dev("p1"), dev("t0", taints=[taint])], pool="a", count=2),
        slice_("a2", [dev("q0"), dev("q1")], pool="a", count=2),
        slice_("b", [dev("m0", allowMultipleAllocations=True), dev("m1")], pool="b"),
        slice_("c", [dev("i0")], pool="c", count=2),  # incomplete: candidates for "All" only
        slice_("d", [dev("r0"), dev("r1"), dev("r2")], pool="d"),
    ]


def test_lazy_candidates_are_flatten_s() -> None:
    """Flat makes a slice's candidates when asked for (no DeviceTaintRules, nothing
    multi-allocatable); what it makes, in any order of asking, is what flatten makes at once
    (same positions, ids, taints, and for the candidates made at once the same taints_of
    calls in the same order), and by_pool is flatten's.  A waiting device's taints are its
    own (what taints_of answers without rules: taints_of is not asked for it)."""
    from dractl.matcher import candidates as cm
    from dractl.matcher.taints import own_taints

    pools = _gather(_flat_world())
    asked: list[tuple[str, str]] = []

    def taints_of(d: Any) -> tuple:
        asked.append(("flatten", d.name))
        return own_taints(d)

    def taints_of_lazy(d: Any) -> tuple:
        asked.append(("flat", d.name))
        return own_taints(d)

    for rules in (False, True):
        asked.clear()
        search, by_pool = cm.flatten(pools, taints_of, True, rules)
        for order in (range(len(search)), reversed(range(len(search)))):
            flat = cm.Flat(pools, taints_of_lazy, True, rules)
            got = {i: flat.get(i) for i in order}
            assert [_view(got[i]) for i in range(len(search))] == [_view(c) for c in search]
            assert [_view(c) for c in flat.all()] == [_view(c) for c in search]
            assert {k: [_view(c) for c in v] for k, v in flat.by_pool().items()} == {
                k: [_view(c) for c in v] for k, v in by_pool.items()
            }
            assert flat.any_multi == any(c.allow_multi for c in search)
        lazy_calls = [name for who, name in asked if who == "flat"]
        eager_calls = [name for who, name in asked if who == "flatten"]
        if rules:  # everything made at once, as flatten
            assert lazy_calls == eager_calls * 2
        else:  # t0 (tainted, in a waiting slice) gets its own taints without asking
            assert eager_calls == ["t0"] and lazy_calls == []
            (t0,) = [c for c in search if c.device.name == "t0"]
            assert t0.taints == own_taints(t0.device) != ()  # (compared with Flat's above)


def _view(c: object) -> tuple:
    return tuple(
        getattr(c, k) for k in ("idx", "id", "device", "slice", "pool", "taints", "allow_multi", "per_device")
    )


def test_has_binding_is_right_for_a_lone_pool_too() -> None:
    """Only the order of several pools reads has_binding (a lone pool's is looked up when
    asked): its answer is the same either way."""
    (bound,) = _gather([slice_("z", [dev("a"), dev("b", bindingConditions=["Ready"])])])
    (plain,) = _gather([slice_("z", [dev("a"), dev("b")])])
    assert bound.has_binding and not plain.has_binding
    two = _gather(
        [slice_("z", [dev("b", bindingConditions=["Ready"])], pool="p0"), slice_("y", [dev("a")], pool="p1")]
    )
    assert [(p.name, p.has_binding) for p in two] == [("p1", False), ("p0", True)]
