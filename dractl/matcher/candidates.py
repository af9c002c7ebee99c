"""Candidates: the devices of usable pools, flattened in the allocator's search order.

Pools in gather order, slices by name, devices as listed.  A candidate's index is
its position in that order; "start after candidate i" is how the search only
tries combinations (not permutations) of devices within one request.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import attrgetter

from dractl.matcher.pools import MULTI, Pool
from dractl.matcher.taints import EffectiveTaint, own_taints
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
            self.no_policy = not any(map(_policy, self.device.capacity.values()))
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
    prefix = f"{pool.driver}/{pool.name}/"
    idx = start
    for s in pool.slices:
        per_device = bool(s.per_device_node_selection)
        if _plain(s.devices, multi_allowed, rules):  # one pass, no per-device tests
            out += _plain_cands(s.devices, idx, s, pool, prefix, per_device)
        else:
            out += _checked_cands(
                s.devices, idx, s, pool, prefix, per_device, taints_of, multi_allowed, rules
            )
        idx += len(s.devices)
    return out


def _plain(devices: Sequence[Device], multi_allowed: bool, rules: bool) -> bool:
    """Whether a slice's devices need no test of their own: no DeviceTaintRules apply, no
    device has taints, none is multi-allocatable (the common slice)."""
    if rules:
        return False
    for d in devices:  # noqa: SIM110 - one loop: ~2x any() over attrgetter maps (Python 3.11)
        if d.taints or (multi_allowed and d.allow_multiple_allocations):
            return False
    return True


def _waits(pool: Pool, sl: ResourceSlice, multi_allowed: bool, rules: bool) -> bool:
    """Whether a slice's candidates can wait to be made (:class:`Flat`): no DeviceTaintRules
    apply and no device of it is multi-allocatable, as gathering the pool saw its devices
    (``Pool.slice_flags``); a device's own taints are looked up when it is made.  A slice
    gathering did not see: :func:`_plain`."""
    flags = pool.slice_flags.get(id(sl))
    if flags is None or rules:
        return _plain(sl.devices, multi_allowed, rules)
    return not (multi_allowed and flags & MULTI)


def _plain_cands(
    devices: Sequence[Device], start: int, sl: ResourceSlice, pool: Pool, prefix: str, per_device: bool
) -> list[Candidate]:
    """The candidates of a :func:`_plain` slice's ``devices``, numbered from ``start``."""
    return [
        Candidate(i, d, sl, pool, (), False, prefix + d.name, per_device)
        for i, d in enumerate(devices, start)
    ]


def _checked_cands(
    devices: Sequence[Device],
    start: int,
    sl: ResourceSlice,
    pool: Pool,
    prefix: str,
    per_device: bool,
    taints_of: Callable[[Device], tuple[EffectiveTaint, ...]],
    multi_allowed: bool,
    rules: bool,
) -> list[Candidate]:
    """The candidates of any slice's ``devices``, numbered from ``start``: each device's taints
    (``taints_of``, in device order) and whether it is multi-allocatable."""
    out = []
    for i, d in enumerate(devices, start):
        multi = multi_allowed and d.allow_multiple_allocations is True
        taints = taints_of(d) if rules or d.taints else ()
        out.append(Candidate(i, d, sl, pool, taints, multi, prefix + d.name, per_device))
    return out


_policy = attrgetter("request_policy")


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


_CHUNK = 8  # candidates Flat.get makes at once


