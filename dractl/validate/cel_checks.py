"""CEL checks on every selector, through the CEL layer (RC-CEL-…).

The API server checks a *new* expression in this order: length (TooLong,
not compiled), then compile + type-check in the "NewExpressions" environment
(Invalid ``compilation failed: …``), then the estimated cost (Forbidden
``too complex, exceeds cost limit``).  Derived-attribute expressions may return
a scalar and their costs add up per claim (RC-DERIVED-COST).

Results are cached per (expression, gates, mode): corpora repeat selectors a lot.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from dractl.model.features import Features

CEL_MAX_LENGTH = 10240
CEL_MAX_COST = 1_000_000


@dataclass(frozen=True, slots=True)
class CelVerdict:
    """``error_type`` None means the expression compiled; ``cost`` is its estimated worst case."""

    error_type: str | None = None
    message: str = ""
    cost: int = 0
    available: bool = True


def check_expression(expr: str, features: Features, *, derived: bool = False) -> CelVerdict:
    """Compile one selector as the API server would for a new object (never raises)."""
    if len(expr.encode("utf-8", "surrogatepass")) > CEL_MAX_LENGTH:  # a lone surrogate counts as 3 bytes
        return CelVerdict("TooLong", f"may not be more than {CEL_MAX_LENGTH} bytes")
    return _compile(expr, features, derived)


@lru_cache(maxsize=4096)
def _compile(expr: str, features: Features, derived: bool) -> CelVerdict:
    try:
        from dractl.cel import compile_selector
    except ImportError:
        return CelVerdict(available=False)
    from dractl.errors import CelCompileError

    try:
        # Derived attributes compile like selectors; only their result type differs (a scalar
        # is fine), so the bool-result error is ignored for them below.
        selector = compile_selector(expr, env="new", features=features)
    except CelCompileError as exc:
        if derived and "must evaluate to bool" in exc.message:
            return CelVerdict()
        return CelVerdict(exc.error_type or "Invalid", exc.message)
    cost = int(getattr(selector, "max_cost", 0) or 0)
    if cost > CEL_MAX_COST:
        return CelVerdict("Forbidden", "too complex, exceeds cost limit", cost)
    return CelVerdict(cost=cost)


def cel_available() -> bool:
    try:
        from dractl.cel import compile_selector  # noqa: F401
    except ImportError:
        return False
    return True
