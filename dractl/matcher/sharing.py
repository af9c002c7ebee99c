"""Work shared between nodes that look the same to the allocator.

kube-scheduler's Filter pattern asks one allocator about every node in turn, and a fleet is
mostly identical nodes: the same drivers publish the same devices on each, named after the
node only in the pool name.  Two such nodes give the same answer, up to those names, as long
as nothing in the allocated state tells them apart.  :class:`Shapes` finds a node's
equivalence class (its *shape*) and keeps, per shape and call, the answer of the first node
that had it; a later node of that shape gets that answer with its own pool and node names,
without gathering its pools or searching.  An Allocator's first call looks for no shape (an
Allocator asked once would only pay for it): sharing starts with the second.

A node has a shape only where the answer provably depends on nothing else (otherwise the
Allocator does the full work, as before):

- the Allocator is not ``stable`` (which walks every slice of the cluster in input order),
  has no DeviceTaintRules (their selectors may name pools) and no slices that are not bound
  to one node (their reach depends on node labels);
- every slice of the node is bound to it by ``nodeName`` (no node selector, no per-device
  node selection), is the only slice of its pool, and no two of the node's slices have the
  same driver (so the search order of its pools is the order of their drivers);
- no device can be allocated more than once (share IDs are generated per allocation).

Two nodes have the same shape when their slices, ordered by driver, hold equal devices
(every field of :class:`~dractl.model.objects.Device` but the pool name copied from the
slice) and equal counter sets.  A kept answer is used only for the same claims (the same
objects), the same ``max_steps`` and no trace, and only while the node is *untouched*: none
of its devices is allocated, shared or carries consumed capacity, and, where its devices use
shared counters, no counters were computed yet under its pool names (counters are keyed by
pool name).  The node that recorded the answer was untouched in the same way, so a full run
on the new node would walk the same candidates, in the same order, with the same verdicts,
to the same positions.  Only ``allocated`` and ``unallocatable`` answers are kept (an error's
message may name a device).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dractl.matcher.api import NodeOutcome, new_allocation, new_device_result, new_outcome
from dractl.model.memo import remember
from dractl.model.objects import (
    Device,
    Node,
    ResourceClaim,
    ResourceSlice,
)

if TYPE_CHECKING:
    from dractl.matcher.engine import _State

_DEVICE_FIELDS = tuple(f.name for f in dataclasses.fields(Device) if f.name != "pool")


def _prints_function() -> Callable[[Sequence[Device]], list[tuple[Any, ...]]]:
    """``prints(devices)``: per device, the tuple of every field but ``pool``.  Generated from
    the dataclass's field list as a list comprehension of plain attribute reads, which the
    interpreter specializes for slots: twice as fast as ``map(operator.attrgetter(...))``."""
    fields = ", ".join(f"d.{name}" for name in _DEVICE_FIELDS)
    prints: Callable[[Sequence[Device]], list[tuple[Any, ...]]] = eval(  # our own field names
        f"lambda devices: [({fields}) for d in devices]"
    )
    return prints


_prints = _prints_function()
_MAX_SHAPES = 64  # per (drivers, device counts): beyond that, new shapes are not shared
_MAX_ANSWERS = 256  # per shape: (claims, max_steps) kept


class Shape:
    """One equivalence class of nodes: what their slices hold, and the answers kept."""

    __slots__ = ("answers", "counters", "prints", "shareable")

    def __init__(self, prints: list[Any], slices: Sequence[ResourceSlice]) -> None:
        self.prints = prints
        devices = [d for s in slices for d in s.devices]
        # some device or slice uses shared counters (they are keyed by pool name)
        self.counters = any(s.shared_counters for s in slices) or any(d.consumes_counters for d in devices)
        # multi-allocatable devices get a new share ID per allocation: not shared
        self.shareable = not any(d.allow_multiple_allocations for d in devices)
        # (id of each claim, max_steps) -> (the claims, kept alive: their ids stay theirs; the
        # answer)
        self.answers: dict[tuple[Any, ...], tuple[tuple[ResourceClaim, ...], NodeOutcome]] = {}


class Shapes:
    """The shapes of the nodes one Allocator has seen (see the module doc)."""

    __slots__ = ("_by_key", "_ids", "_last_key", "_node_shape", "_touched", "on_node")

    def __init__(self, on_node: dict[str, list[ResourceSlice]]) -> None:
        self.on_node = on_node
        self._ids: dict[str, tuple[str, ...]] = {}
        # nodes found touched in the Allocator's own state, which only grows (commit adds
        # devices, counters are computed once per pool name): touched for good
        self._touched: set[str] = set()
        self._by_key: dict[tuple[tuple[str, int], ...], list[Shape]] = {}
        # node name -> (the Node, its shape or None, driver -> pool name)
        self._node_shape: dict[str, tuple[Node, Shape | None, dict[str, str]]] = {}
        # the last tuple of claims asked about, with max_steps, and its answer key (held: the
        # same tuple object holds the same claims; kube-scheduler asks about one pod's claims
        # for every node in turn)
        self._last_key: tuple[tuple[ResourceClaim, ...], int | None, tuple[Any, ...]] | None = None

    def answer_key(self, claims: Sequence[ResourceClaim], max_steps: int | None) -> tuple[Any, ...]:
        """The key of the answers kept for ``claims`` and ``max_steps``: the claims' ids."""
        last = self._last_key
        if last is not None and last[0] is claims and last[1] == max_steps:
            return last[2]
        key = (*map(id, claims), max_steps)
        if type(claims) is tuple:  # immutable: the same object, the same claims
            self._last_key = (claims, max_steps, key)
        return key

    def shape(self, node: Node) -> tuple[Shape | None, dict[str, str]]:
        """The node's shape (None: not shareable) and its pool name per driver."""
        name = node.meta.name
        hit = self._node_shape.get(name)
        if hit is not None and hit[0] is node:
            return hit[1], hit[2]
        shape, pools = self._find(self.on_node.get(name, ()))
        self._node_shape[name] = (node, shape, pools)
        return shape, pools

    def untouched(self, name: str, state: _State, shape: Shape, pools: dict[str, str], own: _State) -> bool:
        """Whether nothing in ``state`` concerns the node's devices (see the module doc);
        ``own``: the Allocator's own state."""
        if state is own and name in self._touched:
            return False
        if (shape.counters and any(p in state.counters_left for p in pools.values())) or self._in_use(
            name, state
        ):
            if state is own:
                self._touched.add(name)
            return False
        return True

    def _in_use(self, name: str, state: _State) -> bool:
        devices, ids, caps = state.devices, state.allocated_ids, state.committed_capacity
        if not (devices or ids or caps):
            return False
        mine = self._ids.get(name)
        if mine is None:
            mine = self._ids[name] = tuple(
                f"{s.driver}/{s.pool.name}/{d.name}" for s in self.on_node.get(name, ()) for d in s.devices
            )
        return any(dev in devices or dev in ids or dev in caps for dev in mine)

    def _find(self, slices: Sequence[ResourceSlice]) -> tuple[Shape | None, dict[str, str]]:
        if not slices:
            return None, {}
        if len(slices) > 1:
            slices = sorted(slices, key=lambda s: s.driver)
        pools: dict[str, str] = {}
        prints: list[Any] = []
        for s in slices:
            if (
                s.pool.resource_slice_count != 1
                or s.node_selector is not None
                or s.all_nodes
                or s.per_device_node_selection is not None
                or s.driver in pools
            ):
                return None, {}
            pools[s.driver] = s.pool.name
            prints.append((s.driver, s.shared_counters, _prints(s.devices)))
        key = tuple([(s.driver, len(s.devices)) for s in slices])
        known = self._by_key.get(key)
        if known is None:
            known = self._by_key[key] = []
        for shape in known:
            if shape.prints == prints:
                return (shape if shape.shareable else None), pools
        if len(known) >= _MAX_SHAPES:
            return None, {}
        shape = Shape(prints, slices)
        known.append(shape)
        return (shape if shape.shareable else None), pools


