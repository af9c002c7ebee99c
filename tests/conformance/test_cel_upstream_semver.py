"""Cases of k8s.io/apiserver/pkg/cel/library/semver_test.go, run through dractl's CEL engine."""

from __future__ import annotations

import pytest
from cel_upstream import Case, ce, check, params, rt, val

CASES: list[Case] = [
    val("parse", 'semver("1.2.3")', 'semver("1.2.3")'),
    rt("parseInvalidVersion", 'semver("v1.0")', "No Major.Minor.Patch elements found"),
    val("isSemver", 'isSemver("1.2.3-beta.1+build.1")', "true"),
    val("isSemver_empty_false", 'isSemver("")', "false"),
    val("isSemver_v_prefix_false", 'isSemver("v1.0.0")', "false"),
    val("isSemver_v_leading_whitespace_false", 'isSemver(" 1.0.0")', "false"),
    val("isSemver_v_contains_whitespace_false", 'isSemver("1. 0.0")', "false"),
    val("isSemver_v_trailing_whitespace_false", 'isSemver("1.0.0 ")', "false"),
    val("isSemver_leading_zeros_false", 'isSemver("01.01.01")', "false"),
    val("isSemver_major_only_false", 'isSemver("1")', "false"),
    val("isSemver_major_minor_only_false", 'isSemver("1.1")', "false"),
    val("isSemver_empty_normalize_false", 'isSemver("", true)', "false"),
    val("isSemver_v_leading_whitespace_normalize_false", 'isSemver(" 1.0.0", true)', "false"),
    val("isSemver_v_contains_whitespace_normalize_false", 'isSemver("1. 0.0", true)', "false"),
    val("isSemver_v_trailing_whitespace_normalize_false", 'isSemver("1.0.0 ", true)', "false"),
    val("isSemver_v_prefix_normalize_true", 'isSemver("v1.0.0", true)', "true"),
    val("isSemver_leading_zeros_normalize_true", 'isSemver("01.01.01", true)', "true"),
    val("isSemver_major_only_normalize_true", 'isSemver("1", true)', "true"),
    val("isSemver_major_minor_only_normalize_true", 'isSemver("1.1", true)', "true"),
    ce("isSemver_noOverload", "isSemver([1, 2, 3])", "found no matching overload for 'isSemver' applied to"),
    val("equality_normalize", 'semver("v01.01", true) == semver("1.1.0")', "true"),
    val("equality_reflexivity", 'semver("1.2.3") == semver("1.2.3")', "true"),
    val("inequality", 'semver("1.2.3") == semver("1.0.0")', "false"),
    val("semver_less", 'semver("1.0.0").isLessThan(semver("1.2.3"))', "true"),
    val("semver_less_false", 'semver("1.0.0").isLessThan(semver("1.0.0"))', "false"),
    val("semver_greater", 'semver("1.2.3").isGreaterThan(semver("1.0.0"))', "true"),
    val("semver_greater_false", 'semver("1.0.0").isGreaterThan(semver("1.0.0"))', "false"),
    val("compare_equal", 'semver("1.2.3").compareTo(semver("1.2.3"))', "0"),
    val("compare_less", 'semver("1.0.0").compareTo(semver("1.2.3"))', "-1"),
    val("compare_greater", 'semver("1.2.3").compareTo(semver("1.0.0"))', "1"),
    val("major", 'semver("1.2.3").major()', "1"),
    val("minor", 'semver("1.2.3").minor()', "2"),
    val("patch", 'semver("1.2.3").patch()', "3"),
]


@pytest.mark.parametrize("case", params(CASES))
def test_upstream_semver(case: Case) -> None:
    check(case)
