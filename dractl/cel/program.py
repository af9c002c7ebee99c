"""A compiled selector (:class:`Selector`) and the compile pipeline that builds one.

:func:`build` runs parse → check → AST validators → program → cost estimate and returns either a
:class:`Selector` or the :class:`~dractl.errors.CelCompileError` Kubernetes would report.  It
caches nothing: :class:`dractl.cel.cache.CelCache` owns the caches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.cel.activation import (
    ATTRIBUTES,
    CAPACITY,
    WHOLE,
    DeviceActivationCache,
    DeviceConversionError,
    convert,
)
from dractl.cel.cost import estimate
from dractl.cel.env import MAX_COST, CompileFailure, compile_ast, env_spec
from dractl.cel.limits import deep_recursion
from dractl.cel.operations import State
from dractl.cel.parser import ast_depth
from dractl.cel.planner import Compiler, ProgramError
from dractl.cel.values import CostExceeded, EvalError, type_name
from dractl.errors import CelCompileError, CelRuntimeError

if TYPE_CHECKING:  # the model classes load only where objects are built
    from dractl.model.objects import Device

DEFAULT_COST_LIMIT = MAX_COST
# expressions nested deeper than this evaluate under deep_recursion(); shallower ones (nearly all)
# need no more than Python's default stack and skip the two extra calls
_SHALLOW_DEPTH = 24


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
    with the DRA size model); the API server rejects selectors above 1,000,000.

    ``activations`` is where converted devices are kept between evaluations: the one given to
    :meth:`evaluate`, else the one of the :class:`~dractl.cel.cache.CelCache` that compiled the
    selector (None: each evaluation converts the device afresh)."""

    __slots__ = (
        "_deep",
        "_parts",
        "_program",
        "activations",
        "device_reads",
        "env",
        "expression",
        "max_cost",
        "min_cost",
        "referenced",
    )

    def __init__(
        self,
        expression: str,
        env: str,
        program: Any,
        min_cost: int,
        max_cost: int,
        referenced: tuple[tuple[str, str, str], ...],
        *,
        deep: bool = False,
        activations: DeviceActivationCache | None = None,
        device_reads: DeviceReads | None = None,
    ) -> None:
        self.expression = expression
        self.device_reads = device_reads
        """What the expression reads of ``device`` (see :func:`device_reads`); None: anything."""
        self._parts = parts_read(device_reads)
        self.env = env
        self._program = program
        self._deep = deep
        self.min_cost = min_cost
        self.max_cost = max_cost
        self.referenced = referenced
        self.activations = activations

    def evaluate(
        self,
        device: Device,
        *,
        cost_limit: int = DEFAULT_COST_LIMIT,
        activations: DeviceActivationCache | None = None,
    ) -> tuple[bool, int]:
        """(matches, actual cost); raises CelRuntimeError."""
        cache = activations if activations is not None else self.activations
        try:
            dev = cache.get(device, self._parts) if cache is not None else convert(device, self._parts)
        except DeviceConversionError as e:
            raise CelRuntimeError(e.message) from None
        st = State({"device": dev}, cost_limit)
        try:
            if self._deep:
                with deep_recursion():
                    result = self._program(st)
            else:
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

    def matches(
        self,
        device: Device,
        *,
        cost_limit: int = DEFAULT_COST_LIMIT,
        activations: DeviceActivationCache | None = None,
    ) -> bool:
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
        elif (
            isinstance(e, Call)
            and e.function in ("_?._", "_[_]", "_[?_]")
            and len(e.args) == 2
            and isinstance(e.args[1], Const)
            and e.args[1].kind == "string"
        ):
            inner, name = e.args[0], e.args[1].value
        if inner is None or name is None:
            continue
        if isinstance(inner, Call) and inner.function in ("_[_]", "_[?_]") and len(inner.args) == 2:
            base, key = inner.args
            if (
                isinstance(key, Const)
                and key.kind == "string"
                and isinstance(base, Select)
                and isinstance(base.operand, Ident)
                and base.operand.name == "device"
                and base.field in ("attributes", "capacity")
            ):
                out.append((base.field, key.value, name))
    return tuple(dict.fromkeys(out))


