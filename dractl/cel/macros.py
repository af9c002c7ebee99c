"""Macro expansion (standard, two-variable comprehensions, cel.bind, optMap, sortBy) as cel-go does."""

from __future__ import annotations

from typing import Protocol

from dractl.cel.ast import ACCU, Call, Comprehension, Const, CreateList, CreateMap, Expr, Ident, Select


class Parser(Protocol):
    """What macro expansion needs from the parser (node ids and builders, error reporting)."""

    def new_id(self, offset: int) -> int: ...

    def error(self, offset: int, msg: str) -> None: ...

    def const(self, offset: int, kind: str, value: object) -> Const: ...

    def ident(self, offset: int, name: str) -> Ident: ...

    def fn(self, offset: int, name: str, *args: Expr, target: Expr | None = None) -> Call: ...

    def comprehension(
        self,
        offset: int,
        iter_var: str,
        iter_range: Expr,
        init: Expr,
        cond: Expr,
        step: Expr,
        result: Expr,
        iter_var2: str = "",
        accu: str = ACCU,
        macro: str = "",
    ) -> Comprehension: ...


_RECEIVER = {
    ("all", 2),
    ("exists", 2),
    ("exists_one", 2),
    ("map", 2),
    ("map", 3),
    ("filter", 2),
    ("all", 3),
    ("exists", 3),
    ("existsOne", 3),
    ("exists_one", 3),
    ("transformList", 3),
    ("transformList", 4),
    ("transformMap", 3),
    ("transformMap", 4),
    ("transformMapEntry", 3),
    ("transformMapEntry", 4),
    ("optMap", 2),
    ("optFlatMap", 2),
    ("sortBy", 2),
}


def _var(p: Parser, e: Expr) -> str | None:
    if isinstance(e, Ident):
        return e.name
    p.error(e.offset, "argument must be a simple name")
    return None


def expand(p: Parser, off: int, name: str, args: list[Expr], target: Expr | None) -> Expr | None:
    if target is None:
        if name == "has" and len(args) == 1:
            a = args[0]
            if isinstance(a, Select) and not a.test_only:
                return Select(p.new_id(off), off, a.operand, a.field, True)
            p.error(a.offset, "invalid argument to has() macro")
            return p.const(off, "bool", False)
        return None
    if name == "bind" and len(args) == 3 and isinstance(target, Ident) and target.name == "cel":
        v = _var(p, args[0])
        if v is None:
            return p.const(off, "bool", False)
        if v == ACCU:
            p.error(args[0].offset, "variable name must not be '@result'")
        return p.comprehension(
            off,
            "#unused",
            CreateList(p.new_id(off), off, []),
            args[1],
            p.const(off, "bool", False),
            p.ident(off, v),
            args[2],
            accu=v,
            macro="bind",
        )
    if (name, len(args)) not in _RECEIVER:
        return None
    if name in ("optMap", "optFlatMap"):
        v = _var(p, args[0])
        if v is None:
            return p.const(off, "bool", False)
        bound = p.comprehension(
            off,
            "#unused",
            CreateList(p.new_id(off), off, []),
            p.fn(off, "value", target=target),
            p.const(off, "bool", False),
            p.ident(off, v),
            args[1],
            accu=v,
            macro="bind",
        )
        then: Expr = p.fn(off, "optional.of", bound) if name == "optMap" else bound
        return p.fn(off, "_?_:_", p.fn(off, "hasValue", target=target), then, p.fn(off, "optional.none"))
    if name == "sortBy":
        v = _var(p, args[0])
        if v is None:
            return p.const(off, "bool", False)
        tmp = "@__sortBy_input__"
        keys = _one_var(p, off, "map", p.ident(off, tmp), v, [args[1]])
        call = p.fn(off, "lists.@sortByAssociatedKeys", p.ident(off, tmp), keys)
        return p.comprehension(
            off,
            "#unused",
            CreateList(p.new_id(off), off, []),
            target,
            p.const(off, "bool", False),
            p.ident(off, tmp),
            call,
            accu=tmp,
            macro="bind",
        )
    if len(args) == 2 or (name == "map" and len(args) == 3):
        v = _var(p, args[0])
        if v is None:
            return p.const(off, "bool", False)
        if v == ACCU:
            p.error(args[0].offset, "iteration variable overwrites accumulator variable")
        return _one_var(p, off, name, target, v, args[1:])
    v1, v2 = _var(p, args[0]), _var(p, args[1])
    if v1 is None or v2 is None:
        return p.const(off, "bool", False)
    if v1 == v2:
        p.error(args[1].offset, f"duplicate variable name: {v1}")
    if ACCU in (v1, v2):
        p.error(args[0].offset, "iteration variable overwrites accumulator variable")
    return _two_var(p, off, name, target, v1, v2, args[2:])


