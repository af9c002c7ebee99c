"""The CEL parser: grammar, literals, macros, limits and cel-go's error texts."""

from __future__ import annotations

import pytest

from dractl.cel.ast import Call, Comprehension, Const, Expr, Select
from dractl.cel.parser import ast_depth, parse


def ok(src: str) -> Expr:
    e, errors, _ = parse(src)
    assert not errors, errors
    assert e is not None
    return e


@pytest.mark.parametrize(
    ("src", "kind", "value"),
    [
        ("42", "int", 42),
        ("-9223372036854775808", "int", -(2**63)),
        ("0x1F", "int", 31),
        ("7u", "uint", 7),
        ("1.5", "double", 1.5),
        ("1e3", "double", 1000.0),
        (".5", "double", 0.5),
        ('"a\\tb"', "string", "a\tb"),
        ("'\\u00e9'", "string", "é"),
        ('r"\\d+"', "string", "\\d+"),
        ('"""x\ny"""', "string", "x\ny"),
        ('b"\\xff"', "bytes", b"\xff"),
        ("true", "bool", True),
        ("null", "null", None),
    ],
)
def test_literals(src: str, kind: str, value: object) -> None:
    e = ok(src)
    assert isinstance(e, Const)
    assert (e.kind, e.value) == (kind, value)


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("9223372036854775808", "invalid int literal"),
        ("18446744073709551616u", "invalid uint literal"),
        ('b"\\u0041"', "unable to unescape string"),
        ("1 +", "Syntax error: mismatched input '<EOF>'"),
        ("true true", "Syntax error: extraneous input 'true' expecting <EOF>"),
        ("1_000 == 1000", "Syntax error: mismatched input '_000' expecting <EOF>"),
        ("device..driver", "no viable alternative at input '..'"),
        ("a.in", "no viable alternative at input '.in'"),
        ("x;", "token recognition error at: ';'"),
        ("has(m['k'])", "invalid argument to has() macro"),
        ("[1].all(1, true)", "argument must be a simple name"),
    ],
)
def test_syntax_errors(src: str, message: str) -> None:
    e, errors, _ = parse(src)
    assert e is None
    assert any(message in m for _, m in errors), errors


def test_error_offsets_point_at_the_operator_and_call() -> None:
    _, errors, _ = parse("device.driver == ")
    assert errors[0][0] == 17  # EOF


def test_logical_chains_are_balanced() -> None:
    e = ok(" || ".join(["true"] * 1000))
    assert ast_depth(e) <= 12


def test_recursion_limits() -> None:
    _, errors, _ = parse("(" * 250 + "1" + ")" * 250)
    assert errors == [(-1, "expression recursion limit exceeded: 250")]
    ok("(" * 249 + "1" + ")" * 249)
    _, errors, _ = parse('quantity("1")' + ".add(1)" * 250 + ' == quantity("1")')
    assert errors == [(-1, "max recursion depth exceeded")]


def test_macros_expand_to_comprehensions() -> None:
    e = ok("[1, 2].exists(x, x == 2)")
    assert isinstance(e, Comprehension) and e.iter_var == "x" and e.macro == "exists"
    e = ok("m.transformMap(k, v, v + 1)")
    assert isinstance(e, Comprehension) and (e.iter_var, e.iter_var2) == ("k", "v")
    e = ok("cel.bind(a, 1, a + 1)")
    assert isinstance(e, Comprehension) and e.accu_var == "a" and e.macro == "bind"
    e = ok("has(device.attributes)")
    assert isinstance(e, Select) and e.test_only


def test_optional_syntax() -> None:
    e = ok('m.?a.orValue("x")')
    assert isinstance(e, Call) and e.function == "orValue"
    assert isinstance(e.target, Call) and e.target.function == "_?._"
    e = ok("l[?0]")
    assert isinstance(e, Call) and e.function == "_[?_]"


def test_reserved_words_as_fields() -> None:
    ok("device.attributes['x'].as == 1")
    ok("device.attributes['x'].namespace == 1")
