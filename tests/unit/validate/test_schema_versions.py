"""API version lifecycle per kind and release (API-RULES.md §13)."""

from __future__ import annotations

import pytest

from dractl.validate.versions import (
    Availability,
    RuntimeConfig,
    check,
    enabled_versions,
    minor_of,
    served_versions,
)

BETAS_ON = RuntimeConfig.parse("resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")

CASES = [
    ("v1", "ResourceClaim", "1.34", Availability.SERVED, ""),
    # KEP-3136: a default API server serves no beta version of resource.k8s.io.
    (
        "v1beta1",
        "ResourceClaim",
        "1.34",
        Availability.NOT_ENABLED,
        "is not served by a default Kubernetes v1.34 API server (beta API versions are off unless enabled, "
        "KEP-3136); use resource.k8s.io/v1, or --runtime-config resource.k8s.io/v1beta1=true if your cluster "
        "enables it",
    ),
    (
        "v1beta2",
        "DeviceClass",
        "1.37",
        Availability.NOT_ENABLED,
        "deprecated in v1.36+, unavailable in v1.39+); use resource.k8s.io/v1",
    ),
    ("v1beta2", "DeviceTaintRule", "1.37", Availability.NOT_ENABLED, "KEP-3136); use resource.k8s.io/v1,"),
    ("v1beta2", "DeviceTaintRule", "1.35", Availability.NOT_SERVED, "(introduced in v1.36)"),
    # At 1.36 no DeviceTaintRule version is on by default: never suggest the beta as if it were.
    ("v1", "DeviceTaintRule", "1.36", Availability.NOT_SERVED, "(introduced in v1.37)"),
    (
        "v1beta2",
        "DeviceTaintRule",
        "1.36",
        Availability.NOT_ENABLED,
        "Kubernetes v1.36 serves no version of DeviceTaintRule by default (resource.k8s.io/v1 arrives in "
        "v1.37): use it only on a cluster started with --runtime-config resource.k8s.io/v1beta2=true",
    ),
    ("v1alpha3", "ResourceClaim", "1.34", Availability.NOT_SERVED, "(removed in v1.34)"),
    (
        "v1alpha2",
        "ResourceClaim",
        "1.37",
        Availability.NOT_SERVED,
        "(removed in v1.31); use resource.k8s.io/v1",
    ),
    ("v1alpha1", "ResourceClass", "1.37", Availability.NOT_SERVED, "(removed in v1.27)"),
    (
        "v1alpha3",
        "DeviceTaintRule",
        "1.34",
        Availability.ALPHA,
        "use it only on a cluster started with --runtime-config resource.k8s.io/v1alpha3=true",
    ),
    (
        "v1alpha3",
        "DeviceTaintRule",
        "1.37",
        Availability.ALPHA,
        "deprecated in v1.36+, unavailable in v1.39+",
    ),
    (
        "v1",
        "ResourceClass",
        "1.37",
        Availability.UNKNOWN_KIND,
        'no matches for kind "ResourceClass" in version "resource.k8s.io/v1"',
    ),
]


@pytest.mark.parametrize(
    "version, kind, release, availability, text", CASES, ids=[f"{c[1]}-{c[0]}-{c[2]}" for c in CASES]
)
def test_lifecycle(version: str, kind: str, release: str, availability: Availability, text: str) -> None:
    verdict = check(version, kind, release)
    assert verdict.availability is availability
    assert text in verdict.message


