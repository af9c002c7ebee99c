"""The DRA CEL environments (``stored`` for the allocator, ``new`` for the API server) and the
compile pipeline: parse → check → AST validators → result type → program → cost estimate."""

from __future__ import annotations

from dataclasses import dataclass

from dractl.cel import types as T
from dractl.cel.ast import Call, Comprehension, Const, CreateList, CreateMap, Expr, children
from dractl.cel.checker import CheckResult, check
from dractl.cel.decls import functions
from dractl.cel.lib.regex import RegexError, translate
from dractl.cel.parser import parse
from dractl.cel.stdlib import parse_duration, parse_timestamp
from dractl.cel.types import Type
from dractl.cel.values import EvalError

MAX_EXPRESSION_BYTES = 10 * 1024
MAX_COST = 1_000_000


@dataclass(frozen=True, slots=True)
class EnvSpec:
    """What the environment declares: list-type attributes (``includes``, rangeable attributes)
    and ``allowMultipleAllocations``."""

    list_type_attributes: bool
    consumable_capacity: bool

    def variables(self) -> dict[str, Type]:
        return {"device": T.DEVICE}

    def fields(self) -> dict[str, dict[str, Type]]:
        attr = T.DYN if self.list_type_attributes else T.ANY
        f = {
            "driver": T.STRING,
            "attributes": T.map_of(T.STRING, T.map_of(T.STRING, attr)),
            "capacity": T.map_of(T.STRING, T.map_of(T.STRING, T.QUANTITY)),
        }
        if self.consumable_capacity:
            f["allowMultipleAllocations"] = T.BOOL
        return {"kubernetes.DRADevice": f}


def env_spec(env: str, list_type_attributes: bool, consumable_capacity: bool) -> EnvSpec:
    if env == "stored":
        return EnvSpec(True, True)
    return EnvSpec(list_type_attributes, consumable_capacity)


@dataclass
class Compiled:
    ast: Expr
    checked: CheckResult
    offsets: dict[int, int]


class CompileFailure(Exception):
    def __init__(self, message: str, error_type: str = "RuleInvalid") -> None:
        super().__init__(message)
        self.message = message
        self.error_type = error_type


def format_errors(src: str, errors: list[tuple[int, str]]) -> str:
    """cel-go's ``Issues.String()``: one ``ERROR: <input>:line:col: msg`` block per error."""
    lines = src.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    out = []
    seen = set()
    for off, msg in sorted(errors, key=lambda x: x[0]):
        if (off, msg) in seen:
            continue
        seen.add((off, msg))
        if off < 0:
            out.append(f"ERROR: <input>:-1:0: {msg}")
            continue
        line = 0
        while line + 1 < len(starts) - 1 and starts[line + 1] <= off:
            line += 1
        col = off - starts[line]
        text = lines[line] if line < len(lines) else ""
        dots = "".join("．" if ord(c) > 127 else "." for c in text[:col])
        caret = "＾" if col < len(text) and ord(text[col]) > 127 else "^"
        out.append(f"ERROR: <input>:{line + 1}:{col + 1}: {msg}\n | {text}\n | {dots}{caret}")
    return "\n".join(out)


def compile_ast(src: str, spec: EnvSpec) -> Compiled:
    """Parse, check and validate; CompileFailure with Kubernetes' message on any error."""
    ast, errors, offsets = parse(src)
    if ast is None or errors:
        raise CompileFailure("compilation failed: " + format_errors(src, errors))
    checked = check(ast, spec.variables(), functions(spec.list_type_attributes), spec.fields())
    errs = [(offsets.get(i, -1), m) for i, m in checked.errors]
    if not errs:
        errs = [(offsets.get(i, -1), m) for i, m in validate_ast(ast, checked)]
    if errs:
        raise CompileFailure("compilation failed: " + format_errors(src, errs))
    rt = checked.result
    if rt != T.BOOL and rt != T.ANY and not (rt == T.DYN and spec.list_type_attributes):
        raise CompileFailure(f"must evaluate to bool or the unknown type, not {go_type_string(rt)}")
    return Compiled(ast, checked, offsets)


def go_type_string(t: Type) -> str:
    """cel-go's ``Type.String()`` (which differs from the checker's names for any and null)."""
    if t.kind == "any":
        return "google.protobuf.Any"
    if t.kind == "null":
        return "null_type"
    if t.kind in ("list", "map") or (t.kind == "opaque" and t.params):
        inner = ", ".join(go_type_string(p) for p in t.params)
        return f"{t.name or t.kind}({inner})"
    return str(t)


def _homogeneous(e: Expr, checked: CheckResult, out: list[tuple[int, str]]) -> None:
    """cel-go's ``HomogeneousAggregateLiterals`` validator on one list or map literal: every
    element (key, value) has the type of the first one, exactly (``dyn`` is not ``int``)."""
    types = checked.types

    def mismatch(node: Expr, want: Type, got: Type) -> None:
        out.append((node.id, f"expected type '{want}' but found '{got}'"))

    if isinstance(e, CreateList):
        first: Type | None = None
        for i, el in enumerate(e.elements):
            t = types[el.id]
            if i in e.optional_indices and T.is_optional(t):
                t = t.params[0]
            if first is None:
                first = t
            elif t != first:
                mismatch(el, first, t)
                break
    elif isinstance(e, CreateMap):
        kt: Type | None = None
        vt: Type | None = None
        for ent in e.entries:
            k, v = types[ent.key.id], types[ent.value.id]
            if ent.optional and T.is_optional(v):
                v = v.params[0]
            if kt is None or vt is None:
                kt, vt = k, v
                continue
            if k != kt:
                mismatch(ent.key, kt, k)
            if v != vt:
                mismatch(ent.value, vt, v)


def validate_ast(ast: Expr, checked: CheckResult) -> list[tuple[int, str]]:
    """cel-go's AST validators: homogeneous aggregate literals (literals anywhere inside a
    ``format()`` call are exempt, as the strings library configures), regex, duration and
    timestamp literals, and format strings."""
    out: list[tuple[int, str]] = []
    stack: list[tuple[Expr, bool]] = [(ast, False)]
    while stack:
        e, exempt = stack.pop()
        if isinstance(e, Call) and checked.rewritten.get(e.id, e.function) == "format":
            exempt = True
        stack.extend((c, exempt) for c in children(e))
        if isinstance(e, CreateList | CreateMap):
            if not exempt:
                _homogeneous(e, checked, out)
            continue
        if not isinstance(e, Call):
            continue
        fn = checked.rewritten.get(e.id, e.function)
        args = ([e.target] if e.target is not None and fn == e.function else []) + e.args
        if fn == "matches" and len(args) == 2 and _str_const(args[1]):
            try:
                translate(args[1].value)  # type: ignore[attr-defined]
            except RegexError:
                out.append((args[1].id, "invalid matches argument"))
        elif fn in ("duration", "timestamp") and len(args) == 1 and _str_const(args[0]):
            try:
                (parse_duration if fn == "duration" else parse_timestamp)(args[0].value)  # type: ignore
            except EvalError:
                out.append((args[0].id, f"invalid {fn} argument"))
        elif fn == "format" and e.target is not None and _str_const(e.target):
            from dractl.cel.formatting import validate_format_call

            found = validate_format_call(e.target.value, e.args[0], checked, e.id)  # type: ignore[attr-defined]
            if found:
                out.append(found)
    return out


def _str_const(e: Expr) -> bool:
    return isinstance(e, Const) and e.kind == "string"


def comprehension_nodes(e: Expr) -> list[Comprehension]:
    out = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Comprehension):
            out.append(x)
        stack.extend(children(x))
    return out
