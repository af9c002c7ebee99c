"""Answers shared between nodes that look the same (dractl.matcher.sharing): a node of a
known shape gets the kept answer with its own names, and only where a full run would give
exactly that; everything else is computed as before.  The reference is always an answer
no sharing can have touched: a fresh Allocator per node and call."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matcher_builders import ALL, claim, dev, device_class, devices_of, node, req, slice_

from dractl.matcher import AllocatedState, Allocator, NodeOutcome
from dractl.matcher.api import FIXED_SHARE_ID
from dractl.matcher.sharing import Shapes
from dractl.model.features import Features

MEM = 'device.capacity["driver-a"].memory.compareTo(quantity("16Gi")) >= 0'


def _gpu(i: int, memory: str = "24Gi", **extra: Any) -> dict[str, Any]:
    return dev(f"gpu-{i}", attrs={"index": i, "model": "L4"}, capacity={"memory": {"value": memory}}, **extra)


def _fleet(n: int, devices: Any = None) -> tuple[list[Any], list[Any]]:
    nodes = [node(f"node-{i}") for i in range(n)]
    slices = [
        slice_(
            f"node-{i}-gpu",
            devices(i) if devices else [_gpu(j) for j in range(4)],
            pool=f"node-{i}",
            node_name=f"node-{i}",
        )
        for i in range(n)
    ]
    return nodes, slices


def _allocator(slices: list[Any], classes: list[Any] | None = None, **kw: Any) -> Allocator:
    kw.setdefault("share_ids", lambda: FIXED_SHARE_ID)
    return Allocator(classes or [device_class()], slices, ALL, **kw)


def _answer(o: NodeOutcome) -> tuple[Any, ...]:
    return (
        o.node,
        o.status,
        o.error,
        o.results_dicts(),
        o.trace.steps,
        o.trace.pruned,
        o.implementation,
        o.warnings,
    )


def _fresh(slices: list[Any], n: Any, claims: list[Any], state: AllocatedState, **kw: Any) -> tuple[Any, ...]:
    return _answer(_allocator(slices, allocated=state, **kw).allocate(n, claims, trace=False))


def test_identical_nodes_share_one_search_and_get_their_own_names() -> None:
    nodes, slices = _fleet(5)
    claims = [claim("c", req("r", "class-a", 2, MEM))]
    a = _allocator(slices)
    got = [a.allocate(n, claims, trace=False) for n in nodes]
    # pools and candidates were built for the first two nodes only (an Allocator's first call
    # looks for no shapes: asked once, it would only pay for them)
    assert sorted(a._views) == ["node-0", "node-1"]
    for n, o in zip(nodes, got, strict=True):
        assert _answer(o) == _fresh(slices, n, claims, AllocatedState())
        assert o.results[0].results[0].pool == n.meta.name
        assert o.results[0].node_selector["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [n.meta.name]
    # the node selectors are separate objects: a caller may change one
    assert got[1].results[0].node_selector is not got[2].results[0].node_selector


def test_state_that_tells_nodes_apart_is_computed_not_shared() -> None:
    nodes, slices = _fleet(4)
    claims = [claim("c", req("r"))]
    a = _allocator(slices)
    assert devices_of(a.allocate(nodes[0], claims, trace=False)) == [["gpu-0"]]
    first = a.allocate(nodes[1], claims, trace=False)
    a.commit(first.results)  # node-1's gpu-0 is now in use
    state = AllocatedState().add(first.results)
    for n in nodes:
        o = a.allocate(n, claims, trace=False)
        assert _answer(o) == _fresh(slices, n, claims, state)
    assert devices_of(a.allocate(nodes[1], claims, trace=False)) == [["gpu-1"]]
    assert devices_of(a.allocate(nodes[2], claims, trace=False)) == [["gpu-0"]]
    # a state given per call is looked at too
    busy = AllocatedState(devices=frozenset({"driver-a/node-3/gpu-0", "driver-a/node-3/gpu-1"}))
    assert devices_of(a.allocate(nodes[3], claims, trace=False, allocated=busy)) == [["gpu-2"]]


def test_nodes_whose_devices_differ_get_their_own_answers() -> None:
    def devices(i: int) -> list[dict[str, Any]]:
        small = "8Gi" if i % 2 else "24Gi"  # odd nodes: gpu-0 too small for the selector
        return [_gpu(0, small), *(_gpu(j) for j in range(1, 4))]

    nodes, slices = _fleet(4, devices)
    claims = [claim("c", req("r", "class-a", 1, MEM))]
    a = _allocator(slices)
    got = [devices_of(a.allocate(n, claims, trace=False)) for n in nodes]
    assert got == [[["gpu-0"]], [["gpu-1"]], [["gpu-0"]], [["gpu-1"]]]


def test_other_claims_and_step_limits_are_not_answered_from_the_kept_answer() -> None:
    nodes, slices = _fleet(3)
    one, two = [claim("c", req("r"))], [claim("c", req("r", "class-a", 2))]
    a = _allocator(slices)
    assert devices_of(a.allocate(nodes[0], one, trace=False)) == [["gpu-0"]]
    assert devices_of(a.allocate(nodes[1], two, trace=False)) == [["gpu-0", "gpu-1"]]
    limited = a.allocate(nodes[2], two, trace=False, max_steps=1)
    assert _answer(limited) == _answer(_allocator(slices).allocate(nodes[2], two, trace=False, max_steps=1))
    assert limited.status == "error"


def test_claims_changed_between_calls_are_not_answered_from_the_last_key() -> None:
    nodes, slices = _fleet(5)
    one, two = claim("c", req("r")), claim("d", req("r", "class-a", 2))
    a = _allocator(slices)
    claims = [one]
    for n in nodes[:2]:
        a.allocate(n, claims, trace=False)
    claims.append(two)  # the same list object, other claims
    got = a.allocate(nodes[2], claims, trace=False)
    assert _answer(got) == _fresh(slices, nodes[2], claims, AllocatedState())
    assert devices_of(got) == [["gpu-0"], ["gpu-1", "gpu-2"]]
    # tuples: each its own key
    for n in nodes[3:]:
        for claims_now in ((one,), (two,), (one, two)):
            got = a.allocate(n, claims_now, trace=False)
            assert _answer(got) == _fresh(slices, n, list(claims_now), AllocatedState())


def test_unallocatable_is_shared_and_errors_name_each_nodes_device() -> None:
    nodes, slices = _fleet(3)
    too_many = [claim("c", req("r", "class-a", 5))]
    a = _allocator(slices)
    for n in nodes:
        assert _answer(a.allocate(n, too_many, trace=False)) == _fresh(slices, n, too_many, AllocatedState())
    failing = [claim("c", req("r", "class-a", 1, 'device.attributes["driver-a"].missing == 1'))]
    errors = [a.allocate(n, failing, trace=False).error for n in nodes]
    assert all(
        e is not None and f"driver-a/{n.meta.name}/gpu-0" in e for e, n in zip(errors, nodes, strict=True)
    )


def test_multi_allocatable_devices_get_a_share_id_per_allocation() -> None:
    def devices(i: int) -> list[dict[str, Any]]:
        return [_gpu(0, allowMultipleAllocations=True)]

    nodes, slices = _fleet(3, devices)
    ids = (f"share-{i}" for i in itertools.count())
    a = _allocator(slices, share_ids=lambda: next(ids))
    got = [a.allocate(n, [claim("c", req("r"))], trace=False) for n in nodes]
    assert [o.results[0].results[0].share_id for o in got] == ["share-0", "share-1", "share-2"]


def test_what_has_no_shape() -> None:
    _, slices = _fleet(1)
    two_slices = slice_("x", [_gpu(5)], pool="node-0", node_name="node-0", count=2)
    other_driver_same_pool = slice_("y", [_gpu(6)], pool="node-0", node_name="node-0", driver="driver-b")
    by_label = slice_("z", [_gpu(7)], pool="node-0", node_name=None, nodeSelector={"nodeSelectorTerms": []})
    assert Shapes({"node-0": slices})._find(slices)[0] is not None
    assert Shapes({})._find([two_slices])[0] is None  # a pool of several slices
    assert Shapes({})._find([by_label])[0] is None  # not bound to the node by name
    assert Shapes({})._find([*slices, other_driver_same_pool])[0] is not None  # two drivers: fine
    same_driver = slice_("w", [_gpu(6)], pool="node-0b", node_name="node-0")
    assert Shapes({})._find([*slices, same_driver])[0] is None  # two pools of one driver
    # slices not bound to one node, stable: nothing is shared at all
    assert _allocator(slices)._shareable
    assert not _allocator([*slices, by_label])._shareable
    stable = Allocator([device_class()], slices, Features.from_mapping({}))
    assert stable.implementation == "stable" and not stable._shareable


# ---------------------------------------------------------------- property


@st.composite
def _variant(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 4))):
        extra: dict[str, Any] = {}
        if draw(st.integers(0, 4)) == 0:
            extra["taints"] = [{"key": "bad", "effect": "NoSchedule"}]
        if draw(st.integers(0, 5)) == 0:
            extra["allowMultipleAllocations"] = True
        out.append(
            dev(
                f"d{i}",
                attrs={"numa": draw(st.integers(0, 1)), "model": draw(st.sampled_from("ab"))},
                capacity={"memory": {"value": draw(st.sampled_from(["8Gi", "24Gi"]))}},
                **extra,
            )
        )
    return out


@st.composite
def _claims(draw: st.DrawFn) -> list[Any]:
    out = []
    for ci in range(draw(st.integers(1, 2))):
        reqs = []
        for ri in range(draw(st.integers(1, 2))):
            sel = draw(st.sampled_from([(), (MEM,), ('device.attributes["driver-a"].model == "a"',)]))
            extra = {"tolerations": [{"key": "bad", "operator": "Exists"}]} if draw(st.booleans()) else {}
            reqs.append(req(f"r{ri}", "class-a", draw(st.integers(1, 2)), *sel, **extra))
        cons = [{"matchAttribute": "driver-a/numa"}] if draw(st.booleans()) else None
        out.append(claim(f"c{ci}", *reqs, constraints=cons))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variants=st.lists(_variant(), min_size=1, max_size=2),
    picks=st.lists(st.integers(0, 1), min_size=3, max_size=6),
    claim_sets=st.lists(_claims(), min_size=1, max_size=2),
    calls=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1), st.booleans()), min_size=4, max_size=10),
)
def test_a_sharing_allocator_answers_like_a_fresh_one_per_node(
    variants: list[list[dict[str, Any]]],
    picks: list[int],
    claim_sets: list[list[Any]],
    calls: list[tuple[int, int, bool]],
) -> None:
    """Random fleets of a few device variants, calls in random node order with random
    claims, some committed: every answer equals a fresh Allocator's on the same state."""
    nodes, slices = _fleet(len(picks), lambda i: variants[picks[i] % len(variants)])
    a = _allocator(slices)
    state = AllocatedState()
    for ni, ci, commit in calls:
        n, claims = nodes[ni % len(nodes)], claim_sets[ci % len(claim_sets)]
        got = a.allocate(n, claims, trace=False)
        assert _answer(got) == _fresh(slices, n, claims, state)
        if commit and got.status == "allocated":
            a.commit(got.results)
            state = state.add(got.results)
