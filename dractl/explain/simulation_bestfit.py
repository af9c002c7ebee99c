"""Best fit for the capacity simulation (``capacity --best-fit``): which node, and which
device set within it, each copy gets by explain's best-fit score (advice, not the scheduler's
choice).  A mixin of :class:`~dractl.explain.simulation.Simulation`, kept apart so each module
reads on its own: the simulation places copies; this part scores and chooses.

Node choice: the best-scoring of the first :data:`BEST_FIT_NODES` nodes (in ``--order``) where
the copy fits.  Within a node: the best-scoring of the allocator's own device set and those its
search finds with the node's candidates in each best-fit order (:mod:`dractl.explain.orderings`).
A node's answer and score are kept between copies until a placement touches a pool they read."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

from dractl.explain import orderings, scoring
from dractl.matcher.api import NodeOutcome
from dractl.model import objects as o

if TYPE_CHECKING:
    from dractl.explain.simulation import CapacityOptions, Shape
    from dractl.matcher.engine import Allocator

# Best fit scores the copy on at most this many nodes where it fits (in --order), per copy.
BEST_FIT_NODES = 64
# Best fit in name order drops the outdated entries of its heap when they outnumber the window.
HEAP_SLACK = 256


class BestFitPlacement:
    """The best-fit half of :class:`~dractl.explain.simulation.Simulation`."""

    # what the simulation provides
    shape: Shape
    options: CapacityOptions
    allocator: Allocator
    node_names: list[str]
    nodes: dict[str, o.Node]
    dead: dict[str, str]
    shared_now: dict[str, o.ResourceClaim]
    error: str | None
    attempts: int
    _live: list[str]
    _pos: dict[str, int]
    _window: Window

    if TYPE_CHECKING:

        def _candidates(self) -> Iterator[str]: ...
        def _push(self, name: str) -> None: ...
        def _try(self, k: int, name: str) -> tuple[list[o.ResourceClaim], NodeOutcome | None]: ...
        def _pending(self, k: int, node: o.Node) -> list[o.ResourceClaim]: ...
        def _shared_block(self, name: str) -> bool: ...

    def _init_best_fit(self) -> None:
        # each fitting node's (score, claims, outcome), kept until a placement touches
        # a pool the node's answer or score reads (see _touched)
        self._scored: dict[str, tuple[scoring.Score, list[o.ResourceClaim], NodeOutcome]] = {}
        self._reach: dict[str, set[str]] | None = None
        self._score_inputs: dict[
            str, tuple[list[o.ResourceSlice], dict[str, o.Device], scoring.CounterIndex]
        ] = {}
        self._match: list[str] | None = None
        # best fit within a node: each node's best-fit orders (what never changes of them); the answer
        # a best-fit order gave where it scored better than the allocator's own (the node's
        # latest); how many placed copies got such an answer
        self._orders: dict[str, orderings.NodeOrders] = {}
        self._better: dict[str, NodeOutcome] = {}
        self.reordered = 0
        # not for the stable allocator: its search walks every slice of the cluster on each
        # node, so an order would cost the whole cluster's candidates per node
        self.ranks_within_node = not self.allocator.stable

    def _best_node(self, k: int) -> tuple[str, list[o.ResourceClaim], NodeOutcome] | None:
        """The best-scoring of the first :data:`BEST_FIT_NODES` nodes in order where the copy
        fits (the first of them on a tie).  A node's answer and score are kept from an earlier
        copy while no placement touched a pool they read (:meth:`_touched`): the allocator
        would answer the same, and the score would be the same."""
        if self.options.order == "name" and not self.shared_now:
            return self._best_in_window(k)
        best: tuple[tuple[int, int, int], str, list[o.ResourceClaim], NodeOutcome] | None = None
        fitting: list[str] = []
        scored = self._scored
        shared = bool(self.shared_now)
        for name in self._candidates():
            hit = scored.get(name)
            if hit is not None and not (shared and self._shared_block(name)):
                score, claims, outcome = hit
                if self.shape.extended:  # the extended-resource claim is named for the copy
                    claims = self._pending(k, self.nodes[name])
            elif hit is not None:
                continue  # a shared claim rules the node out now (dead)
            else:
                claims, tried = self._try(k, name)
                if tried is None:
                    continue
                if tried.status != "allocated":
                    if self.error is not None:
                        return None
                    continue
                score, outcome = self._within_node(name, claims, tried)
                scored[name] = (score, claims, outcome)
            fitting.append(name)
            if best is None or score < best[0]:
                best = (score, name, claims, outcome)
            if len(fitting) >= BEST_FIT_NODES:
                break
        if self.options.order != "name":
            for name in fitting:  # popped from the order but still live
                self._push(name)
        return None if best is None else best[1:]

    def _best_in_window(self, k: int) -> tuple[str, list[o.ResourceClaim], NodeOutcome] | None:
        """:meth:`_best_node` in ``name`` order without shared claims, in O(log nodes) per copy
        instead of a walk over the window: the first :data:`BEST_FIT_NODES` live nodes (all of
        which fit: a node where the copy does not fit is dead) are kept with their scores in a
        heap of (score, position); each copy rescores the window's nodes whose answers were
        forgotten (:meth:`_forget`), in order, then extends the window past nodes that died,
        trying them in order: the nodes tried, and the one chosen, are the walk's."""
        w, live, dead, scored = self._window, self._live, self.dead, self._scored
        if w.stale_all or w.stale:
            if w.stale_all:
                names = [n for n in live[w.start : w.end] if n not in dead]
            else:
                pos = self._pos
                names = sorted((n for n in w.stale if pos[n] < w.end and n not in dead), key=pos.__getitem__)
            w.stale_all, w.stale = False, set()
            for name in names:
                if not self._enter(k, name):
                    if self.error is not None:
                        return None
                    w.count -= 1
        while w.count < BEST_FIT_NODES and w.end < len(live):
            name = live[w.end]
            w.end += 1
            if name in dead:
                continue
            if self._enter(k, name):
                w.count += 1
            elif self.error is not None:
                return None
        while w.start < w.end and live[w.start] in dead:
            w.start += 1
        heap = w.heap
        while heap:
            _, _, name, stamp = heap[0]
            if w.stamps.get(name) == stamp and name not in dead:
                _, claims, outcome = scored[name]
                if self.shape.extended:  # the extended-resource claim is named for the copy
                    claims = self._pending(k, self.nodes[name])
                return name, claims, outcome
            heapq.heappop(heap)
        return None

    def _enter(self, k: int, name: str) -> bool:
        """Try copy ``k`` on node ``name`` and keep its best answer and score in the window's
        heap; False when it does not fit (the node is dead, or :attr:`error` is set)."""
        claims, tried = self._try(k, name)
        if tried is None or tried.status != "allocated":
            return False
        score, outcome = self._within_node(name, claims, tried)
        self._scored[name] = (score, claims, outcome)
        w = self._window
        stamp = w.stamps[name] = w.stamps.get(name, 0) + 1
        heapq.heappush(w.heap, (score, self._pos[name], name, stamp))
        if len(w.heap) > 4 * BEST_FIT_NODES + HEAP_SLACK:  # outdated entries: keep the current ones
            w.heap = [e for e in w.heap if w.stamps.get(e[2]) == e[3] and e[2] not in self.dead]
            heapq.heapify(w.heap)
        return True

    def _forget(self, names: Iterable[str] | None) -> None:
        """Forget the kept best-fit answers of ``names`` (None: of every node)."""
        if names is None:
            self._scored.clear()
            self._window.stale_all = True
            return
        for name in names:
            if self._scored.pop(name, None) is not None:
                self._window.stale.add(name)

    def _within_node(
        self, name: str, claims: list[o.ResourceClaim], outcome: NodeOutcome
    ) -> tuple[scoring.Score, NodeOutcome]:
        """The best-scoring of the allocator's own answer on node ``name`` and the answers of
        its search with the candidates in each best-fit order (:mod:`dractl.explain.orderings`;
        the first of equal scores, the allocator's own first).  Orders are tried only when
        the allocator's answer scores worse than (0, 0, 0), and only those that can change it."""
        score = self.placement_score(name, outcome)
        self._better.pop(name, None)
        if not any(score) or not self.ranks_within_node:
            return score, outcome
        node = self.nodes[name]
        _, devices, index = self._inputs(name)
        prefs = self._orders.get(name)
        if prefs is None:
            ids = self.allocator.candidate_ids(node)
            prefs = self._orders[name] = orderings.NodeOrders(ids, devices, index, self._match_attributes())
        left = self._counters_left(node) if index.sets_of else {}
        for order in prefs.orders(self.allocator.state.allocated_ids, index, left):
            self.attempts += 1
            alt = self.allocator.allocate(node, claims, trace=False, order=order)
            if alt.status != "allocated":  # an error on a device the own order never reached
                continue
            alt_score = self.placement_score(name, alt)
            if alt_score < score:
                score = alt_score
                outcome = self._better[name] = alt
        return score, outcome

    def _counters_left(self, node: o.Node) -> dict[tuple[str, str], dict[str, int | Fraction]]:
        """What the counter sets of the pools ``node`` reaches have left after the allocated
        devices, as the allocator keeps it (:meth:`~dractl.matcher.engine._State.left_for`)."""
        from dractl.matcher.requests import RequestError

        out: dict[tuple[str, str], dict[str, int | Fraction]] = {}
        a = self.allocator
        try:
            found = a.view(node).found  # kept per node (stable: every pool of the cluster)
        except RequestError:
            return out
        mine = {(s.driver, s.pool.name) for s in self._inputs(node.meta.name)[0]}
        for pool in found:
            if not pool.counter_totals or (pool.driver, pool.name) not in mine:
                continue
            prefix = f"{pool.driver}/{pool.name}"
            for (set_name, name), amount in a.state.left_for(pool).amounts.items():
                out.setdefault((prefix, set_name), {})[name] = amount
        return out

    def _touched(self, outcome: NodeOutcome) -> None:
        """Forget the kept best-fit answers a placement may change: those of every node that
        reaches a pool (by name: counters are kept per pool name) the placement allocated from.
        A network-attached pool is reached by every node (the score reads every one of them)."""
        if not self._scored:
            return
        reach = self._reach
        if reach is None:  # pool name -> the nodes whose slices hold it; "" : every node
            reach = self._reach = {}
            shared = {s.pool.name for s in self.allocator.shared}
            for name in self.node_names:
                for sl in self.allocator.on_node.get(name, ()):
                    if sl.pool.name not in shared:
                        reach.setdefault(sl.pool.name, set()).add(name)
            for pool in shared:
                reach[pool] = {""}
        for res in outcome.results:
            for r in res.results:
                nodes = reach.get(r.pool, ())
                if "" in nodes:
                    self._forget(None)
                    return
                self._forget(nodes)

    def placement_score(self, node: str, outcome: NodeOutcome) -> scoring.Score:
        """explain's best-fit score (:mod:`dractl.explain.scoring`) of the allocation in
        ``outcome`` on ``node``, against the simulation's state (lower is better)."""
        chosen = {r.device_id for res in outcome.results for r in res.results if not r.admin_access}
        slices, devices, index = self._inputs(node)
        busy = self.allocator.state.allocated_ids
        return scoring.score(slices, devices, busy, chosen, self._match_attributes(), index)

    def _inputs(self, node: str) -> tuple[list[o.ResourceSlice], dict[str, o.Device], scoring.CounterIndex]:
        """What the score reads of the node's slices (and the network-attached ones): the
        slices, their devices by id and their :class:`~scoring.CounterIndex` (once per node:
        the slices never change)."""
        hit = self._score_inputs.get(node)
        if hit is None:
            a = self.allocator
            slices = a.on_node.get(node, []) + a.shared
            devices = {d.id: d for s in slices for d in s.devices}
            hit = self._score_inputs[node] = (
                slices,
                devices,
                scoring.CounterIndex(slices, devices, a.uses_of),
            )
        return hit

    def _match_attributes(self) -> list[str]:
        if self._match is None:
            self._match = scoring.match_attributes([*self.shape.fresh, *self.shape.shared])
        return self._match


class Window:
    """Best fit in ``name`` order (:meth:`Simulation._best_in_window`): the live nodes at
    positions ``start`` … ``end - 1`` of the order, ``count`` of them not dead; a heap of
    (score, position, node, stamp) whose entries are current while the stamp is the node's;
    the nodes whose answers were forgotten since (``stale_all``: every node's)."""

    __slots__ = ("count", "end", "heap", "stale", "stale_all", "stamps", "start")

    def __init__(self) -> None:
        self.start = self.end = self.count = 0
        self.heap: list[tuple[scoring.Score, int, str, int]] = []
        self.stamps: dict[str, int] = {}
        self.stale: set[str] = set()
        self.stale_all = False
