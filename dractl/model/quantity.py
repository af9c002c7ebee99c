"""Kubernetes resource.Quantity: the exact grammar, value and representation.

A Quantity keeps what Kubernetes keeps: the exact value, the suffix *format*
(DecimalSI, BinarySI, DecimalExponent) and whether Go would store it as an
``int64Amount`` (unscaled int64 times 10**scale) or as an arbitrary-precision
``inf.Dec``.  The representation matters to CEL (``isInteger``/``asInteger``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)
_MAX_INT64_FACTORS = 18
_DIGITS = frozenset("0123456789")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """An exact Kubernetes quantity.

    ``unscaled * 10**scale`` is the value; ``dec`` tells whether Go would hold it
    as ``inf.Dec`` rather than ``int64Amount``.
    """

    unscaled: int
    scale: int
    format: str = DECIMAL_SI
    dec: bool = False

    @property
    def value(self) -> Fraction:
        """The exact value."""
        if self.scale >= 0:
            return Fraction(self.unscaled * 10**self.scale)
        return Fraction(self.unscaled, 10**-self.scale)

    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse a quantity as ``resource.ParseQuantity`` does; raise QuantityError."""
        if isinstance(text, bool):
            raise QuantityError("quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        if isinstance(text, int):
            text = str(text)
        elif isinstance(text, float):
            text = repr(text) if text != int(text) else str(int(text))
        return _parse(text)

    @classmethod
    def from_int(cls, value: int, fmt: str = DECIMAL_SI) -> Quantity:
        return cls(value, 0, fmt, not (_INT64_MIN <= value <= _INT64_MAX))

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def compare(self, other: Quantity) -> int:
        a, b = self.value, other.value
        return (a > b) - (a < b)

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __str__(self) -> str:
        return canonical(self)


def _format_error() -> QuantityError:
    return QuantityError("quantities must match the regular expression "
                         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def _split(s: str) -> tuple[bool, str, str, str]:
    """Split into (positive, numerator digits, denominator digits, suffix) as Go does."""
    end = len(s)
    pos = 0
    positive = True
    if pos < end and s[0] in "+-":
        positive = s[0] == "+"
        pos += 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos] or "0"
    denom = ""
    if pos < end and s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
    suffix_start = pos
    while pos < end and s[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise _format_error()
    return positive, num, denom, s[suffix_start:]


def _suffix(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix; raise QuantityError when unknown."""
    if suffix in _BINARY:
        return 2, _BINARY[suffix], BINARY_SI
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], DECIMAL_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        digits = rest[1:] if rest[:1] in "+-" else rest
        if digits and all(c in _DIGITS for c in digits):
            exp = int(rest)
            if -(2**31) <= exp < 2**31:
                return 10, exp, DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


def _parse(s: str) -> Quantity:
    if not s:
        raise _format_error()
    positive, num, denom, suffix = _split(s)
    base, exponent, fmt = _suffix(suffix)
    sign = 1 if positive else -1
    # Fast path: Go's int64Amount when the digits fit the precision budget.
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale = exponent
        mantissa = 1
    elif exponent >= 0 and not denom:
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
        mantissa = 1 << exponent
    else:
        precision, scale, mantissa = -1, 0, 1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            value = int(num + denom)
            if value <= _INT64_MAX:
                result = value * mantissa
                if result <= _INT64_MAX:
                    return Quantity(sign * result, scale, fmt, False)
    # Slow path: inf.Dec, rounded up to nano, binary capped at int64 max.
    value = Fraction(int(num + denom), 10 ** len(denom))
    value = value * (2**exponent) if base == 2 else value * Fraction(10) ** exponent
    if value != 0:
        nanos = value * 10**9
        ceil = -((-nanos.numerator) // nanos.denominator)
        value = Fraction(ceil, 10**9)
    if fmt == BINARY_SI and value > _INT64_MAX:
        value = Fraction(_INT64_MAX)
    return _from_dec(sign * value, fmt)


def _from_dec(value: Fraction, fmt: str) -> Quantity:
    """An inf.Dec value; Go turns it back into int64Amount when the unscaled fits."""
    scale = 0
    while value.denominator != 1:
        value *= 10
        scale -= 1
    unscaled = int(value)
    fits = _INT64_MIN <= unscaled <= _INT64_MAX
    return Quantity(unscaled, scale, fmt, not fits)


def canonical(q: Quantity) -> str:
    """The canonical string Kubernetes serialises the quantity as."""
    value = q.value
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    if q.format == BINARY_SI and value.denominator == 1 and value >= 1024:
        n = int(value)
        exp = 0
        while n % 1024 == 0 and exp < 60:
            n //= 1024
            exp += 10
        if exp:
            return f"{sign}{n}{ {v: k for k, v in _BINARY.items()}[exp] }"
    # Decimal: choose the largest multiple-of-3 exponent with an integer mantissa,
    # rounding up to the smallest representable unit first (as Go does).
    for exp in (18, 15, 12, 9, 6, 3, 0, -3, -6, -9):
        m = value / Fraction(10) ** exp
        if m.denominator == 1:
            suffix = {v: k for k, v in _DECIMAL.items()}[exp]
            if q.format == DECIMAL_EXPONENT:
                suffix = f"e{exp}" if exp else ""
            return f"{sign}{int(m)}{suffix}"
    nanos = value * 10**9
    ceil = -((-nanos.numerator) // nanos.denominator)
    return f"{sign}{ceil}n"