RUNTIME_CASES = [
    # (runtime-config, version, kind, release, availability)
    ("resource.k8s.io/v1beta2=true", "v1beta2", "DeviceClass", "1.37", Availability.DEPRECATED),
    ("resource.k8s.io/v1beta2", "v1beta2", "DeviceClass", "1.37", Availability.DEPRECATED),  # no value: true
    ("resource.k8s.io/v1beta2=true", "v1beta1", "DeviceClass", "1.37", Availability.NOT_ENABLED),
    ("resource.k8s.io/v1beta2=true", "v1beta2", "DeviceTaintRule", "1.37", Availability.SERVED),
    ("resource.k8s.io/v1beta2=true", "v1beta2", "DeviceTaintRule", "1.36", Availability.SERVED),
    ("api/beta=true", "v1beta1", "ResourceClaim", "1.34", Availability.SERVED),
    ("api/all=true", "v1alpha3", "DeviceTaintRule", "1.36", Availability.DEPRECATED),
    ("api/alpha=true", "v1alpha3", "ResourcePoolStatusRequest", "1.36", Availability.SERVED),
    ("api/all=true,api/beta=false", "v1beta2", "ResourceSlice", "1.36", Availability.NOT_ENABLED),
    # The more specific key wins whatever the order (kube-apiserver's resource config merge).
    (
        "resource.k8s.io/v1beta2=true,api/beta=false",
        "v1beta2",
        "ResourceSlice",
        "1.36",
        Availability.DEPRECATED,
    ),
    ("api/all=false", "v1", "ResourceClaim", "1.37", Availability.NOT_ENABLED),
    ("resource.k8s.io/v1=false", "v1", "ResourceClaim", "1.37", Availability.NOT_ENABLED),
    (
        "resource.k8s.io/v1beta2/devicetaintrules=true",
        "v1beta2",
        "DeviceTaintRule",
        "1.36",
        Availability.SERVED,
    ),
    (
        "resource.k8s.io/v1beta2/devicetaintrules=true",
        "v1beta2",
        "DeviceClass",
        "1.36",
        Availability.NOT_ENABLED,
    ),
    ("apps/v1beta1=true,batch/v1=false", "v1beta1", "ResourceClaim", "1.34", Availability.NOT_ENABLED),
    # Nothing re-introduces a version the release does not have.
    ("api/all=true", "v1alpha2", "ResourceClaim", "1.37", Availability.NOT_SERVED),
]


@pytest.mark.parametrize(
    "spec, version, kind, release, availability",
    RUNTIME_CASES,
    ids=[f"{c[0]}-{c[2]}-{c[1]}-{c[3]}" for c in RUNTIME_CASES],
)
def test_runtime_config_decides_what_is_served(
    spec: str, version: str, kind: str, release: str, availability: Availability
) -> None:
    assert check(version, kind, release, RuntimeConfig.parse(spec)).availability is availability


def test_disabled_ga_version_names_the_flag() -> None:
    verdict = check("v1", "ResourceClaim", "1.37", RuntimeConfig.parse("resource.k8s.io/v1=false"))
    assert "disabled by --runtime-config" in verdict.message


@pytest.mark.parametrize(
    "spec, message",
    [
        ("resource.k8s.io/v1beta2=yes", "the value must be true or false"),
        ("api/everything=true", "the api/ keys are"),
        ("resource.k8s.io/v9=true", "has no API version 'v9'"),
        ("/v1=true", "invalid runtime-config key"),
        ("a/b/c/d=true", "invalid runtime-config key"),
    ],
)
def test_bad_runtime_config_is_a_value_error(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RuntimeConfig.parse(spec)


def test_served_versions_from_discovery_are_authoritative() -> None:
    served = RuntimeConfig.from_served(["resource.k8s.io/v1", "resource.k8s.io/v1beta2"])
    assert check("v1beta2", "ResourceClaim", "1.37", served).availability is Availability.DEPRECATED
    verdict = check("v1beta1", "ResourceClaim", "1.37", served)
    assert verdict.availability is Availability.NOT_ENABLED
    assert verdict.message.endswith("is not served by the cluster; use resource.k8s.io/v1")
    assert served.to_dict() == {"served": ["resource.k8s.io/v1", "resource.k8s.io/v1beta2"]}


def test_served_versions_are_ordered_most_stable_first() -> None:
    assert served_versions("ResourceClaim", "1.37") == ["v1", "v1beta2", "v1beta1"]
    assert served_versions("DeviceTaintRule", "1.37") == ["v1", "v1beta2", "v1alpha3"]
    assert served_versions("ResourcePoolStatusRequest", "1.35") == []


def test_enabled_versions_follow_the_runtime_config() -> None:
    assert enabled_versions("ResourceClaim", "1.37") == ["v1"]
    assert enabled_versions("ResourceClaim", "1.37", BETAS_ON) == ["v1", "v1beta2", "v1beta1"]
    assert enabled_versions("DeviceTaintRule", "1.36") == []


def test_minor_of() -> None:
    assert minor_of("1.37") == 37
    with pytest.raises(ValueError):
        minor_of("2.0")
