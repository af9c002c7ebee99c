"""The public API: compile a DRA selector once, evaluate it against model devices.

``stored`` is the environment the scheduler's allocator uses (every library and field is
declared, whatever the gates); ``new`` is what the API server uses for new or changed
selectors (``includes()`` and ranging over attributes need DRAListTypeAttributes,
``allowMultipleAllocations`` needs DRAConsumableCapacity).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from dractl.cel.activation import DeviceActivationCache, DeviceConversionError
from dractl.cel.cost import estimate
from dractl.cel.env import MAX_COST, MAX_EXPRESSION_BYTES, CompileFailure, compile_ast, env_spec
from dractl.cel.interp import Compiler, ProgramError, State
from dractl.cel.values import CostExceeded, EvalError, type_name
from dractl.errors import CelCompileError, CelRuntimeError
from dractl.model.features import Features

if TYPE_CHECKING:  # the model classes load only where objects are built
    from dractl.model.objects import Device

EnvName = Literal["stored", "new"]
DEFAULT_COST_LIMIT = MAX_COST
_DEFAULT_ACTIVATIONS = DeviceActivationCache()
# the parser and checker recurse once per nesting level; Kubernetes allows 250 levels
_RECURSION_LIMIT = 20_000


def _bool_error(v: Any) -> str:
    t = type_name(v)
    if t in ("int", "uint", "double"):
        tail = f"unsupported type conversion from '{t}' to bool"
    elif t == "string":
        tail = "unsupported native conversion from string to 'bool'"
    elif t in ("list", "map"):
        tail = f"type conversion error from {t} to 'bool'"
    else:
        tail = f"type conversion error from '{t}' to 'bool'"
    return f"CEL result of type {t} could not be converted to bool: {tail}"


class Selector:
    """A compiled selector.  ``max_cost`` is the estimated worst-case cost (cel-go's estimator
    with the DRA size model); the API server rejects selectors above 1,000,000."""

    __slots__ = ("_program", "env", "expression", "max_cost", "min_cost", "referenced")

    def __init__(self, expression: str, env: str, program: Any, min_cost: int, max_cost: int,
                 referenced: tuple[tuple[str, str, str], ...]) -> None:
        self.expression = expression
        self.env = env
        self._program = program
        self.min_cost = min_cost
        self.max_cost = max_cost
        self.referenced = referenced

    def evaluate(self, device: Device, *, cost_limit: int = DEFAULT_COST_LIMIT,
                 activations: DeviceActivationCache | None = None) -> tuple[bool, int]:
        """(matches, actual cost); raises CelRuntimeError."""
        cache = activations if activations is not None else _DEFAULT_ACTIVATIONS
        try:
            dev = cache.get(device)
        except DeviceConversionError as e:
            raise CelRuntimeError(e.message) from None
        st = State({"device": dev}, cost_limit)
        try:
            result = self._program(st)
        except CostExceeded as e:
            raise CelRuntimeError(e.message) from None
        except EvalError as e:
            raise CelRuntimeError(e.message) from None
        except RecursionError:
            raise CelRuntimeError("max recursion depth exceeded") from None
        except (ArithmeticError, LookupError, TypeError, ValueError) as e:  # a gap in dractl, not input
            raise CelRuntimeError(f"internal error: {type(e).__name__}: {e}") from None
        if type(result) is not bool:
            raise CelRuntimeError(_bool_error(result))
        return result, st.cost

    def matches(self, device: Device, *, cost_limit: int = DEFAULT_COST_LIMIT,
                activations: DeviceActivationCache | None = None) -> bool:
        """Whether the device matches; raises CelRuntimeError (Kubernetes fails the allocation)."""
        return self.evaluate(device, cost_limit=cost_limit, activations=activations)[0]

    def __repr__(self) -> str:
        return f"Selector({self.expression!r}, env={self.env!r}, max_cost={self.max_cost})"


def _referenced(ast: Any) -> tuple[tuple[str, str, str], ...]:
    """(map, domain, name) for ``device.attributes["d"].name`` / ``device.capacity["d"].name``."""
    from dractl.cel.ast import Call, Const, Ident, Select, children

    out: list[tuple[str, str, str]] = []
    stack = [ast]
    while stack:
        e = stack.pop()
        stack.extend(children(e))
        inner = None
        name = None
        if isinstance(e, Select):
            inner, name = e.operand, e.field
        elif isinstance(e, Call) and e.function in ("_?._", "_[_]", "_[?_]") and len(e.args) == 2 \
                and isinstance(e.args[1], Const) and e.args[1].kind == "string":
            inner, name = e.args[0], e.args[1].value
        if inner is None or name is None:
            continue
        if isinstance(inner, Call) and inner.function in ("_[_]", "_[?_]") and len(inner.args) == 2:
            base, key = inner.args
            if isinstance(key, Const) and key.kind == "string" and isinstance(base, Select) \
                    and isinstance(base.operand, Ident) and base.operand.name == "device" \
                    and base.field in ("attributes", "capacity"):
                out.append((base.field, key.value, name))
    return tuple(dict.fromkeys(out))


def _gates(features: Features | None) -> tuple[bool, bool]:
    """The gates that change the ``new`` environment; None means the default release's defaults."""
    f = features if features is not None else Features.for_version()
    return f.list_type_attributes, f.consumable_capacity


