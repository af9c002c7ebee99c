"""CEL parser: recursive descent over :mod:`dractl.cel.lexer` tokens, macros expanded.

Errors are collected as ``(offset, message)``; messages follow cel-go's wording
(``Syntax error: …``, ``invalid int literal``, ``expression recursion limit exceeded: 250``).
"""

from __future__ import annotations

from collections.abc import Callable

from dractl.cel.ast import (
    ACCU,
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateMap,
    CreateStruct,
    Expr,
    Ident,
    MapEntry,
    Select,
)
from dractl.cel.lexer import Token, tokenize
from dractl.cel.limits import deep_recursion
from dractl.cel.macros import expand

MAX_DEPTH = 250
MAX_CODE_POINTS = 100_000
_EXPECT_EXPR = (
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}"
)
_EXPR_START = frozenset(
    {
        "[",
        "{",
        "(",
        ".",
        "-",
        "!",
        "true",
        "false",
        "null",
        "INT",
        "UINT",
        "DOUBLE",
        "STRING",
        "BYTES",
        "IDENT",
    }
)
_RELOPS = ("<", "<=", ">", ">=", "==", "!=", "in")
_BINFN = {
    "<": "_<_",
    "<=": "_<=_",
    ">": "_>_",
    ">=": "_>=_",
    "==": "_==_",
    "!=": "_!=_",
    "in": "@in",
    "+": "_+_",
    "-": "_-_",
    "*": "_*_",
    "/": "_/_",
    "%": "_%_",
}
INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


class ParseFailure(Exception):
    pass


class _Abort(Exception):
    pass


class Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.toks, lex_errors = tokenize(src)
        self.errors: list[tuple[int, str]] = [(o, "Syntax error: " + m) for o, m in lex_errors]
        self.pos = 0
        self.next_id = 1
        self.depth = 0
        self.extraneous = 0
        self.offsets: dict[int, int] = {}

    # -- helpers -----------------------------------------------------------------------------
    def new_id(self, offset: int) -> int:
        i = self.next_id
        self.next_id += 1
        self.offsets[i] = offset
        return i

    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def advance(self) -> Token:
        t = self.toks[self.pos]
        if t.kind != "EOF":
            self.pos += 1
        return t

    def error(self, offset: int, msg: str) -> None:
        self.errors.append((offset, msg))

    def syntax(self, expecting: str) -> _Abort:
        t = self.tok
        self.error(t.offset, f"Syntax error: mismatched input '{t.text}' expecting {expecting}")
        return _Abort()

    def expect(self, kind: str) -> Token:
        if self.tok.kind != kind:
            raise self.syntax(f"'{kind}'")
        return self.advance()

    # -- grammar -----------------------------------------------------------------------------
    def parse(self) -> Expr | None:
        if len(self.src) > MAX_CODE_POINTS:
            self.error(
                -1,
                f"expression code point size exceeds limit: size: {len(self.src)}, limit {MAX_CODE_POINTS}",
            )
            return None
        try:
            e = self.expr()
            if self.tok.kind != "EOF":
                t = self.tok
                how = "extraneous" if self.peek().kind == "EOF" else "mismatched"
                self.error(t.offset, f"Syntax error: {how} input '{t.text}' expecting <EOF>")
                return None
        except _Abort:
            return None
        except RecursionError:
            self.error(-1, "max recursion depth exceeded")
            return None
        if not self.errors and ast_depth(e) > MAX_DEPTH:
            self.error(-1, "max recursion depth exceeded")
            return None
        return e if not self.errors else None

    def expr(self) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.errors.append((-1, f"expression recursion limit exceeded: {MAX_DEPTH}"))
            raise _Abort()
        try:
            cond = self.cond_or()
            if self.tok.kind == "?":
                q = self.advance()
                a = self.cond_or()
                self.expect(":")
                b = self.expr()
                return Call(self.new_id(q.offset), q.offset, "_?_:_", [cond, a, b])
            return cond
        finally:
            self.depth -= 1

    def _chain(self, op: str, fn: str, sub: Callable[[], Expr]) -> Expr:
        terms = [sub()]
        ops: list[Token] = []
        while self.tok.kind == op:
            ops.append(self.advance())
            terms.append(sub())
        if len(terms) == 1:
            return terms[0]
        return self._balance(fn, terms, ops, 0, len(ops) - 1)

    def _balance(self, fn: str, terms: list[Expr], ops: list[Token], lo: int, hi: int) -> Expr:
        """cel-go's balanced tree for ``&&``/``||`` chains (ops[lo..hi] join terms[lo..hi+1])."""
        mid = (lo + hi + 1) // 2
        left = terms[lo] if mid == lo else self._balance(fn, terms, ops, lo, mid - 1)
        right = terms[hi + 1] if mid == hi else self._balance(fn, terms, ops, mid + 1, hi)
        t = ops[mid]
        return Call(self.new_id(t.offset), t.offset, fn, [left, right])

    def cond_or(self) -> Expr:
        return self._chain("||", "_||_", self.cond_and)

    def cond_and(self) -> Expr:
        return self._chain("&&", "_&&_", self.relation)

    def relation(self) -> Expr:
        left = self.additive()
        while self.tok.kind in _RELOPS:
            t = self.advance()
            right = self.additive()
            left = Call(self.new_id(t.offset), t.offset, _BINFN[t.kind], [left, right])
        return left

    def additive(self) -> Expr:
        left = self.multiplicative()
        while self.tok.kind in ("+", "-"):
            t = self.advance()
            right = self.multiplicative()
            left = Call(self.new_id(t.offset), t.offset, _BINFN[t.kind], [left, right])
        return left

    def multiplicative(self) -> Expr:
        left = self.unary()
        while self.tok.kind in ("*", "/", "%"):
            t = self.advance()
            right = self.unary()
            left = Call(self.new_id(t.offset), t.offset, _BINFN[t.kind], [left, right])
        return left

    def unary(self) -> Expr:
        t = self.tok
        if t.kind == "-" and self.peek().kind in ("INT", "DOUBLE"):
            return self.member()
        if t.kind in ("!", "-"):
            ops: list[Token] = []
            while self.tok.kind == t.kind:
                ops.append(self.advance())
            if t.kind == "-" and self.tok.kind in ("INT", "DOUBLE") and len(ops) % 2 == 1:
                # `--1`: the last minus belongs to the literal
                self.pos -= 1
                ops.pop()
            operand = self.member()
            if len(ops) % 2 == 0:
                return operand
            fn = "!_" if t.kind == "!" else "-_"
            return Call(self.new_id(ops[0].offset), ops[0].offset, fn, [operand])
        return self.member()

    def member(self) -> Expr:
        e = self.primary()
        while True:
            t = self.tok
            if t.kind == ".":
                self.advance()
                opt = False
                if self.tok.kind == "?":
                    self.advance()
                    opt = True
                nt = self.tok
                if nt.kind not in ("IDENT", "ESCIDENT"):
                    if opt:
                        self.error(
                            nt.offset,
                            "Syntax error: mismatched input "
                            f"'{nt.text}' expecting {{IDENTIFIER, ESC_IDENTIFIER}}",
                        )
                        self.error(nt.offset, "unsupported ident kind")
                    elif nt.kind == "EOF":
                        self.error(nt.offset, "Syntax error: no viable alternative at input '.'")
                    else:
                        self.error(
                            nt.offset,
                            "Syntax error: no viable alternative at input "
                            f"'{self.src[t.offset : nt.offset + len(nt.text)]}'",
                        )
                    raise _Abort()
                self.advance()
                name = nt.value if nt.kind == "ESCIDENT" else nt.text
                if nt.kind == "IDENT" and not opt and self.tok.kind == "(":
                    lp = self.advance()
                    args = self.args(")")
                    e = self.call(lp.offset, name, args, e)
                elif opt:
                    e = Call(
                        self.new_id(t.offset),
                        t.offset,
                        "_?._",
                        [e, Const(self.new_id(nt.offset), nt.offset, "string", name)],
                    )
                else:
                    e = Select(self.new_id(t.offset), t.offset, e, name)
            elif t.kind == "[":
                self.advance()
                opt = False
                if self.tok.kind == "?":
                    self.advance()
                    opt = True
                idx = self.expr()
                self.expect("]")
                e = Call(self.new_id(t.offset), t.offset, "_[?_]" if opt else "_[_]", [e, idx])
            else:
                return e

    def args(self, close: str) -> list[Expr]:
        out: list[Expr] = []
        if self.tok.kind == close:
            self.advance()
            return out
        while True:
            out.append(self.expr())
            if self.tok.kind == ",":
                self.advance()
                continue
            if self.tok.kind == close:
                self.advance()
                return out
            raise self.syntax("{')', ','}")

    def primary(self) -> Expr:
        t = self.tok
        k = t.kind
        if k == "-" and self.peek().kind in ("INT", "DOUBLE"):
            self.advance()
            num = self.advance()
            return self.literal(num, t.offset, negative=True)
        if k in ("INT", "UINT", "DOUBLE", "STRING", "BYTES", "true", "false", "null"):
            self.advance()
            return self.literal(t, t.offset)
        if k == "." and self.peek().kind == "IDENT":
            self.advance()
            return self.ident_or_call(self.advance(), leading_dot=True)
        if k == "IDENT":
            self.advance()
            return self.ident_or_call(t)
        if k == "(":
            self.advance()
            e = self.expr()
            self.expect(")")
            return e
        if k == "[":
            self.advance()
            elems, opt = self.list_elems()
            return CreateList(self.new_id(t.offset), t.offset, elems, opt)
        if k == "{":
            self.advance()
            return CreateMap(self.new_id(t.offset), t.offset, self.map_entries())
        if k == "EOF":
            raise self.syntax(_EXPECT_EXPR)
        if k in (".",):
            self.error(t.offset, f"Syntax error: no viable alternative at input '{t.text}{self.peek().text}'")
            raise _Abort()
        if self.peek().kind in _EXPR_START and self.extraneous < 8:
            # ANTLR's single-token deletion: report, skip the token, carry on
            self.extraneous += 1
            self.error(t.offset, f"Syntax error: extraneous input '{t.text}' expecting {_EXPECT_EXPR}")
            self.advance()
            return self.primary()
        raise self.syntax(_EXPECT_EXPR)

    def literal(self, t: Token, offset: int, negative: bool = False) -> Expr:
        i = self.new_id(offset)
        k = t.kind
        if k == "INT":
            v = -t.value if negative else t.value
            if not INT64_MIN <= v <= INT64_MAX:
                self.error(offset, "invalid int literal")
            return Const(i, offset, "int", v)
        if k == "UINT":
            if t.value > UINT64_MAX:
                self.error(offset, "invalid uint literal")
            return Const(i, offset, "uint", t.value)
        if k == "DOUBLE":
            if t.value == float("inf"):  # Go's strconv.ParseFloat: out of range
                self.error(offset, "invalid double literal")
            return Const(i, offset, "double", -t.value if negative else t.value)
        if k == "STRING":
            return Const(i, offset, "string", t.value)
        if k == "BYTES":
            if t.value is None:
                self.error(offset, "unable to unescape string")
            return Const(i, offset, "bytes", t.value)
        if k == "null":
            return Const(i, offset, "null", None)
        return Const(i, offset, "bool", k == "true")

    def ident_or_call(self, t: Token, leading_dot: bool = False) -> Expr:
        name = t.text
        if self.tok.kind == "(":
            lp = self.advance()
            args = self.args(")")
            return self.call(lp.offset, name, args, None)
        if self.tok.kind == "{":
            lb = self.advance()
            return self.struct(lb.offset, name)
        return Ident(self.new_id(t.offset), t.offset, name)

    def struct(self, offset: int, name: str) -> Expr:
        fields: list[tuple[str, Expr, bool]] = []
        while self.tok.kind != "}":
            opt = False
            if self.tok.kind == "?":
                self.advance()
                opt = True
            f = self.expect("IDENT")
            self.expect(":")
            fields.append((f.text, self.expr(), opt))
            if self.tok.kind == ",":
                self.advance()
            elif self.tok.kind != "}":
                raise self.syntax("'}'")
        self.advance()
        return CreateStruct(self.new_id(offset), offset, name, fields)

    def list_elems(self) -> tuple[list[Expr], list[int]]:
        elems: list[Expr] = []
        opt: list[int] = []
        while self.tok.kind != "]":
            if self.tok.kind == "," and not elems:
                self.advance()
                if self.tok.kind != "]":
                    raise self.syntax("']'")
                break
            if self.tok.kind == "?":
                self.advance()
                opt.append(len(elems))
            elems.append(self.expr())
            if self.tok.kind == ",":
                self.advance()
            elif self.tok.kind != "]":
                raise self.syntax("{']', ','}")
        self.advance()
        return elems, opt

    def map_entries(self) -> list[MapEntry]:
        out: list[MapEntry] = []
        while self.tok.kind != "}":
            if self.tok.kind == "," and not out:
                self.advance()
                if self.tok.kind != "}":
                    raise self.syntax("'}'")
                break
            opt = False
            if self.tok.kind == "?":
                self.advance()
                opt = True
            key = self.expr()
            colon = self.expect(":")
            val = self.expr()
            out.append(MapEntry(self.new_id(colon.offset), colon.offset, key, val, opt))
            if self.tok.kind == ",":
                self.advance()
            elif self.tok.kind != "}":
                raise self.syntax("{'}', ','}")
        self.advance()
        return out

    # -- macros ------------------------------------------------------------------------------
    def call(self, offset: int, name: str, args: list[Expr], target: Expr | None) -> Expr:
        expanded = expand(self, offset, name, args, target)
        if expanded is not None:
            return expanded
        return Call(self.new_id(offset), offset, name, args, target)

    def ident(self, offset: int, name: str) -> Ident:
        return Ident(self.new_id(offset), offset, name)

    def const(self, offset: int, kind: str, value: object) -> Const:
        return Const(self.new_id(offset), offset, kind, value)

    def fn(self, offset: int, name: str, *args: Expr, target: Expr | None = None) -> Call:
        return Call(self.new_id(offset), offset, name, list(args), target)

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
    ) -> Comprehension:
        return Comprehension(
            self.new_id(offset),
            offset,
            iter_var,
            iter_var2,
            iter_range,
            accu,
            init,
            cond,
            step,
            result,
            macro,
        )


def ast_depth(e: Expr) -> int:
    """Nesting depth of the AST (iterative)."""
    from dractl.cel.ast import children

    best = 0
    stack = [(e, 1)]
    while stack:
        x, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in children(x))
    return best


def parse(src: str) -> tuple[Expr | None, list[tuple[int, str]], dict[int, int]]:
    """Parse ``src``: (AST or None, errors, id → offset)."""
    p = Parser(src)
    with deep_recursion():
        e = p.parse()
    return e, p.errors, p.offsets


__all__ = ["CreateStruct", "parse"]
