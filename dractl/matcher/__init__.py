"""The embedded allocator: the Kubernetes structured allocator's semantics, with a trace.

Public API (see :mod:`dractl.matcher.api`): ``allocate``, ``AllocationInputs``,
``AllocatedState``, ``NodeOutcome``, ``AllocationTrace``, ``Decision``, ``Reason``;
``Allocator`` (engine) for many nodes against one cluster state; and
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
    allocate,
)
from dractl.matcher.engine import Allocator

__all__ = [
    "FIXED_SHARE_ID", "AllocatedState", "AllocationInputs", "AllocationTrace", "Allocator", "Decision",
    "NodeOutcome", "Reason", "RequestCount", "allocate",
]
