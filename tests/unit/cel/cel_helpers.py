"""Small builders shared by the CEL unit tests."""

from __future__ import annotations

from typing import Any

from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.model.quantity import Quantity


def gpu(name: str = "gpu-0", driver: str = "gpu.nvidia.com", **attrs: Any) -> Device:
    """A device whose attributes are given as ``name=(kind, value)``; memory 80Gi."""
    values = {
        "productName": AttributeValue("string", "NVIDIA H100"),
        "index": AttributeValue("int", 0),
        "driverVersion": AttributeValue("version", "550.54.15"),
    }
    for k, (kind, v) in attrs.items():
        values[k.replace("__", "/")] = AttributeValue(kind, v)
    return Device(
        name=name,
        driver=driver,
        pool="p",
        attributes=values,
        capacity={"memory": DeviceCapacity(Quantity.parse("80Gi"))},
    )
