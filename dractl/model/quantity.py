"""Kubernetes resource.Quantity: the exact grammar, value, representation and canonical form.

A Quantity keeps what Kubernetes keeps: the exact value, the suffix *format*
(DecimalSI, BinarySI, DecimalExponent) and whether Go holds it as an
``int64Amount`` (``unscaled * 10**scale`` with an int64 ``unscaled``) or as an
arbitrary-precision ``inf.Dec`` (``dec=True``).  The representation matters to CEL:
``isInteger``/``asInteger`` succeed only for an int64Amount with ``scale >= 0`` whose
value fits int64, so ``1000m``, ``1.5Gi``, ``1Pi`` and ``9223372036854775807`` are not
"integers" there.  Equality and ordering compare values (``Quantity.Cmp``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dractl.model.memo import remember

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
_MAX_INT64_FACTORS = 18
_NANO = -9
_DIGITS = frozenset("0123456789")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DEC_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BIN_SUFFIX = {v: k for k, v in _BINARY.items()}
FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


# Parsed quantity strings (Quantity is immutable: equal strings share one object).  Bounded:
# cleared when full.  Strings that do not parse are not kept (they raise every time).
_PARSED: dict[str, Quantity] = {}
_PARSED_MAX = 1 << 16


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity (message in Kubernetes' words)."""


def _fits(v: int) -> bool:
    return INT64_MIN <= v <= INT64_MAX


