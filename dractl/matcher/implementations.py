"""Which of Kubernetes' three allocator implementations answers, and what it supports.

``k8s.io/dynamic-resource-allocation/structured`` ships three implementations of the
allocator: ``stable`` (GA-only feature set, minimal changes), ``incubating`` (the
default, adds beta features) and ``experimental`` (alpha features too).
``NewAllocator`` takes the first of them, in that order, whose supported feature set
covers every enabled allocator feature.  They differ in edge cases, so dractl models
the choice (``auto``) and lets a user force one (as upstream's ``EnableAllocators``
does); a forced implementation that does not support the enabled features is an
error, as it is upstream.

The allocator's feature set is the seven fields of ``structured.Features``; the other
DRA gates (DeviceTaintRules, ExtendedResource, …) do not take part in the choice.
"""

from __future__ import annotations

from itertools import compress, product
from operator import attrgetter
from typing import Literal

from dractl.model.features import Features

Implementation = Literal["stable", "incubating", "experimental"]
IMPLEMENTATIONS: tuple[Implementation, ...] = ("stable", "incubating", "experimental")
CHOICES = ("auto", *IMPLEMENTATIONS)

# allocator feature (Features field) -> the name upstream's Features.Set() uses
ALLOCATOR_FEATURES: dict[str, str] = {
    "admin_access": "DRAAdminAccess",
    "consumable_capacity": "DRAConsumableCapacity",
    "device_binding_and_status": "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus",
    "device_taints": "DRADeviceTaints",
    "list_type_attributes": "DRAListTypeAttributes",
    "partitionable_devices": "DRAPartitionableDevices",
    "prioritized_list": "DRAPrioritizedList",
}

_gates = attrgetter(*ALLOCATOR_FEATURES)  # the allocator features' values, in one call

_STABLE = frozenset({"admin_access", "prioritized_list", "partitionable_devices", "device_taints"})
_INCUBATING = _STABLE | {"device_binding_and_status", "consumable_capacity"}
_EXPERIMENTAL = _INCUBATING | {"list_type_attributes"}

SUPPORTED: dict[Implementation, frozenset[str]] = {
    "stable": _STABLE,
    "incubating": _INCUBATING,
    "experimental": _EXPERIMENTAL,
}


class UnsupportedFeatures(ValueError):
    """A forced implementation does not support every enabled allocator feature."""


def enabled_allocator_features(features: Features) -> frozenset[str]:
    """The enabled allocator features (Features field names)."""
    return frozenset(compress(ALLOCATOR_FEATURES, _gates(features)))


def supports(implementation: Implementation, features: Features) -> bool:
    """Whether ``implementation`` supports every enabled allocator feature."""
    return enabled_allocator_features(features) <= SUPPORTED[implementation]


def supporting(features: Features) -> tuple[Implementation, ...]:
    """Every implementation that supports the enabled features (what upstream's shared
    test runs a case against), in upstream's order."""
    return tuple(i for i in IMPLEMENTATIONS if supports(i, features))


def choose(features: Features, requested: str = "auto") -> Implementation:
    """The implementation that answers: for ``auto`` the one ``NewAllocator`` picks,
    else ``requested`` itself; raises UnsupportedFeatures (or ValueError for an
    unknown name)."""
    if requested == "auto":
        gates = _gates(features)
        found = _AUTO.get(gates) or _first_supporting(gates)
        if found is None:  # cannot happen with today's three, kept for a future feature
            raise UnsupportedFeatures(f"no allocator implementation supports {_names(features)}")
        return found
    if requested not in IMPLEMENTATIONS:
        raise ValueError(f"unknown allocator implementation {requested!r}; one of: {', '.join(CHOICES)}")
    impl: Implementation = requested
    missing = enabled_allocator_features(features) - SUPPORTED[impl]
    if missing:
        raise UnsupportedFeatures(
            f"allocator implementation {impl!r} does not support the enabled feature(s) "
            f"{', '.join(sorted(ALLOCATOR_FEATURES[m] for m in missing))}; "
            f"implementations that do: {', '.join(supporting(features)) or 'none'}"
        )
    return impl


def _first_supporting(gates: tuple[object, ...]) -> Implementation | None:
    """The first implementation, in upstream's order, that supports the allocator features
    whose values (in ``ALLOCATOR_FEATURES`` order) are ``gates``."""
    enabled = frozenset(compress(ALLOCATOR_FEATURES, gates))
    for i in IMPLEMENTATIONS:
        if enabled <= SUPPORTED[i]:
            return i
    return None


# what ``auto`` picks for each of the 128 combinations of allocator feature values: a table of
# constants, so that choosing costs one lookup (values that are not bools take the slow path)
_AUTO: dict[tuple[object, ...], Implementation | None] = {
    gates: _first_supporting(gates) for gates in product((False, True), repeat=len(ALLOCATOR_FEATURES))
}


def _names(features: Features) -> str:
    return ", ".join(sorted(ALLOCATOR_FEATURES[m] for m in enabled_allocator_features(features)))
