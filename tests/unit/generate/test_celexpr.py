"""Selectors built from flags: exact CEL text, escaping, guards, and what dractl's CEL engine says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cel import compile_selector
from dractl.errors import UsageError
from dractl.generate import celexpr
from dractl.model.features import Features

F = Features.for_version("1.37")
A = "device.attributes['gpu.nvidia.com']"


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("productName~='H100'", f"has({A}.productName) && {A}.productName.matches('H100')"),
        ("index>=2", f"has({A}.index) && {A}.index >= 2"),
        ("index=2", f"has({A}.index) && {A}.index == 2"),
        (
            "driverVersion>=1.2.3",
            f"has({A}.driverVersion) && {A}.driverVersion.compareTo(semver('1.2.3')) >= 0",
        ),
        (
            "driverVersion<v560.35.3",
            f"has({A}.driverVersion) && {A}.driverVersion.compareTo(semver('560.35.3')) < 0",
        ),
        ("mig=true", f"has({A}.mig) && {A}.mig == true"),
        ("type!=gpu", f"has({A}.type) && {A}.type != 'gpu'"),
        ("count='2'", f"has({A}.count) && {A}.count == '2'"),
        ("mig", f"has({A}.mig)"),
        ("in=3", f"'in' in {A} && {A}['in'] == 3"),
        (
            'example.com/model="a\'b"',
            "has(device.attributes['example.com'].model) && "
            "device.attributes['example.com'].model == 'a\\'b'",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_attribute_expressions(spec: str, expected: str) -> None:
    expr = celexpr.attribute(spec, "gpu.nvidia.com")
    assert expr == expected
    assert celexpr.check(expr, F, "--attr") == expr


def test_min_capacity_compares_quantities_not_strings() -> None:
    expr = celexpr.min_capacity("memory=40Gi", "gpu.nvidia.com")
    assert expr == (
        "has(device.capacity['gpu.nvidia.com'].memory) && "
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
    )
    compile_selector(expr)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("productName=x", "not fully qualified"),
        ("Bad_Domain/x=1", "not a DNS subdomain"),
        ("gpu.nvidia.com/1x=1", "C identifier"),
        ("index<=b", "needs a number or a version"),
        ("mig>true", "does not apply to a bool"),
        ("n=99999999999999999999", "64-bit"),
    ],
)
def test_bad_attribute_flags_are_usage_errors(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        celexpr.attribute(spec, None if "productName" in spec else "gpu.nvidia.com")


@pytest.mark.parametrize("spec", ["memory", "memory=", "memory=lots", "=1Gi"])
def test_bad_min_capacity(spec: str) -> None:
    with pytest.raises(UsageError, match="--min-capacity"):
        celexpr.min_capacity(spec, "gpu.nvidia.com")


def test_an_invalid_regex_is_caught_by_the_cel_engine() -> None:
    expr = celexpr.attribute("productName~='('", "gpu.nvidia.com")
    with pytest.raises(UsageError, match=r"--attr: CEL .*invalid matches argument"):
        celexpr.check(expr, F, "--attr")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_literals_round_trip_through_the_cel_engine(text: str) -> None:
    """Any string, once escaped, is one CEL string literal equal to itself."""
    from dractl.cel.selector import compile_selector as compile_

    expr = (
        f"{celexpr.literal(text)} == {celexpr.literal(text)} && size({celexpr.literal(text)}) == {len(text)}"
    )
    sel = compile_(expr)
    assert sel.expression == expr
    assert "\n" not in celexpr.literal(text) and "\x00" not in celexpr.literal(text)
