"""The public API: compile a DRA selector once, evaluate it against model devices.

``stored`` is the environment the scheduler's allocator uses (every library and field is
declared, whatever the gates); ``new`` is what the API server uses for new or changed
selectors (``includes()`` and ranging over attributes need DRAListTypeAttributes,
``allowMultipleAllocations`` needs DRAConsumableCapacity).

Every function takes an optional :class:`~dractl.cel.cache.CelCache`; without one the
process default :data:`~dractl.cel.cache.DEFAULT_CACHE` (bounded) is used.
"""

from __future__ import annotations

from dractl.cel.cache import DEFAULT_CACHE, CelCache, EnvKind
from dractl.cel.program import DEFAULT_COST_LIMIT, Selector
from dractl.model.features import Features

EnvName = EnvKind
__all__ = [
    "DEFAULT_COST_LIMIT",
    "EnvName",
    "Selector",
    "clear_caches",
    "compile_selector",
    "validate_selector",
]


def compile_selector(
    expression: str,
    *,
    env: EnvName = "stored",
    features: Features | None = None,
    cache: CelCache | None = None,
) -> Selector:
    """Compile as Kubernetes' ``CompileCELExpression`` does (no length or cost rejection here;
    see :func:`validate_selector`).  Raises CelCompileError; results are cached in ``cache``."""
    return (cache if cache is not None else DEFAULT_CACHE).compile(expression, env, features)


def validate_selector(
    expression: str, *, features: Features | None = None, env: EnvName = "new", cache: CelCache | None = None
) -> str | None:
    """What API-server validation says about a selector in a new object: TooLong over 10 KiB,
    else the compile error, else "too complex, exceeds cost limit"; None when accepted."""
    return (cache if cache is not None else DEFAULT_CACHE).validate(expression, features, env)


def clear_caches() -> None:
    """Empty the default cache (tests and benchmarks)."""
    DEFAULT_CACHE.clear()