def kept(shape: Shape, key: tuple[Any, ...], node: Node, pools: dict[str, str]) -> NodeOutcome | None:
    """The kept answer for ``key`` as ``node``'s (its pool and node names), or None.  A hit
    is for the same claim objects: the kept answer holds them, so their ids are still theirs."""
    hit = shape.answers.get(key)
    if hit is None:
        return None
    outcome = hit[1]
    name = node.meta.name
    results = []
    for result in outcome.results:
        # a result's pool is the node's pool of its driver (``keep`` checks that)
        made = [
            new_device_result(
                r.request,
                r.driver,
                pools[r.driver],
                r.device,
                r.admin_access,
                r.tolerations,
                r.binding_conditions,
                r.binding_failure_conditions,
                r.share_id,
                r.consumed_capacity,
            )
            for r in result.results
        ]
        results.append(
            new_allocation(
                tuple(made),
                result.config,
                _pinned(name) if result.node_selector is not None else None,
                result.allocation_timestamp,
            )
        )
    return new_outcome(
        name,
        outcome.status,
        tuple(results),
        outcome.error,
        outcome.error_scope,
        outcome.trace,
        outcome.implementation,
        outcome.warnings,
    )


def keep(
    shape: Shape,
    key: tuple[Any, ...],
    claims: Sequence[ResourceClaim],
    outcome: NodeOutcome,
    pools: dict[str, str],
) -> None:
    """Keep ``outcome`` (a full run's answer on an untouched node of ``shape``) when it can
    be shared: allocated or unallocatable, no warnings, node selectors naming the node."""
    if outcome.status == "error" or outcome.warnings or outcome.error is not None:
        return
    pinned = _pinned(outcome.node)
    for result in outcome.results:
        if result.node_selector is not None and result.node_selector != pinned:
            return
        for r in result.results:
            if r.share_id is not None or pools.get(r.driver) != r.pool:
                return
    remember(shape.answers, key, (tuple(claims), outcome), _MAX_ANSWERS)


def _pinned(node_name: str) -> dict[str, Any]:
    """The node selector of an allocation from slices bound to ``node_name``."""
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
        ]
    }
