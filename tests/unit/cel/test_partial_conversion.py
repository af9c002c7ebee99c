"""A device is converted for CEL only as far as the program reads it (its ``device_reads``);
what a program sees, and every conversion error, is what the whole conversion gives."""

from __future__ import annotations

from typing import Any

import pytest

from dractl.cel.activation import (
    ATTRIBUTES,
    CAPACITY,
    WHOLE,
    DeviceActivationCache,
    DeviceConversionError,
    convert,
)
from dractl.cel.cache import CelCache
from dractl.cel.program import parts_read
from dractl.cel.values import QuantityVal, SemverVal
from dractl.errors import CelRuntimeError
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.model.quantity import Quantity


def _plain(v: Any) -> Any:
    """A converted value with its semver and quantity wrappers opened (they have no ``==``)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, SemverVal):
        return ("semver", v.v)
    if isinstance(v, QuantityVal):
        return ("quantity", v.q, v.derived)
    return v


def _device(version: str = "1.2.3", unknown: tuple[str, ...] = ()) -> Device:
    return Device(
        "d0",
        driver="d",
        attributes={
            "n": AttributeValue("int", 3),
            "v": AttributeValue("version", version),
            "e/m": AttributeValue("string", "x"),
        },
        capacity={"mem": DeviceCapacity(Quantity.parse("4Gi"))},
        allow_multiple_allocations=True,
        unknown_attributes=unknown,
    )


@pytest.mark.parametrize("parts", [0, ATTRIBUTES, CAPACITY, ATTRIBUTES | CAPACITY, WHOLE])
def test_a_partial_conversion_holds_what_the_whole_one_holds(parts: int) -> None:
    whole = convert(_device())
    part = convert(_device(), parts)
    assert part["driver"] == whole["driver"]
    assert part["allowMultipleAllocations"] == whole["allowMultipleAllocations"]
    assert ("attributes" in part) == bool(parts & ATTRIBUTES)
    assert ("capacity" in part) == bool(parts & CAPACITY)
    for key in part:
        assert _plain(part[key]) == _plain(whole[key])


@pytest.mark.parametrize("parts", [0, ATTRIBUTES, CAPACITY, WHOLE])
def test_every_partial_conversion_fails_as_the_whole_one(parts: int) -> None:
    for bad in (_device(version="not-a-version"), _device(unknown=("odd",))):
        with pytest.raises(DeviceConversionError) as whole:
            convert(bad)
        with pytest.raises(DeviceConversionError) as part:
            convert(bad, parts)
        assert part.value.message == whole.value.message


def test_the_cache_adds_what_a_later_program_reads() -> None:
    cache = DeviceActivationCache()
    device = _device()
    first = cache.get(device, 0)
    assert "attributes" not in first and "capacity" not in first
    assert _plain(cache.get(device, CAPACITY)["capacity"]) == _plain(convert(device)["capacity"])
    assert _plain(cache.get(device, ATTRIBUTES)["attributes"]) == _plain(convert(device)["attributes"])
    whole = cache.get(device, WHOLE)
    assert list(whole) == list(convert(device))  # the whole value in its own key order
    assert _plain(whole) == _plain(convert(device))
    assert cache.get(device, CAPACITY) is whole


def test_parts_read_follow_the_reads() -> None:
    cel = CelCache()
    assert parts_read(cel.compile('device.driver == "d"').device_reads) == 0
    assert parts_read(cel.compile('device.attributes["d"].n > 1').device_reads) == ATTRIBUTES
    assert (
        parts_read(cel.compile('device.capacity["d"].mem.isGreaterThan(quantity("1"))').device_reads)
        == CAPACITY
    )
    assert parts_read(cel.compile("dyn(device).driver == 'd'").device_reads) == WHOLE


def test_a_driver_only_selector_still_fails_on_a_device_that_does_not_convert() -> None:
    cel = CelCache()
    selector = cel.compile('device.driver == "d"')
    assert cel.matches(selector, _device())
    with pytest.raises(CelRuntimeError, match="parse semantic version"):
        cel.matches(selector, _device(version="bad"))
    assert cel.matches(cel.compile('device.attributes["d"].n == 3'), _device())
    assert cel.matches(cel.compile('device.capacity["d"].mem.compareTo(quantity("4Gi")) == 0'), _device())