@lru_cache(maxsize=4096)
def _compile_cached(expression: str, env: str, list_attrs: bool,
                    consumable: bool) -> Selector | CelCompileError:
    spec = env_spec(env, list_attrs, consumable)
    try:
        compiled = compile_ast(expression, spec)
    except CompileFailure as e:
        return CelCompileError(e.message, e.error_type)
    except RecursionError:
        return CelCompileError("compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded")
    except (ArithmeticError, LookupError, TypeError, ValueError) as e:  # a gap in dractl, not input
        return CelCompileError(f"unexpected compilation error: {type(e).__name__}: {e}", "InternalError")
    try:
        program = Compiler(compiled.checked.overloads, compiled.checked.rewritten).compile(compiled.ast)
        est = estimate(compiled.ast, compiled.checked)
    except ProgramError as e:
        return CelCompileError(f"program instantiation failed: {e}", "InternalError")
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        return CelCompileError(f"unexpected compilation error: {type(e).__name__}: {e}", "InternalError")
    return Selector(expression, env, program, est.min, est.max, _referenced(compiled.ast))


def compile_selector(expression: str, *, env: EnvName = "stored",
                     features: Features | None = None) -> Selector:
    """Compile as Kubernetes' ``CompileCELExpression`` does (no length or cost rejection here;
    see :func:`validate_selector`).  Raises CelCompileError; results are cached."""
    if env not in ("stored", "new"):
        raise ValueError(f"env must be 'stored' or 'new', not {env!r}")
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    list_attrs, consumable = _gates(features) if env == "new" else (True, True)
    result = _compile_cached(expression, env, list_attrs, consumable)
    if isinstance(result, CelCompileError):
        raise CelCompileError(result.message, result.error_type)
    return result


def validate_selector(expression: str, *, features: Features | None = None,
                      env: EnvName = "new") -> str | None:
    """What API-server validation says about a selector in a new object: TooLong over 10 KiB,
    else the compile error, else "too complex, exceeds cost limit"; None when accepted."""
    size = len(expression.encode("utf-8"))
    if size > MAX_EXPRESSION_BYTES:
        return f"Too long: may not be more than {MAX_EXPRESSION_BYTES} bytes"
    try:
        sel = compile_selector(expression, env=env, features=features)
    except CelCompileError as e:
        return e.message
    if sel.max_cost > MAX_COST:
        return "too complex, exceeds cost limit"
    return None


def clear_caches() -> None:
    """Forget compiled selectors and converted devices (tests and benchmarks)."""
    _compile_cached.cache_clear()
    _DEFAULT_ACTIVATIONS.clear()
