"""The planner: a checked AST compiled once into Python closures (cel-go's ``interpreter``
planner).

Errors are exceptions (:class:`EvalError`); ``&&``, ``||``, ``@not_strictly_false`` and
comprehension accumulators absorb them the way cel-go's error values are absorbed.  Every
closure adds its runtime cost to ``State.cost`` and the limit is enforced as cel-go does; the
run-time pieces live in :mod:`dractl.cel.operations`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from dractl.cel.access import _EMPTY, _has, _index, _opt_index, _opt_select, _select
from dractl.cel.ast import (
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateMap,
    CreateStruct,
    Expr,
    Ident,
    Select,
    qualified_name,
)
from dractl.cel.functions import _CONVERSIONS, _FUNCS, _PURE, _TYPE_NAMES, _opt
from dractl.cel.lib.regex import RegexError, compile_regex
from dractl.cel.operations import (
    _MISSING,
    _QUALIFIED_TYPES,
    _RUNTIME_COST,
    Fn,
    State,
    _and,
    _call,
    _charge,
    _charge_sized,
    _Err,
    _Lazy,
    _or,
    _qualified_type,
    _restore,
)
from dractl.cel.values import (
    CostExceeded,
    DefaultMap,
    EvalError,
    TypeVal,
    UInt,
    _NaN,
    compare,
    equals,
    no_overload,
    type_name,
)

_ORDER = {"_<_": operator.lt, "_<=_": operator.le, "_>_": operator.gt, "_>=_": operator.ge}

_GO_TYPES = {
    "int": "types.Int",
    "uint": "types.Uint",
    "double": "types.Double",
    "string": "types.String",
    "bool": "types.Bool",
    "bytes": "types.Bytes",
    "null_type": "types.Null",
    "kubernetes.Semver": "cel.Semver",
    "kubernetes.Quantity": "*cel.Quantity",
}


class ProgramError(Exception):
    """A failure while building the program (cel-go: "program instantiation failed")."""


class Compiler:
    """Turns a checked AST into closures.  ``fold`` evaluates constant conversions up front."""

    def __init__(self, overloads: dict[int, list[str]], rewritten: dict[int, str]) -> None:
        self.overloads = overloads
        self.rewritten = rewritten

    def compile(self, e: Expr) -> Fn:
        if isinstance(e, Const):
            v = e.value
            if e.kind == "uint":
                v = UInt(v)
            return lambda st: v
        if isinstance(e, Ident):
            return self.ident(e.name)
        if isinstance(e, Select):
            return self.select(e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, CreateList):
            return self.create_list(e)
        if isinstance(e, CreateMap):
            return self.create_map(e)
        if isinstance(e, Comprehension):
            return self.comprehension(e)
        if isinstance(e, CreateStruct):
            raise ProgramError(f"unknown type {e.type_name}")
        raise TypeError(e)

    def ident(self, name: str) -> Fn:
        type_value = TypeVal({"null_type": "null_type"}.get(name, name))
        if name in _TYPE_NAMES:

            def type_ident(st: State) -> Any:  # a type name is a constant (no cost)
                v = st.vars.get(name, _MISSING)
                return type_value if v is _MISSING else v

            return type_ident

        def ident(st: State) -> Any:
            st.cost += 1
            if st.cost > st.limit:
                raise CostExceeded()
            try:
                v = st.vars[name]
            except KeyError:
                return type_value
            t = type(v)
            if t is _Err:
                raise v.err
            if t is _Lazy:
                if not v.done:
                    v.value = v.fn(st)
                    v.done = True
                return v.value
            return v

        return ident

    def select(self, e: Select) -> Fn:
        operand = self.compile(e.operand)
        name = e.field
        if e.test_only:

            def has(st: State) -> Any:  # presence tests cost nothing (PresenceTestHasCost(false))
                return _has(operand(st), name)

            return has

        def select(st: State) -> Any:
            v = operand(st)
            st.cost += 1
            if st.cost > st.limit:
                raise CostExceeded()
            if type(v) is DefaultMap:
                return v.get(name, _EMPTY)
            if type(v) is dict:
                try:
                    return v[name]
                except KeyError:
                    raise EvalError(f"no such key: {name}") from None
            return _select(v, name)

        q = qualified_name(e)
        if q in _QUALIFIED_TYPES:
            return _qualified_type(q, select)
        if isinstance(e.operand, Ident) and e.operand.name not in _TYPE_NAMES:
            var = e.operand.name

            def select_var(st: State) -> Any:
                """``var.name``: when ``var`` is a plain map (``device``), the ident's and the
                select's work in one frame (the same cost and errors), else theirs."""
                v = st.vars.get(var)
                if type(v) is not dict:
                    return select(st)
                st.cost += 2
                if st.cost > st.limit:
                    raise CostExceeded()
                try:
                    return v[name]
                except KeyError:
                    raise EvalError(f"no such key: {name}") from None

            return select_var
        return select

    def create_list(self, e: CreateList) -> Fn:
        items = [self.compile(x) for x in e.elements]
        opt = set(e.optional_indices)
        # cel-go charges 10 for building a list at run time; a list of constants is built once
        # when the program is planned (OptOptimize) and costs nothing.
        cost = 0 if all(isinstance(x, Const) for x in e.elements) else 10
        if not opt:

            def mk_plain(st: State) -> list[Any]:
                st.cost += cost
                if st.cost > st.limit:
                    raise CostExceeded()
                return [f(st) for f in items]

            return mk_plain

        def mk(st: State) -> list[Any]:
            st.cost += cost
            if st.cost > st.limit:
                raise CostExceeded()
            out = []
            for i, f in enumerate(items):
                v = f(st)
                if i in opt:
                    o = _opt(v, "optional list element")
                    if o.has:
                        out.append(o.value)
                else:
                    out.append(v)
            return out

        return mk

    def create_map(self, e: CreateMap) -> Fn:
        ents = [(self.compile(x.key), self.compile(x.value), x.optional) for x in e.entries]
        cost = 0 if all(isinstance(x.key, Const) and isinstance(x.value, Const) for x in e.entries) else 30

        def mk(st: State) -> dict[Any, Any]:
            st.cost += cost
            if st.cost > st.limit:
                raise CostExceeded()
            out: dict[Any, Any] = {}
            for kf, vf, opt in ents:
                k = kf(st)
                if type(k) not in (int, UInt, str, bool):
                    raise EvalError(f"unsupported key type: {type_name(k)}")
                v = vf(st)
                if opt:
                    o = _opt(v, "optional map entry")
                    if not o.has:
                        continue
                    v = o.value
                out[k] = v
            return out

        return mk

    def comprehension(self, e: Comprehension) -> Fn:
        rng = self.compile(e.iter_range)
        init = self.compile(e.accu_init)
        cond = self.compile(e.loop_condition)
        step = self.compile(e.loop_step)
        result = self.compile(e.result)
        accu, iv, iv2 = e.accu_var, e.iter_var, e.iter_var2
        if e.macro == "bind":

            def bind(st: State) -> Any:
                vs = st.vars
                saved = vs.get(accu, _MISSING)
                vs[accu] = _Lazy(init)
                try:
                    return result(st)
                finally:
                    _restore(vs, accu, saved)

            return bind

        def fold(st: State) -> Any:
            r = rng(st)
            vs = st.vars
            saved = [(n, vs.get(n, _MISSING)) for n in (accu, iv, iv2) if n]
            try:
                vs[accu] = init(st)
                if type(r) is list:
                    pairs: Any = enumerate(r) if iv2 else ((None, x) for x in r)
                elif isinstance(r, dict):
                    pairs = ((k, r[k]) for k in list(r)) if iv2 else ((None, k) for k in list(r))
                else:
                    raise EvalError(
                        f"got '{_GO_TYPES.get(type_name(r), type_name(r))}', expected iterable type"
                    )
                for a, b in pairs:
                    if iv2:
                        vs[iv], vs[iv2] = a, b
                    else:
                        vs[iv] = b
                    if cond(st) is False:
                        break
                    try:
                        vs[accu] = step(st)
                    except CostExceeded:
                        raise
                    except EvalError as err:
                        vs[accu] = _Err(err)
                return result(st)
            finally:
                for n, v in saved:
                    _restore(vs, n, v)

        return fold

    # -- calls -------------------------------------------------------------------------------
    def call(self, e: Call) -> Fn:
        fn = self.rewritten.get(e.id, e.function)
        target = None if fn != e.function else e.target
        args = [self.compile(a) for a in ([target] if target is not None else []) + e.args]
        special = self.special(fn, e, args)
        if special is not None:
            return special
        if fn in _CONVERSIONS and all(_is_const(a) for a in e.args) and target is None:
            conv = _CONVERSIONS[fn]
            try:
                value = conv(*[_const_value(a) for a in e.args])
            except EvalError as err:
                raise ProgramError(err.message) from None
            const_args = [_const_value(a) for a in e.args]
            sized_cost = _RUNTIME_COST.get(fn)
            cost = sized_cost(const_args) if sized_cost is not None else 1

            def folded(st: State) -> Any:
                st.cost += cost
                if st.cost > st.limit:
                    raise CostExceeded()
                return value

            return folded
        if fn in _PURE and target is None and e.args and all(isinstance(a, Const) for a in e.args):
            pure = _FUNCS[fn]
            const_args = [_const_value(a) for a in e.args]
            try:
                cached = pure(*const_args)
            except EvalError:
                pass  # keep the failure a run-time error, as Kubernetes does
            else:
                sized_cost = _RUNTIME_COST.get(fn)
                cost = sized_cost(const_args) if sized_cost is not None else 1

                def constant(st: State) -> Any:
                    st.cost += cost
                    if st.cost > st.limit:
                        raise CostExceeded()
                    return cached

                return constant
        if (
            fn in ("find", "findAll")
            and len(e.args) >= 1
            and isinstance(e.args[0], Const)
            and e.args[0].kind == "string"
        ):
            try:
                compile_regex(e.args[0].value)
            except RegexError as err:
                raise ProgramError(f"error parsing regexp: {err}") from None
        impl: Callable[..., Any] | None = _CONVERSIONS.get(fn) or _FUNCS.get(fn)
        if fn == "lists.range":
            return self.lists_range(args[0])
        if impl is None:
            if fn == "includes":
                return self.includes(args)
            raise ProgramError(f"no implementation for function {fn}")
        if (
            fn == "@in"
            and isinstance(e.args[1], CreateList)
            and all(isinstance(x, Const) for x in e.args[1].elements)
        ):
            return _call(impl, args, lambda vals: -1)  # constant lists become sets: no cost
        sized = _RUNTIME_COST.get(fn)
        return _call(impl, args, sized)

    def lists_range(self, arg: Fn) -> Fn:
        def lists_range(st: State) -> list[int]:
            n = arg(st)
            if type(n) is not int:
                raise no_overload("lists.range")
            st.cost += 10 + max(n, 0)
            _charge(st)
            return list(range(n))

        return lists_range

    def includes(self, args: list[Fn]) -> Fn:
        a, b = args

        def includes(st: State) -> bool:
            v, x = a(st), b(st)
            _charge(st)
            if type(v) is list:
                if len(v) > 48:
                    raise EvalError("'includes' function cannot be applied to lists longer than 48 values")
                return any(equals(x, y) is True for y in v)
            return equals(v, x) is True

        return includes

    def special(self, fn: str, e: Call, args: list[Fn]) -> Fn | None:
        if fn == "_&&_":
            return _and(args[0], args[1])
        if fn == "_||_":
            return _or(args[0], args[1])
        if fn == "_?_:_":
            c, t, f = args

            def cond(st: State) -> Any:
                v = c(st)
                if v is True:
                    return t(st)
                if v is False:
                    return f(st)
                raise no_overload("_?_:_")

            return cond
        if fn == "!_":
            a = args[0]

            def not_(st: State) -> bool:
                v = a(st)
                _charge(st)
                if type(v) is not bool:
                    raise no_overload("!_")
                return not v

            return not_
        if fn == "@not_strictly_false":
            a = args[0]

            def nsf(st: State) -> bool:
                try:
                    v = a(st)
                    _charge(st)
                    return v is not False
                except CostExceeded:
                    raise
                except EvalError:
                    return True

            return nsf
        if fn in ("_==_", "_!=_"):
            a, b = args
            ne = fn == "_!=_"

            def eq(st: State) -> bool:
                x, y = a(st), b(st)
                _charge_sized(st, x, y)
                r = equals(x, y)
                if ne:
                    return r is not True
                if r is None:
                    raise no_overload()
                return r

            return eq
        if fn in ("_<_", "_<=_", "_>_", "_>=_"):
            a, b = args
            test = {
                "_<_": lambda c: c < 0,
                "_<=_": lambda c: c <= 0,
                "_>_": lambda c: c > 0,
                "_>=_": lambda c: c >= 0,
            }[fn]
            order = _ORDER[fn]

            def cmp(st: State) -> bool:
                x, y = a(st), b(st)
                _charge_sized(st, x, y)
                tx = type(x)
                if tx is type(y) and (tx is int or tx is str):  # compare's answer, without the calls
                    return order(x, y)
                try:
                    return test(compare(x, y, ""))
                except _NaN:
                    return False

            return cmp
        if fn == "_[_]":
            a, b = args
            key = e.args[1]
            if isinstance(key, Const) and key.kind == "string":
                k = key.value

                def index_str(st: State) -> Any:
                    """``c["k"]``: ``index``'s work, with a device map's lookup inline."""
                    c = a(st)
                    st.cost += 1
                    if st.cost > st.limit:
                        raise CostExceeded()
                    if type(c) is DefaultMap:  # _index: a missing domain is an empty map
                        return c.get(k, _EMPTY)
                    return _index(c, k)

                return index_str

            def index(st: State) -> Any:
                c, k = a(st), b(st)
                _charge(st)
                return _index(c, k)

            return index
        if fn == "_[?_]":
            a, b = args

            def opt_index(st: State) -> Any:
                c, k = a(st), b(st)
                _charge(st)
                return _opt_index(c, k)

            return opt_index
        if fn == "_?._":
            a = args[0]
            arg = e.args[1]
            name = arg.value if isinstance(arg, Const) else ""

            def opt_select(st: State) -> Any:
                v = a(st)
                _charge(st)
                return _opt_select(v, name)

            return opt_select
        return None


def _is_const(e: Expr) -> bool:
    if isinstance(e, Const):
        return True
    return (
        isinstance(e, Call)
        and e.target is None
        and e.function in _CONVERSIONS
        and all(_is_const(a) for a in e.args)
    )


def _const_value(e: Expr) -> Any:
    if isinstance(e, Const):
        return UInt(e.value) if e.kind == "uint" else e.value
    assert isinstance(e, Call)
    return _CONVERSIONS[e.function](*[_const_value(a) for a in e.args])


__all__ = ["Compiler", "ProgramError", "State"]