DeviceReads = frozenset[tuple[str, ...]]
"""``("driver",)``, ``("allowMultipleAllocations",)``, ``("attributes",)``/``("capacity",)`` (the
whole map), ``("attributes", domain, name)``/``("capacity", domain, name)`` (one entry)."""

_DEVICE_FIELDS = ("driver", "allowMultipleAllocations", "attributes", "capacity")


class _AnyRead(Exception):
    """``device`` is used in a way the analysis does not follow."""


def device_reads(ast: Any) -> DeviceReads | None:
    """What of the ``device`` variable the expression can read: its fields, and for
    ``device.attributes["d"].name`` / ``device.capacity["d"].name`` (also ``["name"]``,
    ``.?name``, ``[?"d"]``) the one entry; None when ``device`` is used any other way (passed
    whole, or shadowed by a comprehension variable).  The result of an evaluation depends on
    nothing else of the device, apart from whether the device converts at all."""
    from dractl.cel.ast import Call, Comprehension, Const, Ident, Select, children

    out: set[tuple[str, ...]] = set()

    def map_key(e: Any) -> tuple[str, str] | None:  # device.attributes["d"] -> ("attributes", "d")
        if (
            isinstance(e, Call)
            and e.function in ("_[_]", "_[?_]")
            and e.target is None
            and len(e.args) == 2
            and isinstance(e.args[1], Const)
            and e.args[1].kind == "string"
            and isinstance(e.args[0], Select)
            and not e.args[0].test_only
            and isinstance(e.args[0].operand, Ident)
            and e.args[0].operand.name == "device"
            and e.args[0].field in ("attributes", "capacity")
        ):
            return e.args[0].field, e.args[1].value
        return None

    def visit(e: Any) -> None:
        if isinstance(e, Comprehension) and "device" in (e.iter_var, e.iter_var2, e.accu_var):
            raise _AnyRead()
        if isinstance(e, Ident):
            if "device" in e.name:
                raise _AnyRead()
            return
        if isinstance(e, Select):
            if isinstance(e.operand, Ident) and e.operand.name == "device":
                if e.field not in _DEVICE_FIELDS:
                    raise _AnyRead()
                out.add((e.field,))
                return
            key = map_key(e.operand)
            if key is not None:
                out.add((*key, e.field))
                return
        if (
            isinstance(e, Call)
            and e.function in ("_[_]", "_[?_]", "_?._")
            and e.target is None
            and len(e.args) == 2
            and isinstance(e.args[1], Const)
            and e.args[1].kind == "string"
        ):
            key = map_key(e.args[0])
            if key is not None:
                out.add((*key, e.args[1].value))
                return
        for c in children(e):
            visit(c)

    try:
        visit(ast)
    except (_AnyRead, RecursionError):
        return None
    return frozenset(out)


def parts_read(reads: DeviceReads | None) -> int:
    """What of the device :func:`dractl.cel.activation.convert` must build for a program with
    these reads: the attributes map, the capacity map, or (None: any read) the whole device."""
    if reads is None:
        return WHOLE
    parts = 0
    for r in reads:
        if r[0] == "attributes":
            parts |= ATTRIBUTES
        elif r[0] == "capacity":
            parts |= CAPACITY
    return parts


def build(
    expression: str,
    env: str,
    list_attrs: bool,
    consumable: bool,
    *,
    activations: DeviceActivationCache | None = None,
) -> Selector | CelCompileError:
    """Compile as Kubernetes' ``CompileCELExpression`` does; the error is returned, not raised."""
    with deep_recursion():
        return _build(expression, env, list_attrs, consumable, activations)


def _build(
    expression: str, env: str, list_attrs: bool, consumable: bool, activations: DeviceActivationCache | None
) -> Selector | CelCompileError:
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
    return Selector(
        expression,
        env,
        program,
        est.min,
        est.max,
        _referenced(compiled.ast),
        deep=ast_depth(compiled.ast) > _SHALLOW_DEPTH,
        activations=activations,
        device_reads=device_reads(compiled.ast),
    )
