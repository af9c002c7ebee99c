"""Run one case of the shared allocator conformance format (../shared/conformance/allocator).

A case names the enabled features, the node, DeviceClasses, all ResourceSlices,
the claims to allocate together and the allocated state as id lists.  Share IDs
are the fixed ``aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa`` the upstream tests use, so
results compare.  Benchmarks use ``load_case`` to time the allocation alone.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dractl.matcher.api import FIXED_SHARE_ID, AllocatedState, NodeOutcome
from dractl.matcher.engine import Allocator
from dractl.matcher.implementations import IMPLEMENTATIONS, supporting
from dractl.model.build import build_object
from dractl.model.features import Features
from dractl.model.objects import DeviceClass, Node, ResourceClaim, ResourceSlice
from dractl.model.quantity import Quantity

if TYPE_CHECKING:
    from dractl.cel.cache import CelCache


@dataclass(frozen=True)
class LoadedCase:
    """A case as model objects (``nodes`` holds one or, for e-1000-nodes, many)."""

    features: Features
    nodes: tuple[Node | None, ...]
    classes: tuple[DeviceClass, ...]
    slices: tuple[ResourceSlice, ...]
    claims: tuple[ResourceClaim, ...]
    allocated: AllocatedState

    def allocator(self, implementation: str = "auto", cel_cache: CelCache | None = None) -> Allocator:
        """A fresh allocator with the fixed share ID, using ``cel_cache`` (None: dractl.cel's
        process default; pass a fresh ``CelCache()`` for a cold run)."""
        return Allocator(
            self.classes,
            self.slices,
            self.features,
            allocated=self.allocated,
            share_ids=lambda: FIXED_SHARE_ID,
            implementation=implementation,
            cel_cache=cel_cache,
        )


def _objects(raw: Sequence[Mapping[str, Any]] | None) -> list[Any]:
    return [build_object(r) for r in raw or ()]


def _state(case: Mapping[str, Any]) -> AllocatedState:
    capacity = {
        dev: {name: Quantity.parse(q) for name, q in caps.items()}
        for dev, caps in (case.get("allocatedCapacityDevices") or {}).items()
    }
    return AllocatedState(
        frozenset(case.get("allocatedDevices") or ()),
        frozenset(case.get("allocatedSharedDeviceIDs") or ()),
        capacity,
    )


def load_case(case: Mapping[str, Any]) -> LoadedCase:
    """Build the model objects of a case.  The cyclic GC is paused meanwhile (as dractl's
    YAML loader does): building creates many containers and no garbage cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        raw_nodes = case.get("nodes") or [case.get("node")]
        nodes = tuple(build_object(n) if n else None for n in raw_nodes)
        return LoadedCase(
            Features.from_mapping(case.get("features") or {}),
            nodes,  # type: ignore[arg-type]
            tuple(_objects(case.get("deviceClasses"))),
            tuple(_objects(case.get("resourceSlices"))),
            tuple(_objects(case.get("claims"))),
            _state(case),
        )
    finally:
        if enabled:
            gc.enable()


def outcome_dict(outcome: NodeOutcome) -> dict[str, Any]:
    """``{"results": [...], "error": str | None}`` as the case format records answers."""
    return {
        "results": outcome.results_dicts() if outcome.status == "allocated" else [],
        "error": outcome.error,
    }


LEXICOGRAPHICAL_REASON = (
    "upstream runs TestLexicographicalAllocator against incubating and experimental "
    "only: stable does not sort pools and slices"
)


def implementations_for(case: Mapping[str, Any]) -> dict[str, str | None]:
    """Each implementation -> None when upstream's shared test runs the case against it,
    else the reason it does not (as the upstream test skips it)."""
    features = Features.from_mapping(case.get("features") or {})
    able = supporting(features)
    out: dict[str, str | None] = {}
    for impl in IMPLEMENTATIONS:
        if impl not in able:
            out[impl] = f"required feature(s) not supported by the {impl} allocator"
        elif impl == "stable" and case.get("source") == "TestLexicographicalAllocator":
            out[impl] = LEXICOGRAPHICAL_REASON
        else:
            out[impl] = None
    return out


def run_case(case: Mapping[str, Any], implementation: str = "auto") -> dict[str, Any]:
    """Allocate the case's claims on its node: ``{"results": [AllocationResult dicts],
    "error": str | None}``; empty results and no error mean "cannot allocate here".
    ``implementation``: as for :class:`Allocator` (``auto``: what Kubernetes picks)."""
    loaded = load_case(case)
    outcome = loaded.allocator(implementation).allocate(loaded.nodes[0], loaded.claims)
    return outcome_dict(outcome)
