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

from collections.abc import Hashable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.objects import Device

if TYPE_CHECKING:
    from dractl.cel.cache import CelCache
    from dractl.cel.program import DeviceReads


class SelectorFailure(Exception):
    """A selector did not compile (``compile_error`` True) or failed at runtime."""

    def __init__(self, message: str, compile_error: bool) -> None:
        super().__init__(message)
        self.message = message
        self.compile_error = compile_error


class SelectorFailureAt(Exception):
    """:meth:`SelectorCache.first_false`: selector ``index`` failed with ``failure``."""

    def __init__(self, index: int, failure: SelectorFailure) -> None:
        super().__init__(failure.message)
        self.index = index
        self.failure = failure


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


def _attrs(device: Device) -> tuple[tuple[str, str, Any], ...]:
    return tuple(sorted((k, a.kind, a.value) for k, a in device.attributes.items()))


def _caps(device: Device) -> tuple[tuple[str, int, int, str], ...]:
    return tuple(
        sorted((k, c.value.unscaled, c.value.scale, c.value.format) for k, c in device.capacity.items())
    )


# One step of a read plan: what one read of an expression (see
# :func:`dractl.cel.program.device_reads`) observes of a device.  An expression that reads only
# those can observe of a device what the steps observe, plus the driver (short attribute names
# resolve against it) and whether the device converts for CEL at all (:func:`convert_print`):
# equal prints, equal results.
_ATTR, _CAP, _MULTI, _ATTRS, _CAPS = range(5)  # one entry first: the usual reads
_Plan = tuple[tuple[Any, ...], ...]


def _plan(reads: DeviceReads) -> _Plan:
    """``reads`` as steps for :func:`_read_values`, in a fixed order (the driver is in every
    print's base, so it has no step)."""
    steps: list[tuple[Any, ...]] = []
    for r in sorted(reads):
        if r == ("allowMultipleAllocations",):
            steps.append((_MULTI,))
        elif r == ("attributes",):
            steps.append((_ATTRS,))
        elif r == ("capacity",):
            steps.append((_CAPS,))
        elif len(r) == 3 and r[0] in ("attributes", "capacity"):
            steps.append((_ATTR if r[0] == "attributes" else _CAP, r[1], r[2], f"{r[1]}/{r[2]}"))
    return tuple(steps)


def _read_values(device: Device, plan: _Plan, hide_multi: bool) -> list[Hashable]:
    """What each step of ``plan`` observes of ``device`` (a list: the caller makes the key)."""
    out: list[Hashable] = []
    for step in plan:
        op = step[0]
        if op <= _CAP:  # _ATTR or _CAP
            items: Mapping[str, Any] = device.attributes if op == _ATTR else device.capacity
            qualified = items.get(step[3])
            short = items.get(step[2]) if step[1] == device.driver else None
            if qualified is not None and short is not None:  # both spellings: every entry, in order
                out.append(tuple((k, repr(v)) for k, v in items.items() if k in (step[3], step[2])))
                continue
            v = qualified if qualified is not None else short
            if v is None:
                out.append(None)
            elif op == _ATTR:
                out.append((v.kind, v.value))
            else:
                q = v.value
                out.append((q.unscaled, q.scale, q.format))
        elif op == _MULTI:
            out.append(None if hide_multi else device.allow_multiple_allocations)
        elif op == _ATTRS:
            out.append(_attrs(device))
        else:
            out.append(_caps(device))
    return out


_VERSION_KINDS = frozenset({"version", "versions"})


def convert_print(device: Device) -> Hashable:
    """The driver, and what decides whether the device converts for CEL at all (unknown
    attributes, version attributes): part of every print."""
    versions = [(k, a.value) for k, a in device.attributes.items() if a.kind in _VERSION_KINDS]
    return (device.driver, device.unknown_attributes, tuple(versions))


