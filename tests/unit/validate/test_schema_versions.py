"""API version lifecycle per kind and release (API-RULES.md §13)."""

from __future__ import annotations

import pytest

from dractl.validate.versions import Availability, check, minor_of, served_versions

CASES = [
    ("v1", "ResourceClaim", "1.34", Availability.SERVED, ""),
    ("v1beta1", "ResourceClaim", "1.34", Availability.SERVED, ""),
    ("v1beta1", "ResourceClaim", "1.35", Availability.DEPRECATED,
     "resource.k8s.io/v1beta1 ResourceClaim is deprecated in v1.35+, unavailable in v1.38+"),
    ("v1beta2", "ResourceSlice", "1.36", Availability.DEPRECATED,
     "resource.k8s.io/v1beta2 ResourceSlice is deprecated in v1.36+, unavailable in v1.39+"),
    ("v1beta2", "DeviceTaintRule", "1.37", Availability.SERVED, ""),
    ("v1beta2", "DeviceTaintRule", "1.35", Availability.NOT_SERVED, "(introduced in v1.36)"),
    ("v1", "DeviceTaintRule", "1.36", Availability.NOT_SERVED, "use resource.k8s.io/v1beta2"),
    ("v1alpha3", "ResourceClaim", "1.34", Availability.NOT_SERVED, "(removed in v1.34)"),
    ("v1alpha2", "ResourceClaim", "1.37", Availability.NOT_SERVED, "(removed in v1.31); use resource.k8s.io/v1"),
    ("v1alpha1", "ResourceClass", "1.37", Availability.NOT_SERVED, "(removed in v1.27)"),
    ("v1alpha3", "DeviceTaintRule", "1.34", Availability.ALPHA, "--runtime-config=resource.k8s.io/v1alpha3=true"),
    ("v1alpha3", "DeviceTaintRule", "1.37", Availability.ALPHA, "deprecated in v1.36+, unavailable in v1.39+"),
    ("v1", "ResourceClass", "1.37", Availability.UNKNOWN_KIND,
     'no matches for kind "ResourceClass" in version "resource.k8s.io/v1"'),
]


@pytest.mark.parametrize("version, kind, release, availability, text", CASES,
                         ids=[f"{c[1]}-{c[0]}-{c[2]}" for c in CASES])
def test_lifecycle(version: str, kind: str, release: str, availability: Availability, text: str) -> None:
    verdict = check(version, kind, release)
    assert verdict.availability is availability
    assert text in verdict.message


def test_served_versions_are_ordered_most_stable_first() -> None:
    assert served_versions("ResourceClaim", "1.37") == ["v1", "v1beta2", "v1beta1"]
    assert served_versions("DeviceTaintRule", "1.37") == ["v1", "v1beta2", "v1alpha3"]
    assert served_versions("ResourcePoolStatusRequest", "1.35") == []


def test_minor_of() -> None:
    assert minor_of("1.37") == 37
    with pytest.raises(ValueError):
        minor_of("2.0")
