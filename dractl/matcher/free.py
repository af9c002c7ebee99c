"""What "free" means, everywhere dractl says it: a device a new request that tolerates no taint
would get right now from an :class:`~dractl.matcher.engine.Allocator`'s allocated state.

The one definition behind ``dractl availability``'s ``free`` (and so ``claims``/``health``
views built on it) and ``dractl capacity``'s ``freeDevices``.  A device is free when, in the
allocator's order of checks, it is not allocated exclusively, its binding conditions are
allowed, its consumable capacity is not used up, its shared counters have room (a full GPU
whose MIG partition is in use is not free), and no NoSchedule/NoExecute taint is on it; and
its pool is complete and valid (the allocator skips other pools).  Extend the rules here,
never in a view.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING

from dractl.matcher import capacity as cap_mod
from dractl.matcher import pools as pool_mod
from dractl.matcher.taints import BLOCKING_EFFECTS, EffectiveTaint
from dractl.model import objects as o

if TYPE_CHECKING:
    from dractl.matcher.engine import Allocator


def applied_taints(a: Allocator, device: o.Device) -> tuple[EffectiveTaint, ...]:
    """The device's taints (slice, then DeviceTaintRules) as the allocator applies them; none
    when DRADeviceTaints is off."""
    return a.taints_of(device) if a.features.device_taints else ()


def counters_left(a: Allocator, pool: pool_mod.Pool) -> dict[str, dict[str, Fraction]]:
    """Shared counters minus what the allocator's committed allocations consume: what
    :func:`dractl.matcher.counters.available` gives, from the allocator's own numbers (kept
    per pool name, up to date after each commit: a capacity simulation's too)."""
    return a.state.counters_for(pool)


def multi_allocatable(a: Allocator, device: o.Device) -> bool:
    return a.features.consumable_capacity and device.allow_multiple_allocations is True


def blocked(
    a: Allocator,
    device: o.Device,
    device_id: str,
    left: Mapping[str, Mapping[str, Fraction]],
    taints: tuple[EffectiveTaint, ...],
) -> str | None:
    """Why a new request that tolerates no taint could not get this device of a complete, valid
    pool right now, in the allocator's order of checks (a Reason value, or ``tainted``); None:
    it is free.  ``left``: :func:`counters_left` of its pool; ``taints``: :func:`applied_taints`."""
    state = a.state
    if device_id in state.devices:
        return "in-use"
    features = a.features
    if device.binding_conditions and not features.device_binding_and_status:
        return "binding-conditions-disabled"
    if features.consumable_capacity and not cap_mod.fits(
        state.committed_capacity.get(device_id) or None, None, device.capacity, None
    ):
        return "capacity-insufficient"
    if device.consumes_counters:
        if not features.partitionable_devices:
            return "feature-disabled"
        multi = multi_allocatable(a, device)
        if not (multi and device_id in state.committed_capacity) and not _counters_fit(device, left):
            return "counters-exhausted"
    if taints and any(t.taint.effect in BLOCKING_EFFECTS for t in taints):
        return "tainted"
    return None


def count_free(a: Allocator, pools: list[pool_mod.Pool], node_name: str | None = None) -> int:
    """How many devices of ``pools`` (as gathered for a node) are free; ``node_name``: only those
    of slices bound to that node by name (the node's own devices)."""
    free = 0
    in_use = a.state.devices
    for pool in pools:
        if pool.incomplete or pool.invalid:
            continue
        left: dict[str, dict[str, Fraction]] | None = None
        for s in pool.slices:
            if node_name is not None and s.node_name != node_name:
                continue
            prefix = f"{s.driver}/{s.pool.name}/"
            for d in s.devices:
                device_id = prefix + d.name
                if device_id in in_use:  # blocked()'s first check, without its taints
                    continue
                if d.consumes_counters and left is None:
                    left = counters_left(a, pool)
                if blocked(a, d, device_id, left or {}, applied_taints(a, d)) is None:
                    free += 1
    return free


def _counters_fit(device: o.Device, left: Mapping[str, Mapping[str, Fraction]]) -> bool:
    for use in device.consumes_counters:
        counters = left.get(use.counter_set, {})
        for name, q in use.counters.items():
            if name in counters and counters[name] < q.value:
                return False
    return True
