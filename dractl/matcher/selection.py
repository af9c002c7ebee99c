"""Selector evaluation for the matcher, with the caches that make it cheap.

Compiled programs are cached process-wide per (expression, features).  Results
are cached per :class:`SelectorCache` (one per Allocator, i.e. per scheduling
cycle) keyed by the expression and a *fingerprint* of what CEL can see of a
device (driver, attributes, capacity, allowMultipleAllocations): nodes that
publish identical devices share results.  Runtime errors are cached too and
re-worded with the device they happened on.

``dractl.cel`` is imported lazily so the matcher imports without it.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import Device


class CompiledSelector(Protocol):
    def matches(self, device: Device, *, cost_limit: int = ...) -> bool: ...


class SelectorFailure(Exception):
    """A selector did not compile (``compile_error`` True) or failed at runtime."""

    def __init__(self, message: str, compile_error: bool) -> None:
        super().__init__(message)
        self.message = message
        self.compile_error = compile_error


_COMPILED: dict[tuple[str, Features], CompiledSelector | CelCompileError] = {}


def compiled(expression: str, features: Features) -> CompiledSelector:
    """The compiled selector (cached); raises SelectorFailure for compile errors."""
    key = (expression, features)
    entry = _COMPILED.get(key)
    if entry is None:
        from dractl.cel import compile_selector

        try:
            entry = compile_selector(expression, env="stored", features=features)
        except CelCompileError as err:
            entry = err
        _COMPILED[key] = entry
    if isinstance(entry, CelCompileError):
        raise SelectorFailure(entry.message, compile_error=True)
    return entry


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
    """Selector results per (expression, device fingerprint)."""

    def __init__(self, features: Features) -> None:
        self.features = features
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
        program = compiled(expression, self.features)
        self.evaluations += 1
        try:
            return bool(program.matches(device))
        except CelRuntimeError as err:
            return err.message
