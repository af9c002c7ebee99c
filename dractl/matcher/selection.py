"""Selector evaluation for the matcher, with the caches that make it cheap.

Two caches, both owned by whoever creates them (nothing here is module state):

- :class:`CelPrograms` holds compiled selector programs (bounded, least recently used
  dropped first) and the CEL view of each device.  The Go allocator takes its CEL cache
  as an argument (``NewAllocator(..., celCache)``); so does :class:`Allocator`: pass one
  ``CelPrograms`` to many Allocators to share compilations, or let each make its own.
- :class:`SelectorCache` holds selector *results* for one Allocator (one cluster state),
  keyed by the expression and a *fingerprint* of what CEL can see of a device (driver,
  attributes, capacity, allowMultipleAllocations): nodes that publish identical devices
  share results.  Runtime errors are cached too and re-worded with the device they
  happened on.

``dractl.cel`` is imported lazily so the matcher imports without it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol

from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import Device

if TYPE_CHECKING:
    from dractl.cel.activation import DeviceActivationCache


class CompiledSelector(Protocol):
    def matches(self, device: Device, *, cost_limit: int = ...,
                activations: DeviceActivationCache | None = ...) -> bool: ...


class SelectorFailure(Exception):
    """A selector did not compile (``compile_error`` True) or failed at runtime."""

    def __init__(self, message: str, compile_error: bool) -> None:
        super().__init__(message)
        self.message = message
        self.compile_error = compile_error


class CelPrograms:
    """Compiled selectors (the allocator's "stored expression" environment) and converted
    devices, bounded; one per owner.  ``compiles`` counts cache misses (benchmarks)."""

    def __init__(self, max_programs: int = 4096, max_devices: int = 65536) -> None:
        self.max_programs = max_programs
        self.max_devices = max_devices
        self._programs: OrderedDict[str, CompiledSelector | CelCompileError] = OrderedDict()
        self._activations: Any = None
        self.compiles = 0

    @property
    def activations(self) -> DeviceActivationCache:
        if self._activations is None:
            from dractl.cel import DeviceActivationCache

            self._activations = DeviceActivationCache(self.max_devices)
        cache: DeviceActivationCache = self._activations
        return cache

    def compiled(self, expression: str) -> CompiledSelector:
        """The compiled selector; raises SelectorFailure for compile errors."""
        entry = self._programs.get(expression)
        if entry is None:
            from dractl.cel import compile_selector

            self.compiles += 1
            try:
                entry = compile_selector(expression, env="stored")
            except CelCompileError as err:
                entry = err
            self._programs[expression] = entry
            if len(self._programs) > self.max_programs:
                self._programs.popitem(last=False)
        else:
            self._programs.move_to_end(expression)
        if isinstance(entry, CelCompileError):
            raise SelectorFailure(entry.message, compile_error=True)
        return entry

    def clear(self) -> None:
        self._programs.clear()
        if self._activations is not None:
            self._activations.clear()

    def __len__(self) -> int:
        return len(self._programs)


def fingerprint(device: Device) -> Hashable:
    """What a selector can observe of a device; equal fingerprints, equal results."""
    try:
        key = (device.driver, device.allow_multiple_allocations, device.unknown_attributes,
               tuple(sorted(device.attributes.items())), tuple(sorted(device.capacity.items())))
        hash(key)
    except TypeError:  # an odd attribute value: don't share results for this device
        return ("id", id(device))
    return key


class SelectorCache:
    """Selector results per (expression, device fingerprint); programs come from ``programs``."""

    def __init__(self, features: Features, programs: CelPrograms | None = None) -> None:
        self.features = features
        self.programs = programs if programs is not None else CelPrograms()
        self._results: dict[tuple[str, int], bool | str] = {}
        self._prints: dict[int, tuple[Device, int]] = {}
        self._print_ids: dict[Hashable, int] = {}  # fingerprint -> small int (cheap cache keys)
        self.evaluations = 0

    def _print(self, device: Device) -> int:
        hit = self._prints.get(id(device))
        if hit is not None and hit[0] is device:
            return hit[1]
        fp = self._print_ids.setdefault(fingerprint(device), len(self._print_ids))
        self._prints[id(device)] = (device, fp)
        return fp

    def matches(self, expression: str, device: Device) -> bool:
        """Evaluate (or recall) ``expression`` on ``device``; raises SelectorFailure."""
        key = (expression, self._print(device))
        result = self._results.get(key)
        if result is None:
            result = self._evaluate(expression, device)
            self._results[key] = result
        if isinstance(result, str):
            raise SelectorFailure(result, compile_error=False)
        return result

    def _evaluate(self, expression: str, device: Device) -> bool | str:
        program = self.programs.compiled(expression)
        self.evaluations += 1
        try:
            return bool(program.matches(device, activations=self.programs.activations))
        except CelRuntimeError as err:
            return err.message
