"""Version.parse shares results per text (Versions are immutable) and never caches failures."""

from __future__ import annotations

import pytest

from dractl.model.semver import SemverError, Version


def test_same_text_same_value_and_object() -> None:
    a, b = Version.parse("1.2.3-rc.1+build.5"), Version.parse("1.2.3-rc.1+build.5")
    assert a is b
    assert (a.major, a.minor, a.patch, str(a)) == (1, 2, 3, "1.2.3-rc.1+build.5")


def test_errors_are_raised_every_time() -> None:
    for _ in range(2):
        with pytest.raises(SemverError, match='Major number must not contain leading zeroes "01"'):
            Version.parse("01.2.3")


def test_subclasses_and_normalised_parsing_are_unaffected() -> None:
    class Mine(Version):
        __slots__ = ()

    assert type(Mine.parse("1.0.0")) is Mine
    assert Version.parse_normalized("v1.2") == Version.parse("1.2.0")