def split_name(name: str, driver: str) -> tuple[str, str]:
    """Domain and id of a qualified attribute/capacity name (the driver is the default
    domain), as the CEL conversion of a device splits them."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


class SelectorCache:
    """Selector results per (expression, device print); programs and converted devices
    come from ``cel``.  The print is what the expression can read of the device (its
    ``device_reads``: e.g. ``device.driver == "x"`` sees the driver only, so devices that differ
    in attributes share its result), else the whole :func:`fingerprint`.
    ``hide_multi``: evaluate as the stable allocator does, which does not
    pass allowMultipleAllocations to CEL (``device.allowMultipleAllocations`` reads false)."""

    def __init__(self, features: Features, cel: CelCache | None = None, *, hide_multi: bool = False) -> None:
        self.features = features
        self.cel = cel if cel is not None else default_cel_cache()
        self.hide_multi = hide_multi
        self._results: dict[tuple[str, int], bool | str] = {}
        self._prints: dict[tuple[int, bool, int], tuple[Device, int, Device]] = {}
        self._print_ids: dict[Hashable, int] = {}  # print -> small int (cheap cache keys)
        # id(device) -> (device, the small int of its convert_print): shared by every expression
        self._bases: dict[int, tuple[Device, int | None]] = {}
        self._base_ids: dict[Hashable, int] = {}
        # expression -> (id of its reads, its reads (None: the whole device), their read plan)
        self._reads: dict[str, tuple[int, DeviceReads | None, _Plan]] = {}
        self._read_ids: dict[DeviceReads | None, int] = {}
        self.evaluations = 0

    def _reads_of(self, expression: str) -> tuple[int, DeviceReads | None, _Plan]:
        hit = self._reads.get(expression)
        if hit is None:
            try:
                program = self.cel.compile(expression, "stored")
            except CelCompileError as err:  # not remembered: every call reports it
                raise SelectorFailure(err.message, compile_error=True) from None
            reads = program.device_reads
            read_id = self._read_ids.setdefault(reads, len(self._read_ids))
            hit = self._reads[expression] = (read_id, reads, () if reads is None else _plan(reads))
        return hit

    def _print(
        self, device: Device, hide: bool, read_id: int, reads: DeviceReads | None, plan: _Plan
    ) -> tuple[int, Device]:
        """(print id, the device as CEL sees it).  The print of an expression that reads only
        ``reads``: its read id, the id of the device's :func:`convert_print` and what each read
        observes (:func:`read_print`, with small ints for the parts every device has)."""
        hit = self._prints.get((id(device), hide, read_id))
        if hit is not None and hit[0] is device:
            return hit[1], hit[2]
        if reads is None:
            key = fingerprint(device, hide)
        else:
            known = self._bases.get(id(device))  # shared by every expression on the device
            if known is None or known[0] is not device:
                known = self._bases[id(device)] = (device, self._base_id(device))
            try:
                if known[1] is None:
                    raise TypeError
                key = (read_id, known[1], *_read_values(device, plan, hide)) if plan else (read_id, known[1])
                hash(key)
            except TypeError:  # an odd attribute value: don't share results for this device
                key = ("id", id(device))
        fp = self._print_ids.setdefault(key, len(self._print_ids))
        seen = (
            replace(device, allow_multiple_allocations=None)
            if hide and device.allow_multiple_allocations is not None
            else device
        )
        self._prints[(id(device), hide, read_id)] = (device, fp, seen)
        return fp, seen

    def _base_id(self, device: Device) -> int | None:
        """The small int of the device's :func:`convert_print`; None when that is not hashable
        (an odd version value: then no result is shared for the device)."""
        try:
            return self._base_ids.setdefault(convert_print(device), len(self._base_ids))
        except TypeError:
            return None

    def matches(self, expression: str, device: Device, *, hide_multi: bool | None = None) -> bool:
        """Evaluate (or recall) ``expression`` on ``device``; raises SelectorFailure."""
        read_id, reads, plan = self._reads_of(expression)
        fp, seen = self._print(
            device, self.hide_multi if hide_multi is None else hide_multi, read_id, reads, plan
        )
        key = (expression, fp)
        result = self._results.get(key)
        if result is None:
            result = self._evaluate(expression, seen)
            self._results[key] = result
        if isinstance(result, str):
            raise SelectorFailure(result, compile_error=False)
        return result

    def first_false(self, expressions: tuple[str, ...], device: Device) -> int:
        """The index of the first of ``expressions`` that is false on ``device``, -1 when all
        are true: :meth:`matches` in turn, in one call (the allocator's hot path).  Raises
        :class:`SelectorFailureAt` (the index, and the failure :meth:`matches` raises)."""
        hide = self.hide_multi
        reads_of, prints, results = self._reads, self._prints, self._results
        did = id(device)
        for i, expression in enumerate(expressions):
            try:
                hit = reads_of.get(expression)
                read_id, reads, plan = hit if hit is not None else self._reads_of(expression)
                known = prints.get((did, hide, read_id))
                if known is not None and known[0] is device:
                    fp, seen = known[1], known[2]
                else:
                    fp, seen = self._print(device, hide, read_id, reads, plan)
                key = (expression, fp)
                result = results.get(key)
                if result is None:
                    result = results[key] = self._evaluate(expression, seen)
            except SelectorFailure as fail:
                raise SelectorFailureAt(i, fail) from None
            if result is True:
                continue
            if result is False:
                return i
            raise SelectorFailureAt(i, SelectorFailure(result, compile_error=False))
        return -1

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
