"""Selector evaluation for the matcher, with the caches that make it cheap.

Two caches, both owned by whoever creates them (the only module state is the bounded table
of printers, one per set of expression reads: code derived from compiled selectors, holding
no device and no result):

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

from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features
from dractl.model.memo import remember
from dractl.model.objects import Device

if TYPE_CHECKING:
    from dractl.cel.cache import CelCache
    from dractl.cel.program import DeviceReads, Selector


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


def read_print(
    device: Device, reads: DeviceReads, hide_multi: bool = False, base: Hashable | None = None
) -> Hashable:
    """What an expression that reads only ``reads`` of the device (see
    :func:`dractl.cel.program.device_reads`) can observe: equal prints, equal results.
    Always in: the driver (short attribute names resolve against it) and what decides whether
    the device converts for CEL at all (unknown attributes, version attributes): ``base``,
    :func:`convert_print` of the device when the caller has it."""
    try:
        parts: list[Hashable] = [reads, convert_print(device) if base is None else base]
        for r in sorted(reads) if len(reads) > 1 else reads:
            if r == ("allowMultipleAllocations",):
                parts.append(None if hide_multi else device.allow_multiple_allocations)
            elif r == ("attributes",):
                parts.append(_attrs(device))
            elif r == ("capacity",):
                parts.append(_caps(device))
            elif len(r) == 3 and r[0] == "attributes":
                a = _entry(device.attributes, r[1], r[2], device.driver)
                parts.append(a if a is None or isinstance(a, tuple) else (a.kind, a.value))
            elif len(r) == 3 and r[0] == "capacity":
                c = _entry(device.capacity, r[1], r[2], device.driver)
                parts.append(
                    c
                    if c is None or isinstance(c, tuple)
                    else (c.value.unscaled, c.value.scale, c.value.format)
                )
        key = tuple(parts)
        hash(key)
    except TypeError:  # an odd attribute value: don't share results for this device
        return ("id", id(device))
    return key


def _entry(items: Mapping[str, _V], domain: str, name: str, driver: str) -> _V | tuple[Any, ...] | None:
    """What CEL sees under ``domain``/``name`` of an attributes or capacity map: the one entry
    (qualified ``domain/name``, or ``name`` when the domain is the driver's), None when there is
    none; when both spellings are present the conversion keeps the later one, so the print is
    every entry in order."""
    qualified = items.get(f"{domain}/{name}")
    short = items.get(name) if domain == driver else None
    if qualified is not None and short is not None:
        return tuple((k, repr(v)) for k, v in items.items() if k in (f"{domain}/{name}", name))
    return qualified if qualified is not None else short


def convert_print(device: Device) -> Hashable:
    """The driver, and what decides whether the device converts for CEL at all (unknown
    attributes, version attributes): part of every print."""
    versions: tuple[tuple[str, Any], ...] = ()
    for k, a in device.attributes.items():  # a loop, not a comprehension: no frame
        if a.kind in _VERSION_KINDS:
            versions += ((k, a.value),)
    return (device.driver, device.unknown_attributes, versions)


_VERSION_KINDS = frozenset({"version", "versions"})
Printer = Callable[[Device, bool, Hashable], Hashable]
_Step = Callable[[Device, bool], Hashable]


def printer(reads: DeviceReads) -> Printer:
    """:func:`make_printer`, made once per set of reads (bounded): part of the compiled
    selector, as its reads are."""
    hit = _PRINTERS.get(reads)
    if hit is None:
        hit = remember(_PRINTERS, reads, make_printer(reads), _PRINTERS_MAX)
    return hit


_PRINTERS: dict[DeviceReads, Printer] = {}
_PRINTERS_MAX = 4096


def make_printer(reads: DeviceReads) -> Printer:
    """``read_print`` for one set of reads, with the work that depends on the reads alone done
    once: ``printer(reads)(device, hide_multi, base) == read_print(device, reads, hide_multi,
    base)`` (raises TypeError where ``read_print`` falls back to the device's id)."""
    if reads == _DRIVER_ONLY:
        return _driver_only
    if len(reads) == 1:
        (r,) = reads
        if len(r) == 3 and r[0] in ("attributes", "capacity"):
            return _one_entry(reads, r[0] == "attributes", r[1], r[2])
    steps = [step for r in (sorted(reads) if len(reads) > 1 else reads) if (step := _step(r)) is not None]
    if len(steps) == 1:
        (only,) = steps

        def one(device: Device, hide: bool, base: Hashable) -> Hashable:
            key = (reads, base, only(device, hide))
            hash(key)
            return key

        return one

    def many(device: Device, hide: bool, base: Hashable) -> Hashable:
        key = (reads, base, *[step(device, hide) for step in steps])
        hash(key)
        return key

    return many


def _one_entry(reads: DeviceReads, attributes: bool, domain: str, name: str) -> Printer:
    """The printer of an expression that reads one attribute or capacity entry (the common
    selector): :func:`_step`'s entry and the key in one function."""
    qualified = f"{domain}/{name}"

    def one_entry(device: Device, hide: bool, base: Hashable) -> Hashable:
        items: Mapping[str, Any] = device.attributes if attributes else device.capacity
        e = items.get(qualified)
        if domain == device.driver:
            s = items.get(name)
            if s is not None:
                if e is not None:  # both spellings: every entry in order
                    part: Hashable = tuple((k, repr(v)) for k, v in items.items() if k in (qualified, name))
                    key = (reads, base, part)
                    hash(key)
                    return key
                e = s
        if e is None:
            return (reads, base, None)
        if not attributes:  # a quantity's numbers and format: hashable, no need to try
            q = e.value
            return (reads, base, (q.unscaled, q.scale, q.format))
        key = (reads, base, (e.kind, e.value))
        hash(key)
        return key

    return one_entry


def _driver_only(device: Device, hide: bool, base: Hashable) -> Hashable:
    """The print of an expression that reads the driver only (what every print holds)."""
    key = (_DRIVER_ONLY, base)
    hash(key)
    return key


_Seen = tuple[Device, int]
"""A device as a :class:`SelectorCache` has seen it: the device (kept, so that its id stays
valid) and its base print (:func:`convert_print`, interned).  A tuple: made for every device a
selector looks at, it costs no ``__init__`` call."""


def _step(r: tuple[str, ...]) -> _Step | None:
    """What ``read_print`` appends for read ``r`` (None: nothing)."""
    if r == ("allowMultipleAllocations",):
        return lambda device, hide: None if hide else device.allow_multiple_allocations
    if r == ("attributes",):
        return lambda device, hide: _attrs(device)
    if r == ("capacity",):
        return lambda device, hide: _caps(device)
    if len(r) == 3 and r[0] in ("attributes", "capacity"):
        attributes, domain, name = r[0] == "attributes", r[1], r[2]
        qualified = f"{domain}/{name}"

        def entry(device: Device, hide: bool) -> Hashable:
            items: Mapping[str, Any] = device.attributes if attributes else device.capacity
            q = items.get(qualified)
            s = items.get(name) if domain == device.driver else None
            if q is not None and s is not None:  # both spellings: every entry in order
                return tuple((k, repr(v)) for k, v in items.items() if k in (qualified, name))
            e = q if q is not None else s
            if e is None:
                return None
            if attributes:
                return (e.kind, e.value)
            return (e.value.unscaled, e.value.scale, e.value.format)

        return entry
    return None


def split_name(name: str, driver: str) -> tuple[str, str]:
    """Domain and id of a qualified attribute/capacity name (the driver is the default
    domain), as the CEL conversion of a device splits them."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


_V = TypeVar("_V")
# (index, the expression's results by print, the prints of its reads' slot, printer, program)
_PlanStep = tuple[int, dict[Hashable, "bool | str"], dict[int, Hashable], "Printer", "Selector"]
_DRIVER_ONLY = frozenset({("driver",)})


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
        # expression -> device print -> result (one dict per expression: no key tuples)
        self._results: dict[str, dict[Hashable, bool | str]] = {}
        self._print_ids: dict[Hashable, int] = {}  # base print, fingerprint -> small int
        self._devices: dict[int, _Seen] = {}  # id(device) -> its base print
        # print slot (reads, hide_multi) -> id(device) (of a device in _devices) -> its print
        self._slot_prints: dict[int, dict[int, Hashable]] = {}
        # id(device) -> its copy without allowMultipleAllocations (see _as_seen)
        self._hidden: dict[int, Device] = {}
        # expression -> (id of its reads, its printer (None: the whole device), its program)
        self._reads: dict[str, tuple[int, Printer | None, Selector]] = {}
        # reads -> (its id, its printer)
        self._read_ids: dict[DeviceReads | None, tuple[int, Printer | None]] = {}
        # a tuple of expressions -> its plan (see _plan)
        self._plans: dict[tuple[str, ...], tuple[_PlanStep, ...]] = {}
        self.evaluations = 0

    def _reads_of(self, expression: str) -> tuple[int, Printer | None, Selector]:
        hit = self._reads.get(expression)
        if hit is None:
            try:
                program = self.cel.compile(expression, "stored")
            except CelCompileError as err:  # not remembered: every call reports it
                raise SelectorFailure(err.message, compile_error=True) from None
            reads = program.device_reads
            known = self._read_ids.get(reads)
            if known is None:
                known = self._read_ids[reads] = (
                    len(self._read_ids),
                    None if reads is None else printer(reads),
                )
            hit = self._reads[expression] = (known[0], known[1], program)
        return hit

    def _seen_of(self, device: Device) -> _Seen:
        """The device's entry (made on its first selector): its base print, interned."""
        hit = self._devices.get(id(device))
        if hit is not None and hit[0] is device:
            return hit
        return self._new_seen(device)

    def _new_seen(self, device: Device) -> _Seen:
        """Make the device's entry (it has none yet)."""
        ids = self._print_ids
        key = convert_print(device)
        try:
            base = ids.setdefault(key, len(ids))
        except TypeError:  # an odd attribute value: don't share results for this device
            base = ids.setdefault(("id", id(device)), len(ids))
        hit = self._devices[id(device)] = (device, base)
        return hit

    def _as_seen(self, device: Device, hide: bool) -> Device:
        """The device CEL is given (``hide``: allowMultipleAllocations not passed: a copy
        without it, made once; the device's entry in ``_devices`` keeps its id valid)."""
        if hide and device.allow_multiple_allocations is not None:
            hidden = self._hidden.get(id(device))
            if hidden is None:
                hidden = self._hidden[id(device)] = replace(device, allow_multiple_allocations=None)
            return hidden
        return device

    def _prints_of(self, slot: int) -> dict[int, Hashable]:
        """The devices' prints for the reads of ``slot``, by id (of devices in ``_devices``)."""
        hit = self._slot_prints.get(slot)
        if hit is None:
            hit = self._slot_prints[slot] = {}
        return hit

    def _print(self, seen: _Seen, hide: bool, make: Printer | None) -> Hashable:
        """The print of ``seen``'s device for the reads ``make`` prints: what results are keyed
        by, with the expression (the whole :func:`fingerprint` is interned to an int)."""
        device, base = seen
        fp: Hashable
        if make is None:
            fp = self._whole_print(device, hide, base)
        elif make is _driver_only:  # the base print is the whole print
            fp = base
        else:
            try:
                fp = make(device, hide, base)
            except TypeError:  # an odd attribute value: don't share results for this device
                fp = ("id", id(device))
        return fp

    def _whole_print(self, device: Device, hide: bool, base: Hashable) -> Hashable:
        """The print of an expression that may read anything of the device: its whole
        :func:`fingerprint`, interned to an int (a :data:`Printer`)."""
        ids = self._print_ids
        return ids.setdefault(fingerprint(device, hide), len(ids))

    def matches(self, expression: str, device: Device, *, hide_multi: bool | None = None) -> bool:
        """Evaluate (or recall) ``expression`` on ``device``; raises SelectorFailure."""
        read_id, make, program = self._reads_of(expression)
        hide = self.hide_multi if hide_multi is None else hide_multi
        seen = self._seen_of(device)
        prints = self._prints_of(2 * read_id + hide)
        fp = prints.get(id(device))
        if fp is None:
            fp = prints[id(device)] = self._print(seen, hide, make)
        results = self._results_of(expression)
        result = results.get(fp)
        if result is None:
            result = results[fp] = self._evaluate(program, self._as_seen(device, hide))
        if isinstance(result, str):
            raise SelectorFailure(result, compile_error=False)
        return result

    def first_false(self, expressions: tuple[str, ...], device: Device) -> int:
        """The index of the first of ``expressions`` that is false on ``device``, -1 when all
        are true: :meth:`matches` in turn, in one call (the allocator's hot path).  Raises
        :class:`SelectorFailureAt` (the index, and the failure :meth:`matches` raises)."""
        plan = self._plans.get(expressions)
        if plan is None:
            plan = self._plan(expressions)
        devices, key = self._devices, id(device)
        seen = devices.get(key)
        if seen is not None and seen[0] is device:
            base = seen[1]
        else:  # its first selectors: _new_seen, inline (a frame less per device looked at)
            ids = self._print_ids
            try:
                base = ids.setdefault(convert_print(device), len(ids))
            except TypeError:  # an odd attribute value: don't share results for this device
                base = ids.setdefault(("id", key), len(ids))
            devices[key] = (device, base)
        hide = self.hide_multi
        for i, results, prints, make, program in plan:
            fp: Hashable
            if make is _driver_only:  # the base print is the whole print
                fp = base
            else:  # _print, inline
                fp = prints.get(key)
                if fp is None:
                    try:
                        fp = make(device, hide, base)
                    except TypeError:  # an odd attribute value: don't share results for this device
                        fp = ("id", key)
                    prints[key] = fp
            result = results.get(fp)
            if result is None:
                result = results[fp] = self._evaluate(
                    program, self._as_seen(device, hide) if hide else device
                )
            if result is not True:
                if result is False:
                    return i
                raise SelectorFailureAt(i, SelectorFailure(result, compile_error=False))
        if len(plan) < len(expressions):  # a selector that does not compile: every call says so
            try:
                self._reads_of(expressions[len(plan)])
            except SelectorFailure as fail:
                raise SelectorFailureAt(len(plan), fail) from None
        return -1

    def _plan(self, expressions: tuple[str, ...]) -> tuple[_PlanStep, ...]:
        """What :meth:`first_false` needs of each expression, up to the first that does not
        compile (made once per tuple of expressions: derived from the compiled selectors)."""
        plan: list[_PlanStep] = []
        for i, expression in enumerate(expressions):
            try:
                read_id, make, program = self._reads_of(expression)
            except SelectorFailure:
                break
            if make is None:  # the whole device: its fingerprint, interned
                make = self._whole_print
            prints = self._prints_of(2 * read_id + self.hide_multi)
            plan.append((i, self._results_of(expression), prints, make, program))
        self._plans[expressions] = out = tuple(plan)
        return out

    def _results_of(self, expression: str) -> dict[Hashable, bool | str]:
        """The results of ``expression``, by device print."""
        hit = self._results.get(expression)
        if hit is None:
            hit = self._results[expression] = {}
        return hit

    def first_false_once(self, expressions: tuple[str, ...], device: Device) -> int:
        """:meth:`first_false` for a device asked about once (``availability``'s class
        membership of every device): the same answer from the same results, without keeping
        the device's prints.  Anything else (a device seen before, a result not known yet, an
        odd attribute value, an expression that reads the whole device) goes the way of
        :meth:`first_false`, which then remembers the device."""
        seen = self._devices.get(id(device))
        if seen is not None and seen[0] is device:
            return self.first_false(expressions, device)
        ids = self._print_ids
        try:
            base = ids.setdefault(convert_print(device), len(ids))
        except TypeError:
            return self.first_false(expressions, device)
        hide = self.hide_multi
        reads_of, results_of = self._reads, self._results
        for i, expression in enumerate(expressions):
            hit = reads_of.get(expression)
            if hit is None:
                return self.first_false(expressions, device)  # compiled (or refused) there
            make = hit[1]
            fp: Hashable
            if make is _driver_only:
                fp = base
            elif make is None:
                return self.first_false(expressions, device)
            else:
                try:
                    fp = make(device, hide, base)
                except TypeError:
                    return self.first_false(expressions, device)
            results = results_of.get(expression)
            result = None if results is None else results.get(fp)
            if result is None:
                return self.first_false(expressions, device)  # evaluated (once) there
            if result is not True:
                if result is False:
                    return i
                raise SelectorFailureAt(i, SelectorFailure(result, compile_error=False))
        return -1

    def _evaluate(self, program: Selector, device: Device) -> bool | str:
        self.evaluations += 1
        try:  # CelCache.matches, without its two calls
            return bool(program.evaluate(device, activations=self.cel.activations)[0])
        except CelRuntimeError as err:
            return err.message
