"""Which ``resource.k8s.io`` API versions each Kubernetes release serves, per kind.

The facts are API-RULES.md §13 (the ``zz_generated.prerelease-lifecycle`` data, corrected
by what each release's OpenAPI really contains).  To add a release or version, add a
:class:`Lifecycle` row; the generated schemas (``schemas/v1.3X/``) must agree, and a test
checks that they do.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

GROUP = "resource.k8s.io"

_CORE4 = ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass")
# The kinds dractl validates (everything in the group that a supported release serves).
DRA_KINDS = (*_CORE4, "DeviceTaintRule", "ResourcePoolStatusRequest")


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """One (API version, kind): the minor that introduced it, deprecated it and removed it
    (``None`` = never).  Minors are plain ints (``34`` = Kubernetes 1.34)."""

    version: str
    kind: str
    introduced: int
    deprecated: int | None = None
    removed: int | None = None

    def served(self, minor: int) -> bool:
        return self.introduced <= minor and (self.removed is None or minor < self.removed)


def _rows() -> tuple[Lifecycle, ...]:
    rows: list[Lifecycle] = []
    # Classic DRA (removed long ago; listed so the error can say when).
    for kind in ("ResourceClass", "ResourceClaim", "ResourceClaimTemplate", "PodScheduling"):
        rows.append(Lifecycle("v1alpha1", kind, 26, None, 27))
    for kind in ("ResourceClass", "ResourceClaim", "ResourceClaimTemplate", "PodSchedulingContext",
                 "ResourceClaimParameters", "ResourceClassParameters", "ResourceSlice"):
        rows.append(Lifecycle("v1alpha2", kind, 27, None, 31))
    # Structured parameters.  v1alpha3 of the four core kinds is already absent from 1.34's OpenAPI.
    rows.append(Lifecycle("v1alpha3", "PodSchedulingContext", 31, None, 32))
    rows += [Lifecycle("v1alpha3", k, 31, None, 34) for k in _CORE4]
    rows += [Lifecycle("v1beta1", k, 32, 35, 38) for k in _CORE4]
    rows += [Lifecycle("v1beta2", k, 33, 36, 39) for k in _CORE4]
    rows += [Lifecycle("v1", k, 34) for k in _CORE4]
    rows += [Lifecycle("v1alpha3", "DeviceTaintRule", 33, 36, 39),
             Lifecycle("v1beta2", "DeviceTaintRule", 36, 39, 42),
             Lifecycle("v1", "DeviceTaintRule", 37),
             Lifecycle("v1alpha3", "ResourcePoolStatusRequest", 36, 39, 42)]
    return tuple(rows)


LIFECYCLE: tuple[Lifecycle, ...] = _rows()
_BY_KEY = {(r.version, r.kind): r for r in LIFECYCLE}


class Availability(Enum):
    SERVED = "served"
    DEPRECATED = "deprecated"          # served, with the server's deprecation warning
    ALPHA = "alpha"                    # exists, but only served when enabled (--runtime-config)
    NOT_SERVED = "not-served"          # removed already, or not yet introduced
    UNKNOWN_KIND = "unknown-kind"      # the group never had this kind in this version


@dataclass(frozen=True, slots=True)
class Verdict:
    availability: Availability
    message: str
    lifecycle: Lifecycle | None = None


def minor_of(kube_version: str) -> int:
    """``"1.37"`` → 37; ValueError for anything else."""
    major, _, minor = kube_version.partition(".")
    if major != "1" or not minor.isdigit():
        raise ValueError(f"invalid Kubernetes version {kube_version!r}")
    return int(minor)


def served_versions(kind: str, kube_version: str) -> list[str]:
    """API versions of ``kind`` that the release serves, newest (v1) first, alpha last."""
    minor = minor_of(kube_version)
    found = [r.version for r in LIFECYCLE if r.kind == kind and r.served(minor)]
    return sorted(found, key=_stability_order)


def _stability_order(version: str) -> tuple[int, int]:
    """v1 before v1beta2 before v1beta1 before v1alpha3 (newest, most stable first)."""
    for rank, word in ((1, "beta"), (2, "alpha")):
        if word in version:
            return (rank, -int(version.rsplit(word, 1)[1] or 0))
    return (0, -int(version.lstrip("v") or 0))


def check(version: str, kind: str, kube_version: str) -> Verdict:
    """Availability of ``resource.k8s.io/<version>`` ``kind`` in the given release, with the
    message a user should see (the server's wording for deprecations)."""
    minor = minor_of(kube_version)
    gv = f"{GROUP}/{version}"
    row = _BY_KEY.get((version, kind))
    if row is None:
        return Verdict(Availability.UNKNOWN_KIND, f'no matches for kind "{kind}" in version "{gv}"'
                       + _suggest(kind, kube_version))
    if not row.served(minor):
        when = (f"removed in v1.{row.removed}" if row.removed is not None and minor >= row.removed
                else f"introduced in v1.{row.introduced}")
        return Verdict(Availability.NOT_SERVED, f'no matches for kind "{kind}" in version "{gv}": '
                       f"Kubernetes v{kube_version} does not serve it ({when})"
                       + _suggest(kind, kube_version),
                       row)
    deprecated = row.deprecated is not None and minor >= row.deprecated
    notice = f"{gv} {kind} is deprecated in v1.{row.deprecated}+, unavailable in v1.{row.removed}+"
    if "alpha" in version:
        return Verdict(Availability.ALPHA, f"{gv} {kind} is an alpha API version: Kubernetes v{kube_version} "
                       f"serves it only when enabled (--runtime-config={gv}=true)"
                       + (f"; deprecated in v1.{row.deprecated}+, unavailable in v1.{row.removed}+"
                          if deprecated else "") + _suggest(kind, kube_version), row)
    if deprecated:
        return Verdict(Availability.DEPRECATED, notice, row)
    return Verdict(Availability.SERVED, "", row)


def _suggest(kind: str, kube_version: str) -> str:
    versions = [v for v in served_versions(kind, kube_version) if "alpha" not in v]
    return f"; use {GROUP}/{versions[0]}" if versions else ""
