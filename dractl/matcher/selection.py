"""Selector evaluation for the matcher, with the caches that make it cheap.

Two caches, both owned by whoever creates them (nothing here is module state):

- a :class:`dractl.cel.cache.CelCache` holds compiled selector programs and the CEL view
  of each device (both bounded).  The Go allocator takes its CEL cache as an argument
  (``NewAllocator(..., celCache)``); so does :class:`Allocator` (``cel_cache``): pass a
  fresh one for a cold run, one shared cache for many Allocators; None means dractl.cel's
  bounded process default.
- :class:`SelectorCache` holds selector *results* for one Allocator (one cluster state),
  keyed by the expression and a *fingerprint* of what CEL can see of a device (driver,
  attributes, capacity, allowMultipleAllocations): nodes that publish identical devices
  share results.  Runtime errors are cached too and re-worded with the device they
  happened on.

``dractl.cel`` is imported lazily so the matcher imports without it.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import TYPE_CHECKING

from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import Device

if TYPE_CHECKING:
    from dractl.cel.cache import CelCache


class SelectorFailure(Exception):
    """A selector did not compile (``compile_error`` True) or failed at runtime."""

    def __init__(self, message: str, compile_error: bool) -> None:
        super().__init__(message)
        self.message = message
        self.compile_error = compile_error


def default_cel_cache() -> CelCache:
    """dractl.cel's process default (bounded), for callers that pass no cache."""
    from dractl.cel.cache import DEFAULT_CACHE

    return DEFAULT_CACHE


def fingerprint(device: Device, hide_multi: bool = False) -> Hashable:
    """What a selector can observe of a device; equal fingerprints, equal results.
    ``hide_multi``: allowMultipleAllocations is not passed to CEL (it reads false)."""
    try:
        key = (
            device.driver,
            None if hide_multi else device.allow_multiple_allocations,
            device.unknown_attributes,
            tuple(sorted((k, a.kind, a.value) for k, a in device.attributes.items())),
            tuple(
                sorted(
                    (k, c.value.unscaled, c.value.scale, c.value.format) for k, c in device.capacity.items()
                )
            ),
        )
        hash(key)
    except TypeError:  # an odd attribute value: don't share results for this device
        return ("id", id(device))
    return key


class SelectorCache:
    """Selector results per (expression, device fingerprint); programs and converted devices
    come from ``cel``.  ``hide_multi``: evaluate as the stable allocator does, which does not
    pass allowMultipleAllocations to CEL (``device.allowMultipleAllocations`` reads false)."""

    def __init__(self, features: Features, cel: CelCache | None = None, *, hide_multi: bool = False) -> None:
        self.features = features
        self.cel = cel if cel is not None else default_cel_cache()
        self.hide_multi = hide_multi
        self._results: dict[tuple[str, int], bool | str] = {}
        self._prints: dict[tuple[int, bool], tuple[Device, int, Device]] = {}
        self._print_ids: dict[Hashable, int] = {}  # fingerprint -> small int (cheap cache keys)
        self.evaluations = 0

    def _print(self, device: Device, hide: bool) -> tuple[int, Device]:
        """(fingerprint id, the device as CEL sees it)."""
        hit = self._prints.get((id(device), hide))
        if hit is not None and hit[0] is device:
            return hit[1], hit[2]
        fp = self._print_ids.setdefault(fingerprint(device, hide), len(self._print_ids))
        seen = (
            replace(device, allow_multiple_allocations=None)
            if hide and device.allow_multiple_allocations is not None
            else device
        )
        self._prints[(id(device), hide)] = (device, fp, seen)
        return fp, seen

    def matches(self, expression: str, device: Device, *, hide_multi: bool | None = None) -> bool:
        """Evaluate (or recall) ``expression`` on ``device``; raises SelectorFailure."""
        fp, seen = self._print(device, self.hide_multi if hide_multi is None else hide_multi)
        key = (expression, fp)
        result = self._results.get(key)
        if result is None:
            result = self._evaluate(expression, seen)
            self._results[key] = result
        if isinstance(result, str):
            raise SelectorFailure(result, compile_error=False)
        return result

    def _evaluate(self, expression: str, device: Device) -> bool | str:
        try:
            program = self.cel.compile(expression, "stored")
        except CelCompileError as err:
            raise SelectorFailure(err.message, compile_error=True) from None
        self.evaluations += 1
        try:
            return bool(self.cel.matches(program, device))
        except CelRuntimeError as err:
            return err.message
