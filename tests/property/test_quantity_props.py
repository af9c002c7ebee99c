"""Quantity properties: parse → canonical → parse round-trips; comparisons agree with exact
rational arithmetic."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.model.quantity import Quantity, canonical

SUFFIXES = [
    "",
    "n",
    "u",
    "m",
    "k",
    "M",
    "G",
    "T",
    "P",
    "E",
    "Ki",
    "Mi",
    "Gi",
    "Ti",
    "Pi",
    "Ei",
    "e3",
    "e-3",
    "E6",
    "e0",
]
_MULT = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
    "e3": Fraction(1000),
    "e-3": Fraction(1, 1000),
    "E6": Fraction(10**6),
    "e0": Fraction(1),
}


@st.composite
def quantity_text(draw: st.DrawFn) -> tuple[str, Fraction]:
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.integers(min_value=0, max_value=10**12))
    frac = draw(st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=6)))
    suffix = draw(st.sampled_from(SUFFIXES))
    number = f"{whole}.{frac}" if frac else str(whole)
    value = Fraction(number) * _MULT[suffix] * (-1 if sign == "-" else 1)
    return f"{sign}{number}{suffix}", value


def _expected(value: Fraction, binary: bool) -> Fraction:
    """Kubernetes rounds up (away from zero) to a nano and caps binary values at int64 max."""
    mag = abs(value)
    nanos = mag * 10**9
    if nanos.denominator != 1:
        mag = Fraction(-((-nanos.numerator) // nanos.denominator), 10**9)
    if binary and mag > 2**63 - 1:
        mag = Fraction(2**63 - 1)
    return mag if value >= 0 else -mag


@settings(max_examples=400, deadline=None)
@given(quantity_text())
def test_parse_canonical_parse_round_trips(sample: tuple[str, Fraction]) -> None:
    text, value = sample
    q = Quantity.parse(text)
    assert q.value == _expected(value, text.endswith("i"))
    again = Quantity.parse(canonical(q))
    assert again == q
    assert canonical(again) == canonical(q)


@settings(max_examples=300, deadline=None)
@given(quantity_text(), quantity_text())
def test_comparisons_agree_with_rationals(a: tuple[str, Fraction], b: tuple[str, Fraction]) -> None:
    qa, qb = Quantity.parse(a[0]), Quantity.parse(b[0])
    ra, rb = qa.value, qb.value
    assert qa.compare(qb) == (ra > rb) - (ra < rb)
    assert (qa < qb) == (ra < rb) and (qa == qb) == (ra == rb)
    assert qa.add(qb).value == ra + rb
    assert qa.sub(qb).value == ra - rb
    assert qa.sign() == (ra > 0) - (ra < 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_integers_are_integers(n: int) -> None:
    q = Quantity.parse(str(n))
    if len(str(abs(n))) <= 18:
        assert q.as_int64() == n
    assert q.value == n
