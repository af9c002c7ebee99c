"""Shared counters (DRAPartitionableDevices): what is left in each counter set.

``available`` is computed once per pool from the counter sets minus what committed
allocations consume (it may go negative: then nothing fits).  ``CounterBook``
tracks what in-flight devices consume; ``reserve`` either takes a device's
counters or leaves the book untouched, and ``release`` gives them back.
"""

from __future__ import annotations

from collections.abc import Callable

from dractl.matcher.pools import CounterSets, Pool, exact
from dractl.model.objects import Device


def available(pool: Pool, is_allocated: Callable[[str], bool]) -> CounterSets:
    """Counter totals minus the consumption of committed allocations in the whole pool."""
    left = {name: dict(counters) for name, counters in pool.counter_sets.items()}
    for s in (*pool.slices, *pool.other_slices):
        for d in s.devices:
            if not d.consumes_counters or not is_allocated(f"{s.driver}/{s.pool.name}/{d.name}"):
                continue
            for use in d.consumes_counters:
                counters = left.get(use.counter_set, {})
                for name, q in use.counters.items():
                    if name in counters:
                        counters[name] -= exact(q)
    return left


class CounterBook:
    """In-flight counter consumption, per pool name and counter set.  Kubernetes keys its
    counter bookkeeping by the pool's name alone (not the driver), so pools of two drivers
    that share a name share their counters; so does dractl."""

    def __init__(self, available_for: Callable[[Pool], CounterSets]) -> None:
        self._available_for = available_for
        self._used: dict[str, CounterSets] = {}

    def reserve(self, pool: Pool, device: Device) -> bool:
        """Take the device's counters if every counter of the pool stays within what
        is available; otherwise change nothing and return False."""
        self._apply(pool, device, 1)
        used = self._used[pool.name]
        for set_name, counters in self._available_for(pool).items():
            taken = used.get(set_name, {})
            for name, left in counters.items():
                if left < taken.get(name, 0):
                    self._apply(pool, device, -1)
                    return False
        return True

    def release(self, pool: Pool, device: Device) -> None:
        self._apply(pool, device, -1)

    def _apply(self, pool: Pool, device: Device, sign: int) -> None:
        used = self._used.setdefault(pool.name, {})
        for use in device.consumes_counters:
            counters = used.setdefault(use.counter_set, {})
            for name, q in use.counters.items():
                counters[name] = counters.get(name, 0) + sign * exact(q)
