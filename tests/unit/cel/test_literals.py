"""Literal grammar as cel-go parses it: bytes/string escapes (fuzzed), numbers, folding, typing."""

from __future__ import annotations

import pytest
from cel_helpers import gpu
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cel import CelCache
from dractl.cel.ast import Const
from dractl.cel.parser import parse
from dractl.errors import CelCompileError, CelRuntimeError


def _const(src: str) -> object:
    ast, errors, _ = parse(src)
    assert not errors and isinstance(ast, Const), errors
    return ast.value


def _escape_byte(b: int, how: int) -> str:
    if how == 0 and 0x20 < b < 0x7F and chr(b) not in "\\\"'":
        return chr(b)
    if how == 1:
        return f"\\x{b:02x}"
    if how == 2:
        return f"\\X{b:02X}"
    return f"\\{b:03o}"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 255), st.integers(0, 3)), max_size=24))
def test_bytes_literal_escapes_give_the_raw_bytes(parts: list[tuple[int, int]]) -> None:
    body = "".join(_escape_byte(b, how) for b, how in parts)
    assert _const(f'b"{body}"') == bytes(b for b, _ in parts)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.characters(min_codepoint=1, max_codepoint=0x10FFFF, blacklist_categories=("Cs",)),
            st.integers(0, 3),
        ),
        max_size=16,
    )
)
def test_string_and_bytes_literals_of_unicode_text(parts: list[tuple[str, int]]) -> None:
    body = ""
    for ch, how in parts:
        if how == 0 and ch not in "\\\"'\r\n":
            body += ch
        elif how == 1 or ord(ch) > 0xFFFF:
            body += f"\\U{ord(ch):08x}"
        elif how == 2:
            body += f"\\u{ord(ch):04x}"
        else:
            body += "\\x41" if ch == "A" else f"\\U{ord(ch):08X}"
    text = "".join(ch for ch, _ in parts)
    assert _const(f'"{body}"') == text
    raw = "".join(ch for ch, how in parts if how == 0 and ch not in "\\\"'\r\n")
    assert _const(f'b"{raw}"') == raw.encode("utf-8")


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.text(
        alphabet=st.sampled_from(
            [
                "\\",
                "x",
                "X",
                "u",
                "U",
                "0",
                "3",
                "7",
                "f",
                "F",
                "g",
                '"',
                "'",
                "a",
                "\u00e9",
                "\ud800",
                " ",
                "\n",
            ]
        ),
        max_size=14,
    ),
    st.sampled_from(['b"', "b'", 'B"', '"', "'", 'r"', 'rb"', 'b"""']),
)
def test_hostile_literals_compile_or_fail_cleanly(body: str, prefix: str) -> None:
    quote = prefix.lstrip("rRbB")
    src = f"{prefix}{body}{quote} != {prefix}{quote}"
    try:
        CelCache().compile(src)
    except CelCompileError as e:
        assert e.message.startswith(("compilation failed", "must evaluate"))


@pytest.mark.parametrize(
    ("expr", "error"),
    [
        ("0X1f == 31", "Syntax error: mismatched input 'X1f'"),
        ("0x1F == 31", None),
        ("1e309 > 0.0", "invalid double literal"),
        ("-1e309 < 0.0", "invalid double literal"),
        ("1e308 > 0.0", None),
        ("1e-400 == 0.0", None),
        (
            'double("1e309") > 0.0',
            "program instantiation failed: type conversion error from 'string' to 'double'",
        ),
        ('double("-Infinity") < 0.0', None),
        ('b"\\x41\\xff\\101" == bytes("A") + b"\\xff" + b"A"', None),
        ('string(b"\\xc3\\xa9") == "é"', None),
    ],
)
def test_number_and_bytes_literals(expr: str, error: str | None) -> None:
    cache = CelCache()
    if error is None:
        assert cache.compile(expr).matches(gpu()) is True
    else:
        with pytest.raises(CelCompileError, match=error.replace("(", r"\(").replace(")", r"\)")):
            cache.compile(expr)


@pytest.mark.parametrize(
    ("expr", "error"),
    [
        ('[1, dyn("a")].size() == 2', "1:8: expected type 'int' but found 'dyn'"),
        ('[dyn(1), "a"].size() == 2', "1:10: expected type 'dyn' but found 'string'"),
        ('[1, "a", 2.0].size() == 3', "1:5: expected type 'int' but found 'string'"),
        ('{"a": dyn(1), "b": 2}.size() == 2', "1:20: expected type 'dyn' but found 'int'"),
        ('{"a": 1, 2: "b"}.size() == 2', "1:10: expected type 'string' but found 'int'"),
        ("[[], [1]].size() == 2", None),
        ('[dyn(1), dyn("a")].size() == 2', None),
        ('"%s and %d".format(["a", 1]) == "a and 1"', None),  # format's arguments are exempt
        ('"%s".format([{"a": [1, "b"]}]) == "{\\"a\\":[1, \\"b\\"]}"', None),
    ],
)
def test_aggregate_literals_are_homogeneous_as_kubernetes_requires(expr: str, error: str | None) -> None:
    cache = CelCache()
    if error is None:
        assert cache.compile(expr).matches(gpu()) is True
    else:
        with pytest.raises(CelCompileError, match=error):
            cache.compile(expr)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ('"abcabc".lastIndexOf("b", 10)', -1),
        ('"abcabc".lastIndexOf("b", 6)', -1),
        ('"abcabc".lastIndexOf("b", 5)', 4),
        ('"abcabc".lastIndexOf("b", 3)', 1),
        ('"abcabc".lastIndexOf("bc", 5)', 4),
        ('"".lastIndexOf("a")', -1),
        ('"abc".indexOf("b", 3)', -1),
        ('semver("18446744073709551615.0.0").major()', -1),
        ('semver("9223372036854775808.0.1").major()', -9223372036854775808),
        ('semver("1.18446744073709551614.3").minor()', -2),
    ],
)
def test_go_edge_values(expr: str, value: int) -> None:
    assert CelCache().compile(f"{expr} == {value}").matches(gpu()) is True


def test_last_index_of_negative_offset_is_an_error() -> None:
    with pytest.raises(CelRuntimeError, match="index out of range: -1"):
        CelCache().compile('device.driver.lastIndexOf("a", -1) == 0').matches(gpu())
