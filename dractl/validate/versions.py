"""Which ``resource.k8s.io`` API versions each Kubernetes release serves, per kind.

The facts are API-RULES.md §13 (the ``zz_generated.prerelease-lifecycle`` data, corrected
by what each release's OpenAPI really contains).  To add a release or version, add a
:class:`Lifecycle` row; the generated schemas (``schemas/v1.3X/``) must agree, and a test
checks that they do.

A release *having* a version is not the same as a cluster *serving* it: since KEP-3136
(Kubernetes 1.24) beta APIs are off by default like alpha ones, so a default 1.34–1.37
API server serves only ``resource.k8s.io/v1`` of DRA; every beta and alpha version is
served only when kube-apiserver was started with ``--runtime-config`` enabling it.
:class:`RuntimeConfig` reads that flag in kube-apiserver's own syntax (or the served
versions a snapshot header or live discovery recorded) and :func:`check` answers for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from dractl.errors import quoted

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
    for kind in (
        "ResourceClass",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "PodSchedulingContext",
        "ResourceClaimParameters",
        "ResourceClassParameters",
        "ResourceSlice",
    ):
        rows.append(Lifecycle("v1alpha2", kind, 27, None, 31))
    # Structured parameters.  v1alpha3 of the four core kinds is already absent from 1.34's OpenAPI.
    rows.append(Lifecycle("v1alpha3", "PodSchedulingContext", 31, None, 32))
    rows += [Lifecycle("v1alpha3", k, 31, None, 34) for k in _CORE4]
    rows += [Lifecycle("v1beta1", k, 32, 35, 38) for k in _CORE4]
    rows += [Lifecycle("v1beta2", k, 33, 36, 39) for k in _CORE4]
    rows += [Lifecycle("v1", k, 34) for k in _CORE4]
    rows += [
        Lifecycle("v1alpha3", "DeviceTaintRule", 33, 36, 39),
        Lifecycle("v1beta2", "DeviceTaintRule", 36, 39, 42),
        Lifecycle("v1", "DeviceTaintRule", 37),
        Lifecycle("v1alpha3", "ResourcePoolStatusRequest", 36, 39, 42),
    ]
    return tuple(rows)


LIFECYCLE: tuple[Lifecycle, ...] = _rows()
_BY_KEY = {(r.version, r.kind): r for r in LIFECYCLE}


class Availability(Enum):
    SERVED = "served"
    DEPRECATED = "deprecated"  # served, with the server's deprecation warning
    ALPHA = "alpha"  # exists, but only served when enabled (--runtime-config)
    NOT_ENABLED = "not-enabled"  # a beta the release has but does not serve by default (KEP-3136)
    NOT_SERVED = "not-served"  # removed already, or not yet introduced
    UNKNOWN_KIND = "unknown-kind"  # the group never had this kind in this version


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
    """API versions of ``kind`` that the release has (served when enabled), newest (v1) first,
    alpha last."""
    minor = minor_of(kube_version)
    found = [r.version for r in LIFECYCLE if r.kind == kind and r.served(minor)]
    return sorted(found, key=_stability_order)


def enabled_versions(kind: str, kube_version: str, runtime: RuntimeConfig | None = None) -> list[str]:
    """The subset of :func:`served_versions` that a cluster configured with ``runtime`` (default:
    kube-apiserver's defaults) really serves."""
    runtime = runtime or DEFAULT_RUNTIME
    return [v for v in served_versions(kind, kube_version) if runtime.enabled(v, kind)]


def stability(version: str) -> str:
    """``"ga"``, ``"beta"`` or ``"alpha"`` of an API version string."""
    return "alpha" if "alpha" in version else "beta" if "beta" in version else "ga"


def _stability_order(version: str) -> tuple[int, int]:
    """v1 before v1beta2 before v1beta1 before v1alpha3 (newest, most stable first)."""
    for rank, word in ((1, "beta"), (2, "alpha")):
        if word in version:
            return (rank, -int(version.rsplit(word, 1)[1] or 0))
    return (0, -int(version.lstrip("v") or 0))


_RESOURCES = {
    k: k.lower() + "s"
    for k in (
        *DRA_KINDS,
        "ResourceClass",
        "PodScheduling",
        "PodSchedulingContext",
        "ResourceClaimParameters",
        "ResourceClassParameters",
    )
}
_STABILITY_KEYS = {"api/ga": "ga", "api/beta": "beta", "api/alpha": "alpha"}


@dataclass(frozen=True, slots=True)
class RuntimeConfig:
    """Which ``resource.k8s.io`` versions a cluster serves, as kube-apiserver's ``--runtime-config``
    decides it.  ``entries`` are ``(key, enabled)`` pairs in the flag's order; keys are ``api/all``,
    ``api/ga``, ``api/beta``, ``api/alpha``, ``<group>/<version>`` or ``<group>/<version>/<resource>``.
    As in kube-apiserver, the more specific key wins whatever the order (resource over group/version
    over api/<stability> over api/all), and among equal keys the last one; with no entry that applies,
    the default holds: GA versions on, beta and alpha off (KEP-3136).  Entries for other groups are
    kept (the flag is cluster-wide) but decide nothing here.  ``served`` (from a snapshot header or
    live discovery) is authoritative when set: exactly those group/versions are served."""

    entries: tuple[tuple[str, bool], ...] = ()
    served: frozenset[str] | None = None

    @classmethod
    def parse(cls, spec: str | Iterable[str], base: RuntimeConfig | None = None) -> RuntimeConfig:
        """Parse ``--runtime-config`` text (``a=true,b=false,c``; a key without a value means true)
        or several such texts; later entries are added after ``base``'s.  ValueError on bad syntax,
        naming the entry."""
        texts = [spec] if isinstance(spec, str) else list(spec)
        entries: list[tuple[str, bool]] = list(base.entries) if base else []
        for text in texts:
            for item in filter(None, (p.strip() for p in text.split(","))):
                key, sep, value = item.partition("=")
                key, value = key.strip(), value.strip().lower()
                if not sep:
                    value = "true"
                if value not in ("true", "false"):
                    raise ValueError(
                        f"invalid runtime-config entry {item!r}: the value must be true or false"
                    )
                if (
                    not key
                    or key.startswith("/")
                    or key.endswith("/")
                    or key.count("/") > 2
                    or any(c.isspace() for c in key)
                ):
                    raise ValueError(
                        f"invalid runtime-config key {key!r}: expected api/all, api/ga, "
                        "api/beta, api/alpha, GROUP/VERSION or GROUP/VERSION/RESOURCE"
                    )
                if key.startswith("api/") and key not in ("api/all", "api/legacy", *_STABILITY_KEYS):
                    raise ValueError(
                        f"invalid runtime-config key {key!r}: the api/ keys are api/all, "
                        "api/ga, api/beta and api/alpha"
                    )
                group, _, version = key.partition("/")
                if group == GROUP and version.split("/")[0] and not _known_version(version.split("/")[0]):
                    raise ValueError(
                        f"runtime-config {key!r}: {GROUP} has no API version {version.split('/')[0]!r}"
                    )
                entries.append((key, value == "true"))
        return cls(tuple(entries), base.served if base else None)

    @classmethod
    def from_served(cls, group_versions: Iterable[str]) -> RuntimeConfig:
        """The configuration of a cluster known (from discovery) to serve exactly these group/versions."""
        return cls((), frozenset(gv.strip() for gv in group_versions if gv.strip()))

    def enabled(self, version: str, kind: str) -> bool:
        """Does the cluster serve ``resource.k8s.io/<version>`` ``kind`` (given the release has it)?"""
        if self.served is not None:
            return f"{GROUP}/{version}" in self.served
        rank_value: tuple[int, bool] | None = None
        resource = _RESOURCES.get(kind, kind.lower() + "s")
        for key, value in self.entries:
            rank = self._rank(key, version, resource)
            if rank is not None and (rank_value is None or rank >= rank_value[0]):
                rank_value = (rank, value)
        if rank_value is not None:
            return rank_value[1]
        return stability(version) == "ga"

    @staticmethod
    def _rank(key: str, version: str, resource: str) -> int | None:
        if key == "api/all":
            return 0
        if key in _STABILITY_KEYS:
            return 1 if _STABILITY_KEYS[key] == stability(version) else None
        if key == f"{GROUP}/{version}":
            return 2
        if key == f"{GROUP}/{version}/{resource}":
            return 3
        return None

    def describe(self) -> str:
        """The flag text (``resource.k8s.io/v1beta2=true``), "" for the defaults."""
        if self.served is not None:
            return "served: " + ",".join(sorted(self.served))
        return ",".join(f"{k}={'true' if v else 'false'}" for k, v in self.entries)

    def to_dict(self) -> dict[str, object]:
        if self.served is not None:
            return {"served": sorted(self.served)}
        return {"runtimeConfig": self.describe()}


DEFAULT_RUNTIME = RuntimeConfig()


def _known_version(version: str) -> bool:
    return any(r.version == version for r in LIFECYCLE)


def check(version: str, kind: str, kube_version: str, runtime: RuntimeConfig | None = None) -> Verdict:
    """Availability of ``resource.k8s.io/<version>`` ``kind`` in the given release on a cluster
    configured with ``runtime`` (default: kube-apiserver's defaults), with the message a user
    should see (the server's wording for deprecations; the release and the fix otherwise)."""
    runtime = runtime or DEFAULT_RUNTIME
    minor = minor_of(kube_version)
    gv = f"{GROUP}/{version}"
    row = _BY_KEY.get((version, kind))
    if row is None:
        return Verdict(
            Availability.UNKNOWN_KIND,
            f"no matches for kind {quoted(kind)} in version {quoted(gv)}"
            + _suggest(kind, kube_version, runtime),
        )
    if not row.served(minor):
        when = (
            f"removed in v1.{row.removed}"
            if row.removed is not None and minor >= row.removed
            else f"introduced in v1.{row.introduced}"
        )
        return Verdict(
            Availability.NOT_SERVED,
            f"no matches for kind {quoted(kind)} in version {quoted(gv)}: "
            f"Kubernetes v{kube_version} does not serve it ({when})" + _suggest(kind, kube_version, runtime),
            row,
        )
    deprecated = row.deprecated is not None and minor >= row.deprecated
    notice = f"{gv} {kind} is deprecated in v1.{row.deprecated}+, unavailable in v1.{row.removed}+"
    if not runtime.enabled(version, kind):
        return _not_enabled(row, kind, kube_version, runtime, deprecated)
    if deprecated:
        return Verdict(Availability.DEPRECATED, notice, row)
    return Verdict(Availability.SERVED, "", row)


def _not_enabled(
    row: Lifecycle, kind: str, kube_version: str, runtime: RuntimeConfig, deprecated: bool
) -> Verdict:
    gv = f"{GROUP}/{row.version}"
    level = stability(row.version)
    life = f"; deprecated in v1.{row.deprecated}+, unavailable in v1.{row.removed}+" if deprecated else ""
    if runtime.served is not None:
        why = "is not served by the cluster"
    elif level == "ga":
        why = "is disabled by --runtime-config"
    else:
        why = (
            f"is not served by a default Kubernetes v{kube_version} API server ({level} API versions are "
            f"off unless enabled{', KEP-3136' if level == 'beta' else ''}{life})"
        )
    enable = f"--runtime-config {gv}=true"
    fix = _suggest(kind, kube_version, runtime, hint_off=False)
    if fix and runtime.served is None:
        fix += f", or {enable} if your cluster enables it"
    elif not fix and level != "ga" and runtime.served is None:
        ga = next(
            (
                r.introduced
                for r in sorted(LIFECYCLE, key=lambda r: r.introduced)
                if r.kind == kind and stability(r.version) == "ga"
            ),
            None,
        )
        later = ga is not None and ga > minor_of(kube_version)
        arrives = f" ({GROUP}/v1 arrives in v1.{ga})" if later else ""
        fix = (
            f"; Kubernetes v{kube_version} serves no version of {kind} by default{arrives}: "
            f"use it only on a cluster started with {enable}"
        )
    availability = Availability.ALPHA if level == "alpha" else Availability.NOT_ENABLED
    return Verdict(availability, f"{gv} {kind} {why}{fix}", row)


def _suggest(
    kind: str, kube_version: str, runtime: RuntimeConfig | None = None, *, hint_off: bool = True
) -> str:
    """``; use resource.k8s.io/<v>`` naming the most stable version the cluster serves of ``kind``
    (never an alpha; never a version only served when enabled, unless ``runtime`` enables it); with
    ``hint_off``, when none is served, which version the cluster would have to enable."""
    versions = [v for v in enabled_versions(kind, kube_version, runtime) if stability(v) != "alpha"]
    if versions:
        return f"; use {GROUP}/{versions[0]}"
    on = enabled_versions(kind, kube_version, runtime)
    off = [v for v in served_versions(kind, kube_version) if v not in on]
    if off and hint_off:
        return (
            f"; no version of {kind} is served by default in v{kube_version}: a cluster started with "
            f"--runtime-config {GROUP}/{off[0]}=true serves {GROUP}/{off[0]}"
        )
    return ""
