"""Quantity: Go's ParseQuantity, representation (int64Amount vs inf.Dec), canonical form, add/sub."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dractl.model.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity, QuantityError, canonical


@pytest.mark.parametrize(
    ("text", "canon", "fmt"),
    [
        ("1.5Gi", "1536Mi", BINARY_SI),
        ("1000m", "1", DECIMAL_SI),
        ("0.2G", "200M", DECIMAL_SI),
        ("1e3", "1e3", DECIMAL_EXPONENT),
        ("12e6", "12e6", DECIMAL_EXPONENT),
        ("1E", "1E", DECIMAL_SI),
        ("1Ki", "1Ki", BINARY_SI),
        ("3000Mi", "3000Mi", BINARY_SI),
        ("0.1", "100m", DECIMAL_SI),
        ("0.5n", "1n", DECIMAL_SI),
        ("-1.5Gi", "-1536Mi", BINARY_SI),
        ("8Ei", "9223372036854775807", BINARY_SI),
        ("Gi", "0", BINARY_SI),
        (".5", "500m", DECIMAL_SI),
        ("5.", "5", DECIMAL_SI),
        ("+1", "1", DECIMAL_SI),
        ("-0", "0", DECIMAL_SI),
        ("0.5Ki", "512", BINARY_SI),
        ("1.0001Ki", "1024102400u", BINARY_SI),
        ("1000", "1k", DECIMAL_SI),
        ("1536", "1536", DECIMAL_SI),
        ("1e-3", "1e-3", DECIMAL_EXPONENT),
    ],
)
def test_parse_and_canonical(text: str, canon: str, fmt: str) -> None:
    q = Quantity.parse(text)
    assert canonical(q) == canon
    assert q.format == fmt
    assert Quantity.parse(canon) == q


@pytest.mark.parametrize(
    ("text", "as_int"),
    [
        ("0.2G", 200_000_000),
        ("1E", 10**18),
        ("1E3", 1000),
        ("80Gi", 85899345920),
        ("Gi", 0),
        ("5.", 5),
        ("1000m", None),
        ("1.5Gi", None),
        ("1.0", None),
        ("1Pi", None),
        ("1Ei", None),
        ("9223372036854775807", None),
        ("100m", None),
    ],
)
def test_as_int64_follows_the_representation(text: str, as_int: int | None) -> None:
    assert Quantity.parse(text).as_int64() == as_int


@pytest.mark.parametrize("text", ["", "1K", "2.5e-2Gi", "1.2.3", "abc", "1 Gi", "--1", "1i"])
def test_rejected(text: str) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(text)


def test_error_texts() -> None:
    with pytest.raises(QuantityError, match="unable to parse quantity's suffix"):
        Quantity.parse("1K")
    with pytest.raises(QuantityError, match=r"must match the regular expression"):
        Quantity.parse("10Mo")


def test_value_comparison_and_equality() -> None:
    assert Quantity.parse("200M") == Quantity.parse("0.2G")
    assert Quantity.parse("1Ki") != Quantity.parse("1k")
    assert Quantity.parse("1Ki") > Quantity.parse("1k")
    assert Quantity.parse("1m").compare(Quantity.parse("0.001")) == 0
    assert Quantity.parse("1.5Gi").value == Fraction(3, 2) * 2**30
    assert len({Quantity.parse("1"), Quantity.parse("1000m")}) == 1


def test_add_and_sub_keep_go_representations() -> None:
    one = Quantity.parse("1")
    s = one.add(Quantity.parse("1000m"))
    assert s == Quantity.parse("2") and s.as_int64() is None  # scale -3 survives
    assert Quantity.parse("1Gi").add(Quantity.parse("1Gi")).as_int64() == 2**31
    d = Quantity.parse("1.5Gi").add(Quantity.parse("1"))
    assert d.dec and d.value == Fraction(3, 2) * 2**30 + 1
    assert Quantity.parse("2").sub(Quantity.parse("0.5")) == Quantity.parse("1.5")
    big = Quantity.parse("9223372036854775807").add(Quantity.parse("1"))
    assert big.value == 2**63 and big.dec
    assert Quantity.parse("0").add(Quantity.parse("1Ki")).format == BINARY_SI


def test_from_int_and_approximate_float() -> None:
    assert canonical(Quantity.from_int(80 * 2**30, BINARY_SI)) == "80Gi"
    assert Quantity.parse("100Mi").as_approximate_float() == 104857600.0
    assert Quantity.parse("1n").as_approximate_float() == 1e-09


@pytest.mark.parametrize("value", [{"x": 1}, ["1"], None, float("nan"), float("inf"), True])
def test_non_quantity_values_raise_quantity_error(value: object) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(value)  # type: ignore[arg-type]
