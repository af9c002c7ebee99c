"""The best-fit score computed through a CounterIndex (one pass, ints where whole) equals its
definition written plainly (every counter set scanned over every device, Fractions), on
random partitionable pools with random busy and chosen devices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.explain import scoring
from dractl.model import objects as o
from dractl.model.build import build_object


def _plain_stranded(
    slices: Sequence[o.ResourceSlice],
    devices: Mapping[str, o.Device],
    busy: AbstractSet[str],
    chosen: AbstractSet[str],
) -> int:
    taken = {i for i in devices if i in busy or i in chosen}
    stranded = 0
    for pool, cset in sorted(scoring.counter_sets(devices[i] for i in taken)):
        users = [
            d
            for d in devices.values()
            if f"{d.driver}/{d.pool}" == pool and any(c.counter_set == cset for c in d.consumes_counters)
        ]
        left = scoring.counters_left(slices, pool, cset, [d for d in users if d.id in taken])
        free_users = [d for d in users if d.id not in taken]
        for counter, amount in left.items():
            if amount > 0 and not any(
                scoring.fits(d, cset, left) and scoring.uses(d, cset, counter) for d in free_users
            ):
                stranded += 1
    return stranded


def _plain_fresh(devices: Mapping[str, o.Device], busy: AbstractSet[str], chosen: AbstractSet[str]) -> int:
    before = scoring.counter_sets(d for d in devices.values() if d.id in busy)
    return len(scoring.counter_sets(devices[i] for i in chosen if i in devices) - before)


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[Any], dict[str, Any], set[str], set[str]]:
    slices: list[Any] = []
    for p in range(draw(st.integers(1, 2))):
        n_sets = draw(st.integers(1, 3))
        sets = [
            {
                "name": f"s{k}",
                "counters": {
                    c: {"value": draw(st.sampled_from(["1", "2", "3", "1.5", "4"]))} for c in ("a", "b")
                },
            }
            for k in range(n_sets)
        ]
        devices = []
        for i in range(draw(st.integers(1, 6))):
            uses = [
                {
                    "counterSet": f"s{draw(st.integers(0, n_sets))}",  # sometimes a set that is not there
                    "counters": {
                        c: {"value": draw(st.sampled_from(["0.5", "1", "2"]))}
                        for c in draw(st.sampled_from([("a",), ("b",), ("a", "b"), ("c",)]))
                    },
                }
                for _ in range(draw(st.integers(0, 2)))
            ]
            devices.append({"name": f"d{i}", **({"consumesCounters": uses} if uses else {})})
        spec = {
            "driver": "x.example.com",
            "nodeName": "n",
            "pool": {"name": f"p{p}", "generation": 1, "resourceSliceCount": 1},
        }
        slices.append(
            build_object(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceSlice",
                    "metadata": {"name": f"p{p}"},
                    "spec": {**spec, "sharedCounters": sets, "devices": devices},
                }
            )
        )
    devs = {d.id: d for s in slices for d in s.devices}
    ids = sorted(devs)
    busy = set(draw(st.lists(st.sampled_from(ids), max_size=4)))
    chosen = set(draw(st.lists(st.sampled_from(ids), max_size=3)))
    return slices, devs, busy, chosen


@settings(max_examples=300, deadline=None)
@given(pools())
def test_indexed_score_equals_its_plain_definition(
    case: tuple[list[Any], dict[str, Any], set[str], set[str]],
) -> None:
    slices, devices, busy, chosen = case
    want = (_plain_fresh(devices, busy, chosen), 0, _plain_stranded(slices, devices, busy, chosen))
    assert scoring.score(slices, devices, busy, chosen, []) == want
    index = scoring.CounterIndex(slices, devices)
    assert scoring.score(slices, devices, busy, chosen, [], index) == want
    assert scoring.score(slices, devices, busy, chosen, [], index) == want  # from what the index kept
    # one index scoring other states in turn (what it keeps per set is for the busy devices seen)
    for b, c in ((chosen, busy), (busy | chosen, set()), (set(), busy), (busy, chosen)):
        plain = (_plain_fresh(devices, b, c), 0, _plain_stranded(slices, devices, b, c))
        assert scoring.score(slices, devices, b, c, [], index) == plain
    # the two parts written separately (explain's definitions) agree with the one pass
    assert scoring.fresh_counter_sets(devices, busy, chosen, index) == want[0]
    assert scoring.stranded_counters(slices, devices, busy, chosen, index) == want[2]
