"""The embedded allocator: the Kubernetes structured allocator's semantics, with a trace.

Public API: the data in :mod:`dractl.matcher.api` (``AllocationInputs``,
``AllocatedState``, ``NodeOutcome``, ``AllocationTrace``, ``Decision``, ``Reason``);
``allocate`` and ``Allocator`` (engine; an Allocator serves many nodes against one
cluster state and takes a ``dractl.cel.cache.CelCache`` as ``cel_cache``); the
implementation choice in :mod:`dractl.matcher.implementations`; and
``dractl.matcher.conformance.run_case`` for the shared conformance format.
"""

from dractl.matcher.api import (
    FIXED_SHARE_ID,
    AllocatedState,
    AllocationInputs,
    AllocationTrace,
    Decision,
    NodeOutcome,
    Reason,
    RequestCount,
)
from dractl.matcher.engine import Allocator, allocate
from dractl.matcher.implementations import IMPLEMENTATIONS, UnsupportedFeatures, choose

__all__ = [
    "FIXED_SHARE_ID",
    "IMPLEMENTATIONS",
    "AllocatedState",
    "AllocationInputs",
    "AllocationTrace",
    "Allocator",
    "Decision",
    "NodeOutcome",
    "Reason",
    "RequestCount",
    "UnsupportedFeatures",
    "allocate",
    "choose",
]
