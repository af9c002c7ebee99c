"""Semantic versions: blang/semver strict parsing and Kubernetes' normalisation."""

from __future__ import annotations

import pytest

from dractl.model.semver import SemverError, Version


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1.2", "No Major.Minor.Patch elements found"),
        ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
        ("560.35.03", 'Patch number must not contain leading zeroes "03"'),
        ("01.0.0", 'Major number must not contain leading zeroes "01"'),
        ("1.2.x", 'Invalid character(s) found in patch number "x"'),
        ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
        ("1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3+", "Build meta data is empty"),
        ("1.2.3-α", 'Invalid character(s) found in prerelease "α"'),
        ("99999999999999999999.0.0", "value out of range"),
    ],
)
def test_strict_errors(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        Version.parse(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("v1", "1.0.0"),
        ("v1.2", "1.2.0"),
        ("01.0.0", "1.0.0"),
        ("1.01.0", "1.1.0"),
        ("1", "1.0.0"),
        ("1.2.3-rc.1+b", "1.2.3-rc.1+b"),
    ],
)
def test_normalisation(text: str, normal: str) -> None:
    assert str(Version.parse_normalized(text)) == normal


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("V1.2.3", 'Invalid character(s) found in major number "0V1"'),
        ("1.0.0-01", "Numeric PreRelease version must not contain leading zeroes"),
        ("1.2-rc", "short version cannot contain PreRelease/Build meta data"),
        ("v", 'strconv.ParseUint: parsing "": invalid syntax'),
    ],
)
def test_normalisation_errors(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        Version.parse_normalized(text)
    assert message in str(info.value)


def test_ordering_follows_semver_2() -> None:
    order = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "2.0.0",
    ]
    versions = [Version.parse(v) for v in order]
    assert sorted(reversed(versions)) == versions
    assert Version.parse("1.2.3+a") == Version.parse("1.2.3+b")
    assert Version.parse("18446744073709551615.0.0").major == 2**64 - 1
