"""The DRA data model: typed, immutable v1 objects; conversion; Quantity; semantic versions; features."""

from dractl.model.features import Features
from dractl.model.objects import (
    AllocationResult,
    AttributeValue,
    Device,
    DeviceClass,
    DeviceTaintRule,
    Node,
    Origin,
    Pod,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from dractl.model.quantity import Quantity, QuantityError

__all__ = [
    "AllocationResult", "AttributeValue", "Device", "DeviceClass", "DeviceTaintRule", "Features", "Node",
    "Origin", "Pod", "Quantity", "QuantityError", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice",
]