class Flat:
    """A node's candidates in search order (:func:`flatten`'s answer), each made when first
    asked for.  ``cands[i]`` is the candidate at search position ``i`` or None until
    :meth:`get` makes it: devices of slices with nothing multi-allocatable wait when no
    DeviceTaintRules apply (a waiting device's taints are its own, :func:`own_taints`, made
    when it is made: what ``taints_of`` answers without rules); every other candidate, and every
    candidate of an unusable pool, is made at once, as :func:`flatten` makes them
    (``taints_of`` is called in the same order).  A search that stops early never makes the
    rest (a node of 64 partitions asked for one device looks at 8)."""

    __slots__ = ("_by_pool", "_made", "_pools", "_segments", "_starts", "any_multi", "cands")

    def __init__(
        self,
        pools: list[Pool],
        taints_of: Callable[[Device], tuple[EffectiveTaint, ...]],
        multi_allowed: bool,
        rules: bool = True,
    ) -> None:
        cands: list[Candidate | None] = []
        segments: list[tuple[int, Pool, ResourceSlice, str, bool]] = []
        unusable: dict[int, list[Candidate]] = {}  # pool position -> its candidates
        any_multi = False
        for i, pool in enumerate(pools):
            if pool.incomplete or pool.invalid:
                unusable[i] = of_pool(pool, len(cands), taints_of, multi_allowed, rules)
                continue
            prefix = f"{pool.driver}/{pool.name}/"
            for sl in pool.slices:
                devices = sl.devices
                per_device = bool(sl.per_device_node_selection)
                if _waits(pool, sl, multi_allowed, rules):
                    segments.append((len(cands), pool, sl, prefix, per_device))
                    cands += [None] * len(devices)
                    continue
                made = _checked_cands(
                    devices, len(cands), sl, pool, prefix, per_device, taints_of, multi_allowed, rules
                )
                any_multi = any_multi or any(c.allow_multi for c in made)
                cands += made
        self.cands = cands
        self.any_multi = any_multi
        self._pools = (pools, unusable)
        self._segments = segments
        self._starts = [seg[0] for seg in segments]
        self._made = not segments
        self._by_pool: dict[str, list[Candidate]] | None = None

    def get(self, idx: int) -> Candidate:
        """The candidate at search position ``idx`` (made now if it was waiting)."""
        hit = self.cands[idx]
        if hit is not None:
            return hit
        segment = self._segments[bisect_right(self._starts, idx) - 1]
        # the next few too, in one comprehension: a scan that goes on asks for them next
        self._fill(segment, idx, min(idx + _CHUNK, segment[0] + len(segment[2].devices)))
        return self.cands[idx]  # type: ignore[return-value]  # made just now

    def all(self) -> list[Candidate]:
        """Every search candidate (the waiting ones made now), in search order."""
        if not self._made:
            for segment in self._segments:  # one pass per slice
                self._fill(segment, segment[0], segment[0] + len(segment[2].devices))
            self._made = True
        return self.cands  # type: ignore[return-value]  # no None left

    def _fill(self, segment: tuple[int, Pool, ResourceSlice, str, bool], lo: int, hi: int) -> None:
        """Make the waiting candidates at search positions ``lo``…``hi - 1`` of ``segment``
        (a plain slice's run of positions); those already made stay."""
        start, pool, sl, prefix, per_device = segment
        cands = self.cands
        cands[lo:hi] = [
            c
            or Candidate(
                i, d, sl, pool, own_taints(d) if d.taints else (), False, prefix + d.name, per_device
            )
            for i, d, c in zip(range(lo, hi), sl.devices[lo - start : hi - start], cands[lo:hi], strict=True)
        ]

    def by_pool(self) -> dict[str, list[Candidate]]:
        """Every pool's candidates by pool id, unusable pools included (as :func:`flatten`)."""
        if self._by_pool is None:
            search = self.all()
            pools, unusable = self._pools
            out: dict[str, list[Candidate]] = {}
            at = 0
            for i, pool in enumerate(pools):
                made = unusable.get(i)
                if made is None:
                    n = sum(len(sl.devices) for sl in pool.slices)
                    made = search[at : at + n]
                    at += n
                out[pool.id] = made
            self._by_pool = out
        return self._by_pool


class ByPool(Mapping[str, list[Candidate]]):
    """:meth:`Flat.by_pool`, made when first read (only "All" requests read it)."""

    __slots__ = ("_flat",)

    def __init__(self, flat: Flat) -> None:
        self._flat = flat

    def __getitem__(self, key: str) -> list[Candidate]:
        return self._flat.by_pool()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._flat.by_pool())

    def __len__(self) -> int:
        return len(self._flat.by_pool())
