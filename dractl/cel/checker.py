"""Type checker following cel-go's algorithm (type parameters, overload resolution, error texts)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dractl.cel import types as T
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
from dractl.cel.decls import Overload
from dractl.cel.types import Type

_CONST_TYPES = {
    "int": T.INT,
    "uint": T.UINT,
    "double": T.DOUBLE,
    "string": T.STRING,
    "bytes": T.BYTES,
    "bool": T.BOOL,
    "null": T.NULL,
}
_TYPE_IDENTS = {
    "int": T.INT,
    "uint": T.UINT,
    "double": T.DOUBLE,
    "string": T.STRING,
    "bytes": T.BYTES,
    "bool": T.BOOL,
    "null_type": T.NULL,
    "dyn": T.DYN,
    "list": T.list_of(T.DYN),
    "map": T.map_of(T.DYN, T.DYN),
    "type": T.Type("type"),
    "google.protobuf.Duration": T.DURATION,
    "google.protobuf.Timestamp": T.TIMESTAMP,
    # Kubernetes' IP and CIDR libraries declare their type names as identifiers
    "net.IP": T.IP,
    "net.CIDR": T.CIDR,
}


def _dyn_like(t: Type) -> bool:
    return t.kind in ("dyn", "error", "any")


@dataclass
class CheckResult:
    types: dict[int, Type]
    overloads: dict[int, list[str]]
    errors: list[tuple[int, str]]
    result: Type = T.DYN
    rewritten: dict[int, str] = field(default_factory=dict)  # call id -> global function name


class Checker:
    def __init__(
        self,
        variables: dict[str, Type],
        functions: dict[str, tuple[Overload, ...]],
        fields: dict[str, dict[str, Type]],
    ) -> None:
        self.variables = variables
        self.functions = functions
        self.fields = fields
        self.types: dict[int, Type] = {}
        self.overloads: dict[int, list[str]] = {}
        self.rewritten: dict[int, str] = {}
        self.errors: list[tuple[int, str]] = []
        self.mapping: dict[str, Type] = {}
        self.scopes: list[dict[str, Type]] = []
        self.fresh = 0

    # -- substitution machinery --------------------------------------------------------------
    def new_var(self) -> Type:
        self.fresh += 1
        return T.param(f"_var{self.fresh}")

    def subst(self, t: Type, to_dyn: bool = False, m: dict[str, Type] | None = None) -> Type:
        m = self.mapping if m is None else m
        if t.kind == "param":
            s = m.get(t.name)
            if s is not None:
                return self.subst(s, to_dyn, m)
            return T.DYN if to_dyn else t
        if t.params:
            return Type(t.kind, tuple(self.subst(p, to_dyn, m) for p in t.params), t.name)
        return t

    def _occurs(self, name: str, t: Type, m: dict[str, Type]) -> bool:
        if t.kind == "param":
            if t.name == name:
                return True
            s = m.get(t.name)
            return s is not None and self._occurs(name, s, m)
        return any(self._occurs(name, p, m) for p in t.params)

    def _valid_sub(self, m: dict[str, Type], t1: Type, t2: Type) -> tuple[bool, bool]:
        if t1 == t2:
            return True, True
        sub = m.get(t2.name)
        if sub is not None:
            if t1 == sub:
                return True, True
            if self._assignable(m, t1, sub):
                new = most_general(t1, sub)
                if not self._occurs(t2.name, new, m):
                    m[t2.name] = new
                return True, True
            return False, True
        if not self._occurs(t2.name, t1, m):
            m[t2.name] = t1
            return True, False
        return False, False

    def _assignable(self, m: dict[str, Type], t1: Type, t2: Type) -> bool:
        if t2.kind == "param":
            valid, has_sub = self._valid_sub(m, t1, t2)
            if valid:
                return True
            if has_sub:
                return False
        if t1.kind == "param":
            return self._valid_sub(m, t2, t1)[0]
        if t1 == t2:
            return True
        if _dyn_like(t1) or _dyn_like(t2):
            return True
        if t1.kind == "null":
            return t2.kind in ("null", "opaque", "object", "duration", "timestamp", "list", "map")
        if t2.kind == "null":
            return t1.kind in ("opaque", "object", "duration", "timestamp", "list", "map")
        if t1.kind == "type":
            return t2.kind == "type"
        if t1.kind in ("opaque", "list", "map"):
            return (
                t1.kind == t2.kind
                and t1.name == t2.name
                and len(t1.params) == len(t2.params)
                and all(self._assignable(m, a, b) for a, b in zip(t1.params, t2.params, strict=True))
            )
        return False

    def assignable(self, t1: Type, t2: Type) -> bool:
        m = dict(self.mapping)
        if self._assignable(m, t1, t2):
            self.mapping = m
            return True
        return False

    def assignable_list(self, l1: list[Type], l2: list[Type]) -> bool:
        m = dict(self.mapping)
        if len(l1) == len(l2) and all(self._assignable(m, a, b) for a, b in zip(l1, l2, strict=True)):
            self.mapping = m
            return True
        return False

    # -- traversal ---------------------------------------------------------------------------
    def err(self, e: Expr | int, msg: str) -> None:
        self.errors.append((e if isinstance(e, int) else e.id, msg))

    def set(self, e: Expr, t: Type) -> Type:
        self.types[e.id] = t
        return t

    def lookup_var(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.variables:
            return self.variables[name]
        return _TYPE_IDENTS.get(name) and T.type_of(_TYPE_IDENTS[name])

    def check(self, e: Expr) -> Type:
        if isinstance(e, Const):
            return self.set(e, _CONST_TYPES[e.kind])
        if isinstance(e, Ident):
            t = self.lookup_var(e.name)
            if t is None:
                self.err(e, f"undeclared reference to '{e.name}' (in container '')")
                return self.set(e, T.ERROR)
            return self.set(e, t)
        if isinstance(e, Select):
            return self.check_select(e)
        if isinstance(e, Call):
            return self.check_call(e)
        if isinstance(e, CreateList):
            return self.check_list(e)
        if isinstance(e, CreateMap):
            return self.check_map(e)
        if isinstance(e, Comprehension):
            return self.check_comprehension(e)
        if isinstance(e, CreateStruct):
            for _, v, _ in e.fields:
                self.check(v)
            self.err(e, f"undeclared reference to '{e.type_name}' (in container '')")
            return self.set(e, T.ERROR)
        raise TypeError(e)

    def select_field(self, e: Expr, operand: Expr, name: str, optional: bool) -> Type:
        self.check(operand)
        ot = self.subst(self.types[operand.id])
        is_opt = T.is_optional(ot)
        if is_opt:
            ot = ot.params[0]
        if ot.kind == "map":
            res = ot.params[1]
        elif ot.kind == "object":
            f = self.fields.get(ot.name, {})
            if name in f:
                res = f[name]
            else:
                self.err(e, f"undefined field '{name}'")
                res = T.ERROR
        elif ot.kind == "param":
            self.assignable(T.DYN, ot)
            res = T.DYN
        else:
            if not _dyn_like(ot):
                self.err(e, f"type '{ot}' does not support field selection")
            res = T.DYN
        return T.optional_of(res) if (is_opt or optional) else res

    def check_select(self, e: Select) -> Type:
        q = qualified_name(e)
        if q is not None and not e.test_only and "." in q:
            t = _TYPE_IDENTS.get(q)
            if t is not None and q.split(".")[0] not in self.variables:
                return self.set(e, T.type_of(t))
        res = self.select_field(e, e.operand, e.field, False)
        if e.test_only:
            res = T.BOOL
        return self.set(e, self.subst(res))

    def check_call(self, e: Call) -> Type:
        fn = e.function
        if fn == "_?._":
            field_ = e.args[1]
            if not (isinstance(field_, Const) and field_.kind == "string"):
                self.err(field_, "unsupported optional field selection")
                return self.set(e, T.ERROR)
            res = self.select_field(e, e.args[0], field_.value, True)
            self.overloads[e.id] = ["select_optional_field"]
            return self.set(e, self.subst(res))
        for a in e.args:
            self.check(a)
        if fn in ("_&&_", "_||_") and e.target is None:
            for a in e.args:
                t = self.types[a.id]
                if not self.assignable(T.BOOL, t):
                    self.err(a, f"expected type 'bool' but found '{self.subst(t, True)}'")
            self.overloads[e.id] = ["logical_and" if fn == "_&&_" else "logical_or"]
            return self.set(e, T.BOOL)
        if e.target is None:
            decl = self.functions.get(fn)
            if decl is None:
                self.err(e, f"undeclared reference to '{fn}' (in container '')")
                return self.set(e, T.ERROR)
            return self.resolve(e, fn, decl, None)
        q = qualified_name(e.target)
        if q is not None:
            full = f"{q}.{fn}"
            decl = self.functions.get(full)
            if decl is not None and q.split(".")[0] not in self.variables and not self._scoped(q):
                self.rewritten[e.id] = full
                return self.resolve(e, full, decl, None)
        self.check(e.target)
        decl = self.functions.get(fn)
        if decl is None:
            self.err(e, f"undeclared reference to '{fn}' (in container '')")
            return self.set(e, T.ERROR)
        return self.resolve(e, fn, decl, e.target)

    def _scoped(self, q: str) -> bool:
        head = q.split(".")[0]
        return any(head in s for s in self.scopes)

    def resolve(self, e: Call, fn: str, decl: tuple[Overload, ...], target: Expr | None) -> Type:
        args = ([target] if target is not None else []) + e.args
        arg_types = [self.types[a.id] for a in args]
        result: Type | None = None
        matched: list[str] = []
        for ov in decl:
            if ov.member != (target is not None):
                continue
            params, res = ov.args, ov.result
            if any(_has_param(p) for p in (*params, res)):
                sub: dict[str, Type] = {}
                params = tuple(self._fresh(p, sub) for p in params)
                res = self._fresh(res, sub)
            if self.assignable_list(arg_types, list(params)):
                matched.append(ov.id)
                rt = self.subst(res)
                if result is None:
                    result = rt
                elif not _dyn_like(result) and rt != result:
                    result = T.DYN
        if result is None:
            shown = [str(self.subst(t, True)) for t in arg_types]
            if target is not None:
                sig = f"{shown[0]}.({', '.join(shown[1:])})"
            else:
                sig = f"({', '.join(shown)})"
            self.err(e, f"found no matching overload for '{fn}' applied to '{sig}'")
            return self.set(e, T.ERROR)
        self.overloads[e.id] = matched
        return self.set(e, result)

    def _fresh(self, t: Type, sub: dict[str, Type]) -> Type:
        if t.kind == "param":
            if t.name not in sub:
                sub[t.name] = self.new_var()
            return sub[t.name]
        if t.params:
            return Type(t.kind, tuple(self._fresh(p, sub) for p in t.params), t.name)
        return t

    def join(self, e: Expr, prev: Type | None, cur: Type) -> Type:
        if prev is None:
            return cur
        if self.assignable(prev, cur):
            return most_general(prev, cur)
        # cel-go's checker joins unrelated element types to dyn; Kubernetes' environment then
        # rejects mixed literals with the homogeneous-aggregate-literal validator (env.py)
        return T.DYN

    def check_list(self, e: CreateList) -> Type:
        elem: Type | None = None
        opt = set(e.optional_indices)
        for i, el in enumerate(e.elements):
            t = self.check(el)
            if i in opt:
                t, is_opt = (t.params[0], True) if T.is_optional(t) else (t, False)
                if not is_opt and not _dyn_like(t):
                    self.err(el, f"expected type 'optional_type({t})' but found '{t}'")
            elem = self.join(el, elem, t)
        return self.set(e, T.list_of(elem if elem is not None else self.new_var()))

    def check_map(self, e: CreateMap) -> Type:
        kt: Type | None = None
        vt: Type | None = None
        for ent in e.entries:
            kt = self.join(ent.key, kt, self.check(ent.key))
            v = self.check(ent.value)
            if ent.optional:
                if T.is_optional(v):
                    v = v.params[0]
                elif not _dyn_like(v):
                    self.err(ent.value, f"expected type 'optional_type({v})' but found '{v}'")
            vt = self.join(ent.value, vt, v)
        return self.set(e, T.map_of(kt or self.new_var(), vt or self.new_var()))

    def check_comprehension(self, e: Comprehension) -> Type:
        self.check(e.iter_range)
        self.check(e.accu_init)
        accu_t = self.types[e.accu_init.id]
        rt = self.subst(self.types[e.iter_range.id])
        two = bool(e.iter_var2)
        v1: Type
        v2: Type = T.DYN
        if rt.kind == "list":
            v1, v2 = (T.INT, rt.params[0]) if two else (rt.params[0], T.DYN)
        elif rt.kind == "map":
            v1, v2 = rt.params[0], rt.params[1]
        elif rt.kind in ("dyn", "error", "param"):
            self.assignable(T.DYN, rt)
            v1 = v2 = T.DYN
        else:
            self.err(
                e.iter_range,
                f"expression of type '{rt}' cannot be range of a comprehension "
                "(must be list, map, or dynamic)",
            )
            v1 = v2 = T.ERROR
        self.scopes.append({e.accu_var: accu_t})
        inner = {e.iter_var: v1}
        if two:
            inner[e.iter_var2] = v2
        self.scopes.append(inner)
        self.check(e.loop_condition)
        self.assert_type(e.loop_condition, T.BOOL)
        self.check(e.loop_step)
        self.assert_type(e.loop_step, accu_t)
        self.scopes.pop()
        self.check(e.result)
        self.scopes.pop()
        return self.set(e, self.subst(self.types[e.result.id]))

    def assert_type(self, e: Expr, t: Type) -> None:
        actual = self.types[e.id]
        if not self.assignable(t, actual):
            self.err(e, f"expected type '{self.subst(t, True)}' but found '{self.subst(actual, True)}'")


def _has_param(t: Type) -> bool:
    return t.kind == "param" or any(_has_param(p) for p in t.params)


def most_general(t1: Type, t2: Type) -> Type:
    return t1 if less_specific(t1, t2) else t2


def less_specific(t1: Type, t2: Type) -> bool:
    if t1.kind in ("dyn", "any", "param"):
        return True
    if t2.kind in ("dyn", "any", "param"):
        return False
    if t1.kind != t2.kind or t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    return all(less_specific(a, b) for a, b in zip(t1.params, t2.params, strict=True))


def check(
    e: Expr,
    variables: dict[str, Type],
    functions: dict[str, tuple[Overload, ...]],
    fields: dict[str, dict[str, Type]],
) -> CheckResult:
    c = Checker(variables, functions, fields)
    c.check(e)
    final = {k: c.subst(v, True) for k, v in c.types.items()}
    return CheckResult(final, c.overloads, c.errors, final[e.id], c.rewritten)