@dataclass(frozen=True, slots=True, eq=False)
class Quantity:
    """An exact Kubernetes quantity: ``unscaled * 10**scale``; ``dec`` marks Go's inf.Dec form."""

    unscaled: int
    scale: int
    format: str = DECIMAL_SI
    dec: bool = False

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse a quantity as ``resource.ParseQuantity`` does; raise QuantityError."""
        if type(text) is str:  # the usual case: a quantity string seen before is the same object
            hit = _PARSED.get(text)
            if hit is None:
                hit = remember(_PARSED, text, _parse(text), _PARSED_MAX)
            return hit
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            raise QuantityError(FORMAT_MESSAGE)  # a mapping, list or null where a quantity belongs
        if isinstance(text, int):
            text = str(text)
        elif isinstance(text, float):
            if text != text or text in (float("inf"), float("-inf")):
                raise QuantityError(FORMAT_MESSAGE)
            text = repr(text) if text != int(text) else str(int(text))
        return _parse(text)

    @classmethod
    def from_int(cls, value: int, fmt: str = DECIMAL_SI) -> Quantity:
        """``resource.NewQuantity(value, fmt)``."""
        return cls(value, 0, fmt, not _fits(value))

    # -- value -------------------------------------------------------------------------------
    @property
    def value(self) -> Fraction:
        """The exact value."""
        if self.scale >= 0:
            return Fraction(self.unscaled * 10**self.scale)
        return Fraction(self.unscaled, 10**-self.scale)

    def sign(self) -> int:
        return (self.unscaled > 0) - (self.unscaled < 0)

    def is_zero(self) -> bool:
        return self.unscaled == 0

    def compare(self, other: Quantity) -> int:
        a, b, sa, sb = self.unscaled, other.unscaled, self.scale, other.scale
        if sa > sb:
            a *= 10 ** (sa - sb)
        elif sb > sa:
            b *= 10 ** (sb - sa)
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __gt__(self, other: Quantity) -> bool:
        return self.value > other.value

    def __ge__(self, other: Quantity) -> bool:
        return self.value >= other.value

    def __str__(self) -> str:
        return canonical(self)

    # -- representation-dependent operations (Go semantics) -----------------------------------
    def as_int64(self) -> int | None:
        """``Quantity.AsInt64``: None unless an int64Amount with scale >= 0 that fits int64."""
        if self.dec or self.scale < 0:
            return None
        v = self.unscaled * 10**self.scale
        return v if _fits(v) else None

    def as_approximate_float(self) -> float:
        """``Quantity.AsApproximateFloat64``."""
        base = float(self.unscaled)
        if self.scale == 0:
            return base
        try:
            return base * float(f"1e{self.scale}")
        except OverflowError:  # pragma: no cover - float("1e400") is inf, not an error
            return float("inf")

    def add(self, other: Quantity) -> Quantity:
        """``q.Add(y)`` (Go's in-place add, returned as a new value)."""
        fmt = self.format
        if not self.dec and not other.dec:
            if self.unscaled == 0:
                fmt = other.format
            r = _int_add(self.unscaled, self.scale, other.unscaled, other.scale)
            if r is not None:
                return Quantity(r[0], r[1], fmt, False)
        elif self.is_zero():
            fmt = other.format
        return _dec_result(self._dec_pair(), other._dec_pair(), 1, fmt)

    def sub(self, other: Quantity) -> Quantity:
        """``q.Sub(y)``."""
        fmt = other.format if self.is_zero() else self.format
        if not self.dec and not other.dec:
            r = _int_add(self.unscaled, self.scale, -other.unscaled, other.scale)
            if r is not None:
                return Quantity(r[0], r[1], fmt, False)
        return _dec_result(self._dec_pair(), other._dec_pair(), -1, fmt)

    def _dec_pair(self) -> tuple[int, int]:
        return self.unscaled, self.scale


def _int_add(av: int, ascale: int, bv: int, bscale: int) -> tuple[int, int] | None:
    """int64Amount.Add: None on overflow (Go then falls back to inf.Dec)."""
    if bv == 0:
        return av, ascale
    if av == 0:
        return bv, bscale
    if ascale == bscale:
        c = av + bv
        return (c, ascale) if _fits(c) else None
    if ascale > bscale:
        c = av * 10 ** (ascale - bscale)
        if not _fits(c):
            return None
        c += bv
        return (c, bscale) if _fits(c) else None
    c = bv * 10 ** (bscale - ascale)
    if not _fits(c):
        return None
    c += av
    return (c, ascale) if _fits(c) else None


def _dec_result(a: tuple[int, int], b: tuple[int, int], sign: int, fmt: str) -> Quantity:
    """inf.Dec add/sub: the result takes the finer of the two scales."""
    scale = min(a[1], b[1])
    av = a[0] * 10 ** (a[1] - scale)
    bv = b[0] * 10 ** (b[1] - scale)
    return Quantity(av + sign * bv, scale, fmt, True)


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
        raise QuantityError(FORMAT_MESSAGE)
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
            if _fits(exp):
                # Go parses int64 and truncates to int32
                exp = (exp + 2**31) % 2**32 - 2**31
                return 10, exp, DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


def _parse(s: str) -> Quantity:
    if not s:
        raise QuantityError(FORMAT_MESSAGE)
    positive, num, denom, suffix = _split(s)
    base, exponent, fmt = _suffix(suffix)
    # Fast path: Go's int64Amount when the digits fit the precision budget.
    mantissa = 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale = exponent
    elif exponent >= 0 and not denom:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision, scale = -1, 0
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            value = int(num + denom)
            if value > INT64_MAX:
                raise QuantityError("unable to parse numeric part of quantity")
            result = value * mantissa
            if _fits(result):
                return Quantity(result if positive else -result, scale, fmt, False)
    # Slow path: inf.Dec, rounded up to nano, binary capped at int64 max.
    unscaled = int(num + denom)
    dscale = len(denom)  # inf.Dec scale: value = unscaled / 10**dscale
    if base == 10:
        dscale -= exponent
    else:
        unscaled <<= exponent
    if unscaled != 0:
        if dscale > 9:
            div = 10 ** (dscale - 9)
            unscaled = -((-unscaled) // div)
        else:
            unscaled *= 10 ** (9 - dscale)
        dscale = 9
    if fmt == BINARY_SI and Fraction(unscaled, 10**dscale) > INT64_MAX:
        unscaled, dscale = INT64_MAX, 0
    if fmt == BINARY_SI and 0 < Fraction(unscaled, 10**dscale) < 1:
        fmt = DECIMAL_SI
    return Quantity(unscaled if positive else -unscaled, -dscale, fmt, True)


def _remove_factors(v: int, base: int) -> tuple[int, int]:
    neg = v < 0
    v = abs(v)
    times = 0
    while v >= base and v % base == 0:
        v //= base
        times += 1
    return (-v if neg else v), times


def canonical(q: Quantity) -> str:
    """The canonical string Kubernetes serialises the quantity as (``Quantity.String``)."""
    if q.unscaled == 0:
        return "0"
    fmt = q.format
    value = q.value
    if fmt == BINARY_SI:
        if -1024 < value < 1024 or value.denominator != 1:
            fmt = DECIMAL_SI
        else:
            amount, exp = _remove_factors(int(value), 1024)
            return f"{amount}{_BIN_SUFFIX[exp * 10] if exp else ''}"
    if fmt not in (DECIMAL_SI, DECIMAL_EXPONENT):
        fmt = DECIMAL_EXPONENT
    amount, times = _remove_factors(q.unscaled, 10)
    exponent = q.scale + times
    while exponent % 3 != 0:
        amount *= 10
        exponent -= 1
    if fmt == DECIMAL_EXPONENT or exponent not in _DEC_SUFFIX:
        return f"{amount}e{exponent}" if exponent else str(amount)
    return f"{amount}{_DEC_SUFFIX[exponent]}"
