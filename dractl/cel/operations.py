"""Run-time operations of compiled CEL programs: the evaluation :class:`State`, cost charging,
calls, ``&&``/``||`` with CEL's commutative error absorption, and the run-time cost functions
(cel-go's sized costs plus Kubernetes' ``CostEstimator.CallCost``).

:mod:`dractl.cel.planner` builds programs out of these pieces.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dractl.cel.functions import _SIZED, _SIZED_COST, _size
from dractl.cel.values import (
    CostExceeded,
    DefaultMap,
    EvalError,
    TypeVal,
    no_overload,
)

Fn = Callable[["State"], Any]


class State:
    __slots__ = ("cost", "limit", "vars")

    def __init__(self, variables: dict[str, Any], limit: int) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit


class _Err:
    """An error stored in a comprehension accumulator."""

    __slots__ = ("err",)

    def __init__(self, err: EvalError) -> None:
        self.err = err


class _Lazy:
    """A cel.bind value evaluated on first use."""

    __slots__ = ("done", "fn", "value")

    def __init__(self, fn: Fn) -> None:
        self.fn = fn
        self.done = False
        self.value: Any = None


_MISSING = object()


def _restore(vs: dict[str, Any], name: str, saved: Any) -> None:
    if saved is _MISSING:
        vs.pop(name, None)
    else:
        vs[name] = saved


def _charge(st: State) -> None:
    st.cost += 1
    if st.cost > st.limit:
        raise CostExceeded()


def _charge_sized(st: State, x: Any, y: Any) -> None:
    """cel-go's run-time cost of equality and ordering: a tenth of the smaller operand's size,
    rounded up (``_size`` of each, inline)."""
    n = len(x) if type(x) in _SIZED else 1
    m = len(y) if type(y) in _SIZED else 1
    st.cost += -(-(n if n < m else m) // 10)
    if st.cost > st.limit:
        raise CostExceeded()


def _call(impl: Callable[..., Any], args: list[Fn], sized: Callable[[list[Any]], int] | None = None) -> Fn:
    if sized is not None:

        def cs(st: State) -> Any:
            vals = [f(st) for f in args]
            extra = sized(vals)
            st.cost += extra if extra >= 0 else 0
            if st.cost > st.limit:
                raise CostExceeded()
            return impl(*vals)

        return cs
    if len(args) == 0:

        def c0(st: State) -> Any:
            st.cost += 1  # _charge, inline
            if st.cost > st.limit:
                raise CostExceeded()
            return impl()

        return c0
    if len(args) == 1:
        a = args[0]

        def c1(st: State) -> Any:
            x = a(st)
            st.cost += 1  # _charge, inline
            if st.cost > st.limit:
                raise CostExceeded()
            return impl(x)

        return c1
    if len(args) == 2:
        a, b = args

        def c2(st: State) -> Any:
            x, y = a(st), b(st)
            st.cost += 1  # _charge, inline
            if st.cost > st.limit:
                raise CostExceeded()
            return impl(x, y)

        return c2

    def cn(st: State) -> Any:
        vals = [f(st) for f in args]
        st.cost += 1  # _charge, inline
        if st.cost > st.limit:
            raise CostExceeded()
        return impl(*vals)

    return cn


def _logical(a: Fn, b: Fn, absorbing: bool, name: str) -> Fn:
    """``&&`` (absorbing False) and ``||`` (absorbing True) with CEL's commutative error handling:
    an error or non-bool on one side is absorbed when the other side decides the result."""
    neutral = not absorbing

    def op(st: State) -> bool:
        err: EvalError | None = None
        try:
            x = a(st)
        except CostExceeded:
            raise
        except EvalError as e:
            err, x = e, None
        if x is absorbing:
            return absorbing
        if err is None and x is not neutral:
            err = no_overload(name)
        y = b(st) if err is None else _try(b, st)
        if y is absorbing:
            return absorbing
        if err is not None:
            raise err
        if type(y) is _Err:
            raise y.err
        if y is not neutral:
            raise no_overload(name)
        return neutral

    return op


def _and(a: Fn, b: Fn) -> Fn:
    return _logical(a, b, False, "_&&_")


def _or(a: Fn, b: Fn) -> Fn:
    return _logical(a, b, True, "_||_")


def _try(f: Fn, st: State) -> Any:
    try:
        return f(st)
    except CostExceeded:
        raise
    except EvalError as e:
        return _Err(e)


# Qualified type names usable as values, with their run-time cost: the protobuf well-known types
# are constants; Kubernetes declares net.IP and net.CIDR as variables (an attribute read: cost 1).
_QUALIFIED_TYPES = {"google.protobuf.Duration": 0, "google.protobuf.Timestamp": 0, "net.IP": 1, "net.CIDR": 1}


def _qualified_type(q: str, select: Fn) -> Fn:
    """A type value for ``q`` unless its head names a variable (then an ordinary field selection)."""
    head, value, step = q.split(".")[0], TypeVal(q), _QUALIFIED_TYPES[q]

    def type_ident(st: State) -> Any:
        if head in st.vars:
            return select(st)
        st.cost += step
        if st.cost > st.limit:
            raise CostExceeded()
        return value

    return type_ident


def _traversal(v: Any) -> int:
    """Kubernetes' traversalCost: a tenth of each string's/bytes' length (in bytes, rounded
    down), summed over lists and maps; 1 for any other value."""
    t = type(v)
    if t is str:
        return int(len(v.encode()) * 0.1)
    if t is bytes:
        return int(len(v) * 0.1)
    if t is list:
        return sum(_traversal(x) for x in v)
    if t is dict or t is DefaultMap:
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


# Run-time costs: cel-go's sized costs plus Kubernetes' CostEstimator.CallCost, which prices
# these O(n) list/string functions at one traversal of the receiver instead of 1.
_RUNTIME_COST: dict[str, Callable[[list[Any]], int]] = dict(_SIZED_COST)
for _fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
    _RUNTIME_COST[_fn] = lambda v: _traversal(v[0])


def _parse_cost(v: Any) -> int:
    """A string argument of containsIP/containsCIDR is parsed first: a tenth of its length."""
    return math.ceil(len(v) * 0.1) if type(v) is str else 0


def _join_cost(v: list[Any]) -> int:
    """A fifth of the joined string's length (known from the arguments before joining)."""
    items = v[0] if type(v[0]) is list else []
    sep = len(v[1]) if len(v) > 1 and type(v[1]) is str else 0
    size = sum(len(x) for x in items if type(x) is str) + sep * max(len(items) - 1, 0)
    return math.ceil(size * 0.2)


