"""Semantic versions exactly as github.com/blang/semver/v4 parses them, plus Kubernetes'
normalising parser (``semver(s, true)`` in CEL).

Errors carry blang's wording (``Invalid character(s) found in major number "0V1"``) because
Kubernetes shows those texts to users.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, total_ordering

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    """The text is not a valid semantic version (message in blang/semver's words)."""


def _only(s: str, allowed: frozenset[str]) -> bool:
    return all(c in allowed for c in s)


def _uint(s: str) -> int:
    if not s or not _only(s, _NUMBERS):
        raise SemverError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    v = int(s)
    if v > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return v


def _number(s: str, what: str) -> int:
    if not _only(s, _NUMBERS):
        raise SemverError(f'Invalid character(s) found in {what} number "{s}"')
    if len(s) > 1 and s[0] == "0":
        raise SemverError(f'{what.capitalize()} number must not contain leading zeroes "{s}"')
    return _uint(s)


@dataclass(frozen=True, slots=True)
class PreRelease:
    text: str
    num: int | None  # set for numeric identifiers

    def compare(self, other: PreRelease) -> int:
        if self.num is not None and other.num is not None:
            return (self.num > other.num) - (self.num < other.num)
        if self.num is not None:
            return -1
        if other.num is not None:
            return 1
        return (self.text > other.text) - (self.text < other.text)


def _pre(s: str) -> PreRelease:
    if not s:
        raise SemverError("Prerelease is empty")
    if _only(s, _NUMBERS):
        if len(s) > 1 and s[0] == "0":
            raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{s}"')
        return PreRelease(s, _uint(s))
    if _only(s, _ALPHANUM):
        return PreRelease(s, None)
    raise SemverError(f'Invalid character(s) found in prerelease "{s}"')


@total_ordering
@dataclass(frozen=True, slots=True)
class Version:
    """A parsed version; ``==`` and ordering ignore build metadata (as blang's ``EQ``)."""

    major: int
    minor: int
    patch: int
    pre: tuple[PreRelease, ...] = ()
    build: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def parse(cls, s: str) -> Version:
        """Strict SemVer 2.0 parsing (blang/semver ``Parse``); raise SemverError.

        Versions are immutable and parsing is deterministic, so results are shared per
        text (CEL re-reads every device's version attributes on every evaluation)."""
        if cls is Version and type(s) is str:
            return _parse_cached(s)
        return cls._parse(s)

    @classmethod
    def _parse(cls, s: str) -> Version:
        if not s:
            raise SemverError("Version string empty")
        parts = s.split(".", 2)
        if len(parts) != 3:
            raise SemverError("No Major.Minor.Patch elements found")
        major = _number(parts[0], "major")
        minor = _number(parts[1], "minor")
        rest = parts[2]
        build: list[str] = []
        pre: list[str] = []
        if "+" in rest:
            rest, b = rest.split("+", 1)
            build = b.split(".")
        if "-" in rest:
            rest, p = rest.split("-", 1)
            pre = p.split(".")
        patch = _number(rest, "patch")
        pres = tuple(_pre(p) for p in pre)
        for b in build:
            if not b:
                raise SemverError("Build meta data is empty")
            if not _only(b, _ALPHANUM):
                raise SemverError(f'Invalid character(s) found in build meta data "{b}"')
        return cls(major, minor, patch, pres, tuple(build))

    @classmethod
    def parse_normalized(cls, s: str) -> Version:
        """Kubernetes' normalising parser: drop one ``v``, strip leading zeros, fill minor/patch."""
        if s.startswith("v"):
            s = s[1:]
        parts = s.split(".", 2)
        for i, p in enumerate(parts):
            if len(p) > 1:
                p = p.lstrip("0")
                if not p or p[0] not in _NUMBERS:
                    p = "0" + p
                parts[i] = p
        if len(parts) < 3:
            if any(c in "+-" for c in parts[-1]):
                raise SemverError("short version cannot contain PreRelease/Build meta data")
            parts += ["0"] * (3 - len(parts))
        return cls.parse(".".join(parts))

    def compare(self, other: Version) -> int:
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        for a_, b_ in zip(self.pre, other.pre, strict=False):
            c = a_.compare(b_)
            if c:
                return c
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __lt__(self, other: Version) -> bool:
        return self.compare(other) < 0

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(p.text for p in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s


@lru_cache(maxsize=4096)
def _parse_cached(s: str) -> Version:
    return Version._parse(s)  # a SemverError is raised again on every call (never cached)
