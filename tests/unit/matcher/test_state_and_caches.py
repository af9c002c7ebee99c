"""The allocated state grows by results (capacity simulations), one Allocator serves a
changing state, and the CEL cache is an object the caller owns (no module state)."""

from __future__ import annotations

from matcher_builders import ALL, claim, dev, device_class, devices_of, node, req, slice_

from dractl.cel.cache import DEFAULT_CACHE, CelCache
from dractl.matcher import AllocatedState, Allocator
from dractl.matcher.api import FIXED_SHARE_ID
from dractl.model.features import Features

SHAREABLE = dev("shared", allowMultipleAllocations=True, capacity={"mem": {"value": "8Gi"}})


def _allocator(slices: list, **kw: object) -> Allocator:
    return Allocator([device_class()], slices, ALL, share_ids=lambda: FIXED_SHARE_ID, **kw)  # type: ignore[arg-type]


def test_add_counts_results_like_from_claims() -> None:
    a = _allocator([slice_("s", [dev("d0"), dev("d1"), SHAREABLE])])
    first = a.allocate(node(), [claim("c", req("r", count=2))])
    share = a.allocate(
        node(),
        [
            claim(
                "s",
                req(
                    "r",
                    "class-a",
                    1,
                    "device.allowMultipleAllocations == true",
                    capacity={"requests": {"mem": "2Gi"}},
                ),
            )
        ],
    )
    state = AllocatedState().add(first.results).add(share.results).add(share.results)
    assert state.devices == {"driver-a/pool-1/d0", "driver-a/pool-1/d1"}
    assert state.shares == {f"driver-a/pool-1/shared/{FIXED_SHARE_ID}"}
    assert str(state.capacity["driver-a/pool-1/shared"]["mem"]) == "4Gi"
    empty = AllocatedState()
    assert empty.add(()) == empty and empty.devices == frozenset()  # the original is unchanged


def test_add_leaves_admin_access_results_out() -> None:
    a = _allocator([slice_("s", [dev("d0")])])
    admin = a.allocate(node(), [claim("c", req("r", adminAccess=True))])
    assert admin.status == "allocated"
    assert AllocatedState().add(admin.results).devices == frozenset()


def test_one_allocator_serves_a_growing_state() -> None:
    a = _allocator([slice_("s", [dev("d0"), dev("d1")])])
    state = AllocatedState()
    picked = []
    for _ in range(3):
        out = a.allocate(node(), [claim("c", req("r"))], allocated=state)
        if out.status != "allocated":
            break
        picked.append(devices_of(out)[0][0])
        state = state.add(out.results)
    assert picked == ["d0", "d1"]
    # the Allocator's own state is untouched by per-call states
    assert devices_of(a.allocate(node(), [claim("c", req("r"))])) == [["d0"]]


def test_cel_cache_is_passed_in_and_can_be_shared() -> None:
    cache = CelCache()
    slices = [slice_("s", [dev("d0", attrs={"n": 1}), dev("d1", attrs={"n": 2})])]
    claims = [claim("c", req("r", "class-a", 1, 'device.attributes["driver-a"].n == 2'))]
    for _ in range(2):
        out = Allocator([device_class()], slices, ALL, cel_cache=cache).allocate(node(), claims)
        assert devices_of(out) == [["d1"]]
    assert cache.misses == 1 and len(cache) == 1  # compiled once for both Allocators
    assert len(cache.activations) == 2  # both devices converted in this cache
    other = CelCache()
    Allocator([device_class()], slices, ALL, cel_cache=other).allocate(node(), claims)
    assert other.misses == 1  # a fresh cache is cold: nothing leaks between caches
    assert Allocator([device_class()], slices, Features.for_version("1.37")).cel_cache is DEFAULT_CACHE
