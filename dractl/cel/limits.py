"""Scoped interpreter limits for deep parses and evaluations.

Kubernetes allows selectors nested 250 levels deep (``expression recursion limit exceeded:
250``).  The parser, checker, cost estimator and the compiled closures recurse once or a few
times per level, which needs more than Python's default of 1,000 frames.  :func:`deep_recursion`
raises the limit for the duration of one compile or evaluation and restores it afterwards, so
dractl never leaves the process with a raised limit.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: frames needed for a 250-level expression through parse, check, estimate and evaluation
DEEP_RECURSION_LIMIT = 20_000


@contextmanager
def deep_recursion(limit: int = DEEP_RECURSION_LIMIT) -> Iterator[None]:
    """Raise ``sys.getrecursionlimit()`` to at least ``limit`` inside the block, then restore it."""
    before = sys.getrecursionlimit()
    if before >= limit:
        yield
        return
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)
