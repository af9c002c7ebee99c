"""Candidates: the devices of usable pools, flattened in the allocator's search order.

Pools in gather order, slices by name, devices as listed.  A candidate's index is
its position in that order; "start after candidate i" is how the search only
tries combinations (not permutations) of devices within one request.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from dractl.matcher.pools import Pool
from dractl.matcher.taints import EffectiveTaint
from dractl.model.objects import Device, ResourceSlice


class Candidate:
    """One device as the search sees it (slots only: this is the hot path)."""

    __slots__ = ("allow_multi", "device", "id", "idx", "no_policy", "per_device", "pool", "slice", "taints")

    def __init__(
        self,
        idx: int,
        device: Device,
        slice_: ResourceSlice,
        pool: Pool,
        taints: tuple[EffectiveTaint, ...],
        allow_multi: bool,
        device_id: str,
        per_device: bool,
    ) -> None:
        self.idx = idx
        self.device = device
        self.slice = slice_
        self.pool = pool
        self.id = device_id  # driver/pool/device
        self.per_device = per_device  # the slice has perDeviceNodeSelection
        self.taints = taints
        self.allow_multi = allow_multi
        # no capacity of the device has a request policy (the common case: capacity checks
        # of a request without capacity asks reduce to "nothing else consumes it"); None:
        # not looked at yet (see has_no_policy)
        self.no_policy: bool | None = None

    def has_no_policy(self) -> bool:
        """Whether no capacity of the device has a request policy (computed once)."""
        if self.no_policy is None:
            self.no_policy = all(c.request_policy is None for c in self.device.capacity.values())
        return self.no_policy


def of_pool(
    pool: Pool,
    start: int,
    taints_of: Callable[[Device], tuple[EffectiveTaint, ...]],
    multi_allowed: bool,
    rules: bool = True,
) -> list[Candidate]:
    """The pool's candidates numbered from ``start`` (all of them, even unusable
    pools: "All" requests look at those too).  ``rules`` False: no DeviceTaintRules apply,
    so a device without taints of its own has none (``taints_of`` is not asked)."""
    out: list[Candidate] = []
    append = out.append
    prefix = f"{pool.driver}/{pool.name}/"
    idx = start
    for s in pool.slices:
        per_device = bool(s.per_device_node_selection)
        devices = s.devices
        if not rules and not (multi_allowed and any(map(_multi, devices))) and not any(map(_taints, devices)):
            # the common slice: no taints, nothing multi-allocatable (one pass, no per-device tests)
            out += [
                Candidate(i, d, s, pool, (), False, prefix + d.name, per_device)
                for i, d in enumerate(devices, idx)
            ]
            idx += len(devices)
            continue
        for d in devices:
            multi = multi_allowed and d.allow_multiple_allocations is True
            taints = taints_of(d) if rules or d.taints else ()
            append(Candidate(idx, d, s, pool, taints, multi, prefix + d.name, per_device))
            idx += 1
    return out


_multi = attrgetter("allow_multiple_allocations")
_taints = attrgetter("taints")


def flatten(
    pools: list[Pool],
    taints_of: Callable[[Device], tuple[EffectiveTaint, ...]],
    multi_allowed: bool,
    rules: bool = True,
) -> tuple[list[Candidate], dict[str, list[Candidate]]]:
    """(search candidates from complete, valid pools; every pool's devices by pool id);
    ``rules`` as for :func:`of_pool`."""
    search: list[Candidate] = []
    by_pool: dict[str, list[Candidate]] = {}
    for pool in pools:
        usable = not (pool.incomplete or pool.invalid)
        cands = of_pool(pool, len(search), taints_of, multi_allowed, rules)
        by_pool[pool.id] = cands
        if usable:
            search.extend(cands)
    return search, by_pool
