"""Memoised (selector, device) results for cluster-wide runs.

A :class:`MatchCache` belongs to one run: it converts each device once and remembers each
(selector, device) outcome, errors included.  Call :meth:`MatchCache.reset` (or make a new one)
to measure or evaluate from scratch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.cel.activation import DeviceActivationCache
from dractl.cel.selector import DEFAULT_COST_LIMIT, Selector
from dractl.errors import CelRuntimeError

if TYPE_CHECKING:  # the model classes load only where objects are built
    from dractl.model.objects import Device


class MatchCache:
    def __init__(self) -> None:
        self.activations = DeviceActivationCache(max_entries=1 << 20)
        # the selector and device are kept so that their ids stay unique while cached
        self._results: dict[tuple[int, int], tuple[Selector, Device, bool | CelRuntimeError]] = {}

    def matches(self, selector: Selector, device: Device, *, cost_limit: int = DEFAULT_COST_LIMIT) -> bool:
        key = (id(selector), id(device))
        hit = self._results.get(key)
        if hit is None or hit[0] is not selector or hit[1] is not device:
            try:
                value: bool | CelRuntimeError = selector.matches(
                    device, cost_limit=cost_limit, activations=self.activations
                )
            except CelRuntimeError as e:
                value = e
            hit = (selector, device, value)
            self._results[key] = hit
        value = hit[2]
        if isinstance(value, CelRuntimeError):
            raise CelRuntimeError(value.message)
        return value

    def reset(self) -> None:
        self._results.clear()
        self.activations.clear()

    def __len__(self) -> int:
        return len(self._results)