# a CIDR has no size (1): comparing costs ceil(0.2) = 1; containsCIDR also masks: + ceil(0.1) + 1
_RUNTIME_COST["containsIP"] = lambda v: 1 + _parse_cost(v[1])
_RUNTIME_COST["containsCIDR"] = lambda v: 3 + _parse_cost(v[1])
_RUNTIME_COST["join"] = _join_cost
# cel-go ext.Sets: 1 plus one comparison per pair of elements (equivalence checks both ways)
_RUNTIME_COST["sets.contains"] = lambda v: 1 + _size(v[0]) * _size(v[1])
_RUNTIME_COST["sets.intersects"] = lambda v: 1 + _size(v[0]) * _size(v[1])
_RUNTIME_COST["sets.equivalent"] = lambda v: 1 + 2 * _size(v[0]) * _size(v[1])
# cel-go: converting between string and bytes, and strings.quote, traverse the argument
_RUNTIME_COST["bytes"] = lambda v: math.ceil(len(v[0]) * 0.1) if type(v[0]) is str else 1
_RUNTIME_COST["string"] = lambda v: math.ceil(len(v[0]) * 0.1) if type(v[0]) is bytes else 1
_RUNTIME_COST["strings.quote"] = lambda v: math.ceil(len(v[0]) * 0.1) if type(v[0]) is str else 1
