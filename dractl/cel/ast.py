"""The CEL abstract syntax tree produced by :mod:`dractl.cel.parser`.

Macros are expanded at parse time into :class:`Comprehension` nodes, exactly as
cel-go does, so the checker, the cost estimator and the evaluator see one shape.
Every node has a unique ``id`` and a source ``offset`` (code-point index).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False, slots=True)
class Expr:
    id: int
    offset: int


@dataclass(eq=False, slots=True)
class Const(Expr):
    kind: str  # int, uint, double, string, bytes, bool, null
    value: Any


@dataclass(eq=False, slots=True)
class Ident(Expr):
    name: str


@dataclass(eq=False, slots=True)
class Select(Expr):
    operand: Expr
    field: str
    test_only: bool = False


@dataclass(eq=False, slots=True)
class Call(Expr):
    function: str
    args: list[Expr]
    target: Expr | None = None


@dataclass(eq=False, slots=True)
class CreateList(Expr):
    elements: list[Expr]
    optional_indices: list[int] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class MapEntry:
    id: int
    offset: int
    key: Expr
    value: Expr
    optional: bool = False


@dataclass(eq=False, slots=True)
class CreateMap(Expr):
    entries: list[MapEntry]


@dataclass(eq=False, slots=True)
class CreateStruct(Expr):
    type_name: str
    fields: list[tuple[str, Expr, bool]]


@dataclass(eq=False, slots=True)
class Comprehension(Expr):
    iter_var: str
    iter_var2: str
    iter_range: Expr
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr
    macro: str = ""


ACCU = "@result"


def children(e: Expr) -> list[Expr]:
    """Direct sub-expressions in evaluation order."""
    if isinstance(e, Select):
        return [e.operand]
    if isinstance(e, Call):
        return ([e.target] if e.target is not None else []) + list(e.args)
    if isinstance(e, CreateList):
        return list(e.elements)
    if isinstance(e, CreateMap):
        out: list[Expr] = []
        for ent in e.entries:
            out += [ent.key, ent.value]
        return out
    if isinstance(e, CreateStruct):
        return [v for _, v, _ in e.fields]
    if isinstance(e, Comprehension):
        return [e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result]
    return []


def qualified_name(e: Expr) -> str | None:
    """``a.b.c`` for an Ident/Select chain (not test-only), else None."""
    if isinstance(e, Ident):
        return e.name
    if isinstance(e, Select) and not e.test_only:
        head = qualified_name(e.operand)
        return None if head is None else f"{head}.{e.field}"
    return None
