"""Consumable capacity (DRAConsumableCapacity): request policies and remaining capacity.

A request's capacity ask is turned into what it really consumes: no ask takes the
policy default (or the whole capacity); an ask is rounded up to the valid range's
step or to the next valid value.  The result must obey the policy and fit into
what is left after committed and in-flight allocations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from dractl.model.objects import DeviceCapacity, RequestPolicy, ValidRange
from dractl.model.quantity import BINARY_SI, Quantity

Consumed = dict[str, Fraction]


class UndefinedCapacity(Exception):
    """The request names a capacity the device does not declare."""


def add_quantities(a: Quantity, b: Quantity) -> Quantity:
    """Exact sum, in ``a``'s format."""
    scale = min(a.scale, b.scale)
    unscaled = a.unscaled * 10 ** (a.scale - scale) + b.unscaled * 10 ** (b.scale - scale)
    return Quantity(unscaled, scale, a.format, not (-(2**63) <= unscaled < 2**63))


def _int_value(q: Quantity) -> int:
    """Go's Quantity.Value(): the value rounded up to an integer."""
    return math.ceil(q.value)


def consumed_for(requested: Quantity | None, cap: DeviceCapacity) -> Quantity:
    """What one allocation consumes of ``cap`` when the request asks ``requested``."""
    policy = cap.request_policy
    if requested is None:
        return policy.default if policy is not None and policy.default is not None else cap.value
    if policy is None:
        return requested
    rng = policy.valid_range
    if rng is not None and rng.min is not None:
        return _round_up_range(requested, rng, rng.min)
    if policy.valid_values:
        return next((v for v in policy.valid_values if requested.value <= v.value), requested)
    return requested


def _round_up_range(requested: Quantity, rng: ValidRange, minimum: Quantity) -> Quantity:
    if requested.value < minimum.value:
        return minimum
    if rng.step is None:
        return requested
    step, low = _int_value(rng.step), _int_value(minimum)
    added = _int_value(requested) - low
    n = _go_div(added, step) + (1 if _go_mod(added, step) else 0)
    return Quantity.from_int(low + step * n, BINARY_SI)


def _go_div(a: int, b: int) -> int:
    """Go's truncated integer quotient, exact for any size (no float rounding)."""
    if not b:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _go_mod(a: int, b: int) -> int:
    """Go's truncated remainder (sign of the dividend), exact for any size."""
    return a - b * _go_div(a, b) if b else 0


def _same_form(a: Quantity, b: Quantity) -> bool:
    """Go compares these with ``==`` on the struct: same digits, scale and format."""
    return (a.unscaled, a.scale, a.format, a.dec) == (b.unscaled, b.scale, b.format, b.dec)


def violates_policy(consumed: Quantity, policy: RequestPolicy | None) -> bool:
    """Whether ``consumed`` breaks the policy (the default itself is always fine)."""
    if policy is None or (policy.default is not None and _same_form(consumed, policy.default)):
        return False
    rng = policy.valid_range
    if rng is not None:
        if rng.max is not None and consumed.value > rng.max.value:
            return True
        if rng.step is not None:
            low = _int_value(rng.min) if rng.min is not None else 0
            return _go_mod(_int_value(consumed) - low, _int_value(rng.step)) != 0
        return False
    if policy.valid_values:
        return all(consumed.value != v.value for v in policy.valid_values)
    return False


def fits(
    committed: Mapping[str, Fraction] | None,
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    in_flight: Mapping[str, Fraction] | None,
) -> bool:
    """Whether the request fits the device's remaining capacity; raises UndefinedCapacity."""
    if requests and any(name not in capacity for name in requests):
        raise UndefinedCapacity()
    if (
        not requests
        and not committed
        and not in_flight
        and all(c.request_policy is None for c in capacity.values())
    ):
        return True  # takes the whole capacity, nothing else uses it
    for name, cap in capacity.items():
        use = consumed_for(requests.get(name) if requests else None, cap)
        if violates_policy(use, cap.request_policy):
            return False
        total = use.value + (committed or {}).get(name, 0) + (in_flight or {}).get(name, 0)
        if total > cap.value.value:
            return False
    return True


def consumption(
    requests: Mapping[str, Quantity] | None, capacity: Mapping[str, DeviceCapacity]
) -> dict[str, Quantity]:
    """What an allocation of a multi-allocatable device consumes, per capacity."""
    return {
        name: consumed_for(requests.get(name) if requests else None, cap) for name, cap in capacity.items()
    }


def add_in_flight(book: dict[str, Consumed], device_id: str, used: Mapping[str, Quantity]) -> None:
    entry = book.setdefault(device_id, {})
    for name, q in used.items():
        entry[name] = entry.get(name, Fraction(0)) + q.value


def remove_in_flight(book: dict[str, Consumed], device_id: str, used: Mapping[str, Quantity]) -> None:
    entry = book.get(device_id)
    if entry is None:
        return
    for name, q in used.items():
        if name in entry:
            entry[name] -= q.value
    if all(v == 0 for v in entry.values()):
        del book[device_id]
