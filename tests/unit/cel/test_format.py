"""string.format() as cel-go's strings library: what fails at compile time and what at run time,
argument counts, invalid UTF-8, and the locale printer's rendering of %f/%e."""

from __future__ import annotations

import pytest
from cel_helpers import gpu

from dractl.cel import CelCache
from dractl.errors import CelCompileError, CelRuntimeError


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ('"%.2f".format(["NaN"])', "NaN"),  # the three float spellings are accepted as strings
        ('"%f".format(["Infinity"])', "∞"),
        ('"%e".format(["-Infinity"])', "-∞"),
        ('"%f".format([double("Infinity")])', "∞"),
        ('"%.1f".format([0.05])', "0.1"),
        ('"%.0f".format([2.5])', "2"),
        ('"%f".format([1234567.5])', "1,234,567.500000"),
        ('"%.2f".format([-1e20])', "-100,000,000,000,000,000,000.00"),
        ('"%e".format([-0.00012])', "-1.200000×10⁻⁰⁴"),
        ('"%e".format([1e300])', "1.000000×10³⁰⁰"),
        ('"%d".format([-9223372036854775808])', "-9223372036854775808"),
        ('"%d".format([18446744073709551615u])', "18446744073709551615"),
        ('"%s and %d".format(["a", 1])', "a and 1"),
        ('"%s".format([b"ok"])', "ok"),
    ],
)
def test_rendering(expr: str, value: str) -> None:
    assert CelCache().compile(f"{expr} == {value!r}".replace("'", '"')).matches(gpu()) is True


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            '"%.2f".format(["x"]) == ""',
            "error during formatting: fixed-point clause can only be used on doubles, was given string",
        ),
        (
            '"%e".format(["1.5"]) == ""',
            "error during formatting: scientific clause can only be used on doubles, was given string",
        ),
        (
            '"%s".format([b"\\xff"]) == ""',
            'could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string',
        ),
        ('"%s".format([[b"\\xff"]]) == ""', "invalid UTF-8 in bytes"),
    ],
)
def test_run_time_errors(expr: str, message: str) -> None:
    sel = CelCache().compile(expr)  # a string for %f may be "NaN": only evaluation can tell
    with pytest.raises(CelRuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sel.matches(gpu())


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            '"%s".format(["a", "b"]) == "a"',
            r"1:12: too many arguments supplied to string.format \(expected 1, got 2\)",
        ),
        ('"%s %s".format(["a"]) == "a"', "error during formatting: index 1 out of range"),
        ('"%d".format(["x"]) == ""', "decimal clause can only be used on integers, was given string"),
        ('"%f".format([1]) == ""', "fixed-point clause can only be used on doubles, was given int"),
    ],
)
def test_compile_time_errors(expr: str, message: str) -> None:
    with pytest.raises(CelCompileError, match=message):
        CelCache().compile(expr)