def _accu(p: Parser, off: int) -> Ident:
    return p.ident(off, ACCU)


def _quantifier(p: Parser, off: int, name: str, pred: Expr) -> tuple[Expr, Expr, Expr, Expr]:
    """(init, condition, step, result) of all/exists/exists_one."""
    if name == "all":
        return (
            p.const(off, "bool", True),
            p.fn(off, "@not_strictly_false", _accu(p, off)),
            p.fn(off, "_&&_", _accu(p, off), pred),
            _accu(p, off),
        )
    if name == "exists":
        return (
            p.const(off, "bool", False),
            p.fn(off, "@not_strictly_false", p.fn(off, "!_", _accu(p, off))),
            p.fn(off, "_||_", _accu(p, off), pred),
            _accu(p, off),
        )
    step = p.fn(off, "_?_:_", pred, p.fn(off, "_+_", _accu(p, off), p.const(off, "int", 1)), _accu(p, off))
    return (
        p.const(off, "int", 0),
        p.const(off, "bool", True),
        step,
        p.fn(off, "_==_", _accu(p, off), p.const(off, "int", 1)),
    )


def _one_var(p: Parser, off: int, name: str, target: Expr, v: str, rest: list[Expr]) -> Expr:
    if name in ("all", "exists", "exists_one"):
        q = _quantifier(p, off, name, rest[0])
        return p.comprehension(off, v, target, *q, macro=name)
    empty = CreateList(p.new_id(off), off, [])
    if name == "map":
        item = rest[-1]
    else:  # filter
        item = p.ident(off, v)
    add = p.fn(off, "_+_", _accu(p, off), CreateList(p.new_id(off), off, [item]))
    step: Expr = add
    if name == "filter" or len(rest) == 2:
        step = p.fn(off, "_?_:_", rest[0], add, _accu(p, off))
    return p.comprehension(off, v, target, empty, p.const(off, "bool", True), step, _accu(p, off), macro=name)


def _two_var(p: Parser, off: int, name: str, target: Expr, v1: str, v2: str, rest: list[Expr]) -> Expr:
    if name in ("all", "exists", "existsOne", "exists_one"):
        q = _quantifier(p, off, "exists_one" if name == "existsOne" else name, rest[0])
        return p.comprehension(off, v1, target, *q, iter_var2=v2, macro=name)
    body = rest[-1]
    init: Expr
    if name == "transformList":
        init = CreateList(p.new_id(off), off, [])
        add: Call = p.fn(off, "_+_", _accu(p, off), CreateList(p.new_id(off), off, [body]))
    elif name == "transformMap":
        init = CreateMap(p.new_id(off), off, [])
        add = p.fn(off, "cel.@mapInsert", _accu(p, off), p.ident(off, v1), body)
    else:
        init = CreateMap(p.new_id(off), off, [])
        add = p.fn(off, "cel.@mapInsert", _accu(p, off), body)
    step: Expr = add
    if len(rest) == 2:
        step = p.fn(off, "_?_:_", rest[0], add, _accu(p, off))
    return p.comprehension(
        off, v1, target, init, p.const(off, "bool", True), step, _accu(p, off), iter_var2=v2, macro=name
    )
