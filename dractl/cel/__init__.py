"""The DRA CEL engine: compile, type-check, cost-check and evaluate selectors as Kubernetes does.

Public API::

    sel = compile_selector(expr, env="stored", features=Features(...))   # CelCompileError
    sel.max_cost                                                         # estimated worst case
    sel.matches(device, cost_limit=1_000_000)                            # CelRuntimeError
    validate_selector(expr, features=...)                                # API-server verdict or None

    cache = CelCache(max_entries=4096)          # one per run, passed explicitly (bounded LRU)
    cache.compile(expr, "stored", features)     # the same, cached in ``cache``

A Python implementation (parser, cel-go-compatible checker, cost estimator and evaluator); the
only native code is Google's RE2 (``google-re2``), loaded on the first regex, so that
``matches()``/``find()``/``findAll()`` run in linear time as in Kubernetes.
"""

from dractl.cel.activation import DeviceActivationCache
from dractl.cel.cache import DEFAULT_CACHE, CelCache
from dractl.cel.results import MatchCache
from dractl.cel.selector import Selector, clear_caches, compile_selector, validate_selector

__all__ = [
    "DEFAULT_CACHE",
    "CelCache",
    "DeviceActivationCache",
    "MatchCache",
    "Selector",
    "clear_caches",
    "compile_selector",
    "validate_selector",
]
