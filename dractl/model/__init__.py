"""The DRA data model: typed, immutable v1 objects; conversion; Quantity; semantic versions; features.

The names below are loaded on first use (PEP 562), so that importing a submodule such as
:mod:`dractl.model.features` doesn't pay for building every model class.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.model.features import Features
    from dractl.model.objects import (
        AllocationResult,
        AttributeValue,
        Device,
        DeviceClass,
        DeviceTaintRule,
        Node,
        Pod,
        ResourceClaim,
        ResourceClaimTemplate,
        ResourceSlice,
    )
    from dractl.model.origin import Origin
    from dractl.model.quantity import Quantity, QuantityError

_WHERE = {
    "Features": "features",
    "Origin": "origin",
    "Quantity": "quantity",
    "QuantityError": "quantity",
    **{
        name: "objects"
        for name in (
            "AllocationResult",
            "AttributeValue",
            "Device",
            "DeviceClass",
            "DeviceTaintRule",
            "Node",
            "Pod",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        )
    },
}

__all__ = [
    "AllocationResult",
    "AttributeValue",
    "Device",
    "DeviceClass",
    "DeviceTaintRule",
    "Features",
    "Node",
    "Origin",
    "Pod",
    "Quantity",
    "QuantityError",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "ResourceSlice",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
