"""Turning a model :class:`~dractl.model.objects.Device` into the CEL ``device`` variable.

As Kubernetes does, every version attribute is strictly re-parsed and an attribute without a
usable value makes the whole device unusable for CEL (every selector fails with that error).
Conversions are cached per device object: :class:`DeviceActivationCache` keys by ``id(device)``
and keeps the device alive so the id stays valid (the model's dataclasses have no weakref slot).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from dractl.cel.values import DefaultMap, QuantityVal, SemverVal
from dractl.model.semver import SemverError, Version

if TYPE_CHECKING:  # the model classes load only where objects are built
    from dractl.model.objects import Device


class DeviceConversionError(Exception):
    """The device cannot be given to CEL (``attribute X: parse semantic version: …``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _version(name: str, text: Any) -> SemverVal:
    try:
        return SemverVal(Version.parse(str(text)))
    except SemverError as e:
        raise DeviceConversionError(f"attribute {name}: parse semantic version: {e}") from None


def _value(name: str, kind: str, value: Any) -> Any:
    if kind == "version":
        return _version(name, value)
    if kind == "versions":
        return [_version(name, v) for v in value]
    if kind in ("ints", "bools", "strings"):
        return list(value)
    return value


def split_name(name: str, driver: str) -> tuple[str, str]:
    """Domain and id of a qualified name; the driver is the default domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


ATTRIBUTES, CAPACITY, WHOLE = 1, 2, 7
"""What of a device a conversion builds (a bit mask): the attributes map, the capacity map;
``WHOLE``: everything, in the conversion's own key order (a program that may read the device
any way).  Whatever is built, the device is checked whole: a device that does not convert
fails every program, also one that reads only its driver."""


def convert(device: Device, parts: int = WHOLE) -> dict[str, Any]:
    """The ``device`` value; DeviceConversionError when Kubernetes would refuse to evaluate.
    ``parts``: which maps to build (see :data:`WHOLE`); the others are left out, for a
    program that never reads them (its ``device_reads``)."""
    for name in getattr(device, "unknown_attributes", ()):
        raise DeviceConversionError(f"attribute {name}: unsupported attribute value")
    if parts == WHOLE:
        return {
            "driver": device.driver,
            "attributes": _attributes(device),
            "capacity": _capacity(device),
            "allowMultipleAllocations": bool(device.allow_multiple_allocations),
        }
    out: dict[str, Any] = {
        "driver": device.driver,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
    }
    if parts & ATTRIBUTES:
        out["attributes"] = _attributes(device)
    else:
        _check_versions(device)
    if parts & CAPACITY:
        out["capacity"] = _capacity(device)
    return out


def _attributes(device: Device) -> DefaultMap:
    attrs: DefaultMap = DefaultMap()
    driver = device.driver
    for name, attr in device.attributes.items():
        domain, sep, ident = name.partition("/")  # split_name, inline
        if not sep:
            domain, ident = driver, name
        attrs.setdefault(domain, {})[ident] = _value(name, attr.kind, attr.value)
    return attrs


def _check_versions(device: Device) -> None:
    """What converting the attributes can refuse (a version that does not parse), without
    building them: the same first error, in attribute order."""
    for name, attr in device.attributes.items():
        if attr.kind in _VERSION_KINDS:
            _value(name, attr.kind, attr.value)


_VERSION_KINDS = frozenset({"version", "versions"})


def _capacity(device: Device) -> DefaultMap:
    caps: DefaultMap = DefaultMap()
    driver = device.driver
    for name, cap in device.capacity.items():
        domain, sep, ident = name.partition("/")  # split_name, inline
        if not sep:
            domain, ident = driver, name
        caps.setdefault(domain, {})[ident] = QuantityVal(cap.value)
    return caps


class DeviceActivationCache:
    """Converted devices by object identity (bounded, least recently used dropped first).
    A device converted for a program that reads part of it (see :func:`convert`'s ``parts``)
    gets the rest added when a program needs it."""

    def __init__(self, max_entries: int = 65536) -> None:
        self.max_entries = max_entries
        # id(device) -> (the device, its conversion or why it fails, the parts built)
        self._items: OrderedDict[int, tuple[Device, dict[str, Any] | DeviceConversionError, int]] = (
            OrderedDict()
        )

    def get(self, device: Device, parts: int = WHOLE) -> dict[str, Any]:
        """The converted device, with at least ``parts`` built; raises DeviceConversionError
        (cached too)."""
        key = id(device)
        hit = self._items.get(key)
        if hit is not None and hit[0] is device:
            self._items.move_to_end(key)
            value = hit[1]
            if isinstance(value, DeviceConversionError):
                raise value
            built = hit[2]
            if built & parts == parts:
                return value
            if parts == WHOLE:  # the whole value, in its own key order
                value = convert(device)
            else:  # the device converts (checked when first built): add the missing maps
                if parts & ~built & ATTRIBUTES:
                    value["attributes"] = _attributes(device)
                if parts & ~built & CAPACITY:
                    value["capacity"] = _capacity(device)
            self._items[key] = (device, value, built | parts)
            return value
        try:
            converted: dict[str, Any] | DeviceConversionError = convert(device, parts)
        except DeviceConversionError as e:
            converted = e
        self._items[key] = (device, converted, parts)
        if len(self._items) > self.max_entries:
            self._items.popitem(last=False)
        if isinstance(converted, DeviceConversionError):
            raise converted
        return converted

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
