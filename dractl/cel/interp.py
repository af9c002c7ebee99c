"""The evaluator: a checked AST compiled once into Python closures.

Errors are exceptions (:class:`EvalError`); ``&&``, ``||``, ``@not_strictly_false`` and
comprehension accumulators absorb them the way cel-go's error values are absorbed.  Every
closure adds its runtime cost to ``State.cost`` and the limit is enforced as cel-go does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel import extlib as X
from dractl.cel import formatting as F
from dractl.cel import k8slib as K
from dractl.cel import stdlib as S
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
)
from dractl.cel.values import (
    NONE,
    CostExceeded,
    DefaultMap,
    EvalError,
    OptionalVal,
    QuantityVal,
    SemverVal,
    TypeVal,
    UInt,
    _NaN,
    compare,
    equals,
    map_find,
    no_overload,
    type_name,
)

Fn = Callable[["State"], Any]
_EMPTY: dict[str, Any] = {}
_GO_TYPES = {"int": "types.Int", "uint": "types.Uint", "double": "types.Double", "string": "types.String",
             "bool": "types.Bool", "bytes": "types.Bytes", "null_type": "types.Null",
             "kubernetes.Semver": "cel.Semver", "kubernetes.Quantity": "*cel.Quantity"}


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


class ProgramError(Exception):
    """A failure while building the program (cel-go: "program instantiation failed")."""


_CONVERSIONS: dict[str, Callable[..., Any]] = {
    "int": S.to_int, "uint": S.to_uint, "double": S.to_double, "string": S.to_string, "bytes": S.to_bytes,
    "bool": S.to_bool, "dyn": lambda v: v, "type": S.type_of,
}

_FUNCS: dict[str, Callable[..., Any]] = {
    "_+_": S.add, "_-_": S.sub, "_*_": S.mul, "_/_": S.div, "_%_": S.mod, "-_": S.neg,
    "size": S.size, "@in": S.contains_in, "duration": S.to_duration, "timestamp": S.to_timestamp,
    "contains": X.contains, "startsWith": X.starts_with, "endsWith": X.ends_with, "matches": X.matches,
    "charAt": X.char_at, "indexOf": X.index_of, "lastIndexOf": X.last_index_of,
    "lowerAscii": X.lower_ascii, "upperAscii": X.upper_ascii, "replace": X.replace, "split": X.split,
    "substring": X.substring, "trim": X.trim, "join": X.join, "strings.quote": X.quote,
    "sets.contains": X.sets_contains, "sets.equivalent": X.sets_equivalent,
    "sets.intersects": X.sets_intersects, "slice": X.list_slice, "flatten": X.flatten,
    "lists.range": X.lists_range, "distinct": X.distinct, "reverse": X.reverse, "sort": X.sort,
    "lists.@sortByAssociatedKeys": X.sort_by_keys, "first": X.first, "last": X.last,
    "isSorted": X.is_sorted, "sum": X.list_sum, "min": X.list_min, "max": X.list_max,
    "cel.@mapInsert": X.map_insert, "find": X.find, "findAll": X.find_all,
    "quantity": K.quantity, "isQuantity": K.is_quantity, "sign": K.q_sign, "add": K.q_add,
    "sub": K.q_sub, "asInteger": K.q_as_integer, "isInteger": K.q_is_integer,
    "asApproximateFloat": K.q_as_float, "semver": K.semver, "isSemver": K.is_semver,
    "isGreaterThan": K.is_greater, "isLessThan": K.is_less, "compareTo": K.compare_to,
    "major": K.major, "minor": K.minor, "patch": K.patch, "url": K.url, "isURL": K.is_url,
    "ip": K.ip, "isIP": K.is_ip, "ip.isCanonical": K.ip_is_canonical, "cidr": K.cidr, "isCIDR": K.is_cidr,
    "containsIP": K.cidr_contains_ip, "containsCIDR": K.cidr_contains_cidr,
    "format.named": K.format_named, "validate": K.format_validate,
    "value": S.optional_value, "format": F.format_string,
    "optional.of": lambda v: OptionalVal(True, v),
    "optional.none": lambda: NONE,
    "optional.ofNonZeroValue": lambda v: OptionalVal(True, v) if _non_zero(v) else NONE,
    "hasValue": lambda o: _opt(o, "hasValue").has,
    "or": lambda o, p: o if _opt(o, "or").has else _opt(p, "or"),
    "orValue": lambda o, v: o.value if _opt(o, "orValue").has else v,
    "optional.unwrap": lambda lst: [o.value for o in lst if _opt(o, "optional.unwrap").has],
    "unwrapOpt": lambda lst: [o.value for o in lst if _opt(o, "unwrapOpt").has],
}
for _fn in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery"):
    _FUNCS[_fn] = (lambda f: lambda v: K.url_part(f, v))(_fn)
for _fn in ("family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
            "isGlobalUnicast"):
    _FUNCS[_fn] = (lambda f: lambda v: K.ip_prop(f, v))(_fn)
for _fn in ("masked", "prefixLength"):
    _FUNCS[_fn] = (lambda f: lambda v: K.cidr_prop(f, v))(_fn)
for _fn in ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
            "getHours", "getMinutes", "getSeconds", "getMilliseconds"):
    _FUNCS[_fn] = (lambda f: lambda v, *tz: S.time_part(f, v, *tz))(_fn)
for _fn in K.FORMAT_NAMES:
    _FUNCS[f"format.{_fn}"] = (lambda f: lambda: K.named_format(f))(_fn)


def _opt(o: Any, fn: str) -> OptionalVal:
    if type(o) is not OptionalVal:
        raise no_overload(fn)
    return o


def _non_zero(v: Any) -> bool:
    if v is None or v is False:
        return False
    if type(v) in (int, UInt, float, str, bytes, list, dict):
        return bool(v)
    return True


def _index(c: Any, k: Any) -> Any:
    t = type(c)
    if t is list:
        tk = type(k)
        if tk is float:
            if k != int(k):
                raise EvalError(f"unsupported index value {k} in list")
            k = int(k)
        elif tk is not int and tk is not UInt:
            raise no_overload("_[_]")
        if not 0 <= k < len(c):
            raise EvalError(f"index out of bounds: {k}")
        return c[k]
    if t is DefaultMap:
        found, v = map_find(c, k)
        return v if found else _EMPTY
    if t is dict:
        found, v = map_find(c, k)
        if not found:
            raise EvalError(f"no such key: {_key_text(k)}")
        return v
    if t is OptionalVal:
        if not c.has:
            return NONE
        try:
            return OptionalVal(True, _index(c.value, k))
        except EvalError:
            return NONE
    raise no_overload("_[_]")


def _key_text(k: Any) -> str:
    if type(k) is bool:
        return "true" if k else "false"
    return str(k)


def _opt_index(c: Any, k: Any) -> OptionalVal:
    t = type(c)
    if t is OptionalVal:
        return _opt_index(c.value, k) if c.has else NONE
    if t is list:
        if type(k) not in (int, UInt, float):
            raise no_overload("_[?_]")
        ik = int(k)
        return OptionalVal(True, c[ik]) if 0 <= ik < len(c) and ik == k else NONE
    if t is DefaultMap:
        found, v = map_find(c, k)
        return OptionalVal(True, v if found else _EMPTY)
    if t is dict:
        found, v = map_find(c, k)
        return OptionalVal(True, v) if found else NONE
    raise no_overload("_[?_]")


def _select(v: Any, name: str) -> Any:
    t = type(v)
    if t is dict:
        if name in v:
            return v[name]
        raise EvalError(f"no such key: {name}")
    if t is DefaultMap:
        return v.get(name, _EMPTY)
    if t is OptionalVal:
        if not v.has:
            return NONE
        inner = v.value
        if isinstance(inner, dict) and name not in inner and type(inner) is not DefaultMap:
            return NONE
        return OptionalVal(True, _select(inner, name))
    raise EvalError(f"no such key: {name}")


def _has(v: Any, name: str) -> bool:
    if type(v) is DefaultMap:
        return True
    if isinstance(v, dict):
        return name in v
    if type(v) is OptionalVal:
        return v.has and _has(v.value, name)
    return False


def _opt_select(v: Any, name: str) -> OptionalVal:
    t = type(v)
    if t is OptionalVal:
        return _opt_select(v.value, name) if v.has else NONE
    if t is DefaultMap:
        return OptionalVal(True, v.get(name, _EMPTY))
    if t is dict:
        return OptionalVal(True, v[name]) if name in v else NONE
    return NONE


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
            def has(st: State) -> Any:
                v = operand(st)
                st.cost += 1
                if st.cost > st.limit:
                    raise CostExceeded()
                return _has(v, name)
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
        return select

    def create_list(self, e: CreateList) -> Fn:
        items = [self.compile(x) for x in e.elements]
        opt = set(e.optional_indices)
        if not opt:
            return lambda st: [f(st) for f in items]

        def mk(st: State) -> list[Any]:
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

        def mk(st: State) -> dict[Any, Any]:
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
                    raise EvalError(f"got '{_GO_TYPES.get(type_name(r), type_name(r))}', "
                                    "expected iterable type")
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
            def folded(st: State) -> Any:
                _charge(st)
                return value
            return folded
        if fn in _PURE and target is None and e.args and all(isinstance(a, Const) for a in e.args):
            pure = _FUNCS[fn]
            try:
                cached = pure(*[_const_value(a) for a in e.args])
            except EvalError:
                pass  # keep the failure a run-time error, as Kubernetes does
            else:
                def constant(st: State) -> Any:
                    _charge(st)
                    return cached
                return constant
        if fn in ("find", "findAll") and len(e.args) >= 1 and isinstance(e.args[0], Const) \
                and e.args[0].kind == "string":
            try:
                X.compile_re2(e.args[0].value)
            except X.RegexError as err:
                raise ProgramError(f"error parsing regexp: {err}") from None
        impl: Callable[..., Any] | None = _CONVERSIONS.get(fn) or _FUNCS.get(fn)
        if fn == "lists.range":
            return self.lists_range(args[0])
        if impl is None:
            if fn == "includes":
                return self.includes(args)
            raise ProgramError(f"no implementation for function {fn}")
        return _call(impl, args)

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
                _charge(st)
                r = equals(x, y)
                if ne:
                    return r is not True
                if r is None:
                    raise no_overload()
                return r
            return eq
        if fn in ("_<_", "_<=_", "_>_", "_>=_"):
            a, b = args
            test = {"_<_": lambda c: c < 0, "_<=_": lambda c: c <= 0, "_>_": lambda c: c > 0,
                    "_>=_": lambda c: c >= 0}[fn]

            def cmp(st: State) -> bool:
                x, y = a(st), b(st)
                _charge(st)
                try:
                    return test(compare(x, y, ""))
                except _NaN:
                    return False
            return cmp
        if fn == "_[_]":
            a, b = args

            def index(st: State) -> Any:
                c, k = a(st), b(st)
                _charge(st)
                return _index(c, k)
            return index
        if fn == "_[?_]":
            a, b = args
            return lambda st: _opt_index(a(st), b(st))
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


_MISSING = object()
# functions of constants whose (immutable) result may be computed once when the program is built
_PURE = frozenset({"quantity", "isQuantity", "semver", "isSemver", "url", "isURL", "ip", "isIP", "cidr",
                   "isCIDR"})


def _restore(vs: dict[str, Any], name: str, saved: Any) -> None:
    if saved is _MISSING:
        vs.pop(name, None)
    else:
        vs[name] = saved


def _is_const(e: Expr) -> bool:
    if isinstance(e, Const):
        return True
    return (isinstance(e, Call) and e.target is None and e.function in _CONVERSIONS
            and all(_is_const(a) for a in e.args))


def _const_value(e: Expr) -> Any:
    if isinstance(e, Const):
        return UInt(e.value) if e.kind == "uint" else e.value
    assert isinstance(e, Call)
    return _CONVERSIONS[e.function](*[_const_value(a) for a in e.args])


def _charge(st: State) -> None:
    st.cost += 1
    if st.cost > st.limit:
        raise CostExceeded()


def _call(impl: Callable[..., Any], args: list[Fn]) -> Fn:
    if len(args) == 0:
        def c0(st: State) -> Any:
            _charge(st)
            return impl()
        return c0
    if len(args) == 1:
        a = args[0]

        def c1(st: State) -> Any:
            x = a(st)
            _charge(st)
            return impl(x)
        return c1
    if len(args) == 2:
        a, b = args

        def c2(st: State) -> Any:
            x, y = a(st), b(st)
            _charge(st)
            return impl(x, y)
        return c2

    def cn(st: State) -> Any:
        vals = [f(st) for f in args]
        _charge(st)
        return impl(*vals)
    return cn


def _and(a: Fn, b: Fn) -> Fn:
    def and_(st: State) -> bool:
        err: EvalError | None = None
        try:
            x = a(st)
        except CostExceeded:
            raise
        except EvalError as e:
            err, x = e, None
        if x is False:
            return False
        if err is None and x is not True:
            err = no_overload("_&&_")
        y = b(st) if err is None else _try(b, st)
        if y is False:
            return False
        if err is not None:
            raise err
        if type(y) is _Err:
            raise y.err
        if y is not True:
            raise no_overload("_&&_")
        return True
    return and_


def _or(a: Fn, b: Fn) -> Fn:
    def or_(st: State) -> bool:
        err: EvalError | None = None
        try:
            x = a(st)
        except CostExceeded:
            raise
        except EvalError as e:
            err, x = e, None
        if x is True:
            return True
        if err is None and x is not False:
            err = no_overload("_||_")
        y = b(st) if err is None else _try(b, st)
        if y is True:
            return True
        if err is not None:
            raise err
        if type(y) is _Err:
            raise y.err
        if y is not False:
            raise no_overload("_||_")
        return False
    return or_


def _try(f: Fn, st: State) -> Any:
    try:
        return f(st)
    except CostExceeded:
        raise
    except EvalError as e:
        return _Err(e)


__all__ = ["Compiler", "ProgramError", "QuantityVal", "SemverVal", "State"]
