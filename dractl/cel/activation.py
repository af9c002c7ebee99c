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


def convert(device: Device) -> dict[str, Any]:
    """The ``device`` value; DeviceConversionError when Kubernetes would refuse to evaluate."""
    for name in getattr(device, "unknown_attributes", ()):
        raise DeviceConversionError(f"attribute {name}: unsupported attribute value")
    attrs: DefaultMap = DefaultMap()
    for name, attr in device.attributes.items():
        domain, ident = split_name(name, device.driver)
        attrs.setdefault(domain, {})[ident] = _value(name, attr.kind, attr.value)
    caps: DefaultMap = DefaultMap()
    for name, cap in device.capacity.items():
        domain, ident = split_name(name, device.driver)
        caps.setdefault(domain, {})[ident] = QuantityVal(cap.value)
    return {
        "driver": device.driver,
        "attributes": attrs,
        "capacity": caps,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
    }


class DeviceActivationCache:
    """Converted devices by object identity (bounded, least recently used dropped first)."""

    def __init__(self, max_entries: int = 65536) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[int, tuple[Device, dict[str, Any] | DeviceConversionError]] = OrderedDict()

    def get(self, device: Device) -> dict[str, Any]:
        """The converted device; raises DeviceConversionError (cached too)."""
        key = id(device)
        hit = self._items.get(key)
        if hit is not None and hit[0] is device:
            self._items.move_to_end(key)
        else:
            try:
                value: dict[str, Any] | DeviceConversionError = convert(device)
            except DeviceConversionError as e:
                value = e
            hit = (device, value)
            self._items[key] = hit
            if len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        value = hit[1]
        if isinstance(value, DeviceConversionError):
            raise value
        return value

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
