import pytest
from hypothesis import given
from hypothesis import strategies as st

from dractl.discover.versions import is_strict, normalize


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("560.35.03", "560.35.3"),
        ("535.104.05", "535.104.5"),
        ("580.126.20", "580.126.20"),
        ("12.4", "12.4.0"),
        ("9.0", "9.0.0"),
        ("13", "13.0.0"),
        ("v1.2.3", "1.2.3"),
        ("1.2.3.4", "1.2.3+4"),
        ("1.2.3-rc.01", "1.2.3-rc.1"),
        ("1.2.3+build.007", "1.2.3+build.007"),
    ],
)
def test_normalize_makes_strict_semver(raw: str, expected: str) -> None:
    assert normalize(raw) == expected
    assert is_strict(expected)


@pytest.mark.parametrize("raw", ["", "abc", "1..2", "1.2.3.4.5", "560.35.03 beta", None])
def test_normalize_refuses_what_cannot_be_semver(raw: str | None) -> None:
    assert normalize(raw) is None


@pytest.mark.parametrize("raw", ["560.35.03", "01.2.3", "1.2", "1.2.3-01"])
def test_strict_rejects_leading_zeros_and_short_forms(raw: str) -> None:
    assert not is_strict(raw)


_part = st.integers(min_value=0, max_value=10**6).map(str) | st.from_regex(r"0[0-9]{1,3}", fullmatch=True)


@given(st.lists(_part, min_size=1, max_size=4).map(".".join))
def test_numeric_versions_always_normalise_to_strict_semver(raw: str) -> None:
    out = normalize(raw)
    assert out is not None and is_strict(out)
    numbers = [int(p) for p in raw.split(".")]
    assert [int(p) for p in out.split("+")[0].split(".")] == [*numbers, 0, 0][:3]


@given(st.text(max_size=20))
def test_normalize_output_is_strict_or_none(raw: str) -> None:
    out = normalize(raw)
    assert out is None or is_strict(out)
