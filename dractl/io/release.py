"""Which Kubernetes release and feature gates a command applies: one resolver for every command.

Precedence (ARCHITECTURE.md "Versions and features"):

* version: ``--kube-version`` when given; else the snapshot header's (or a live cluster's)
  server version when dractl supports it (else a warning and the default); else 1.37;
* gates: that release's defaults, then the gates the header recorded, then ``--feature-gates``
  (gates a real cluster locks are applied too, with a warning: that is how "what if this
  were off" is asked).

``--kube-version`` accepts what people write and what ``kubectl version`` prints: ``1.35``,
``v1.35``, ``1.35.2``, ``v1.35.2``.  A patch release is treated as its minor except where a
documented fix changed behaviour (:data:`dractl.model.features.PATCH_FIXES`); :attr:`Release.patch`
keeps it (from the flag, else from the snapshot header's or live cluster's server version).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from dractl.errors import UsageError
from dractl.io.snapshot_header import SnapshotHeader
from dractl.model.features import DEFAULT_KUBE_VERSION, SUPPORTED_KUBE_VERSIONS, Features

KUBE_VERSION_FLAG = "--kube-version"
FEATURE_GATES_FLAG = "--feature-gates"
_VERSION = re.compile(r"^[vV]?(\d+)\.(\d+)(?:\.(\d+))?$")


def _no_warn(message: str) -> None:
    """The default ``warn`` callback drops warnings; commands pass ``CliEnv.warn``."""


@dataclass(frozen=True, slots=True)
class KubeVersion:
    """A parsed ``--kube-version``: ``minor`` is ``"1.35"``; ``patch`` None when not given."""

    minor: str
    patch: int | None = None

    def __str__(self) -> str:
        return self.minor if self.patch is None else f"{self.minor}.{self.patch}"


def parse_kube_version(text: str, command: str | None = None) -> KubeVersion:
    """``"v1.35.2"`` → ``KubeVersion("1.35", 2)``.  Raises UsageError, worded as kubectl words a
    bad flag value, for anything else and for releases dractl has no rules for."""
    match = _VERSION.match(text.strip())
    supported = ", ".join(SUPPORTED_KUBE_VERSIONS)
    if match is None:
        raise UsageError(
            f'invalid argument "{text}" for "{KUBE_VERSION_FLAG}" flag: expected a '
            f"Kubernetes release such as 1.35, v1.35, 1.35.2 or v1.35.2",
            command,
        )
    major, minor, patch = match.groups()
    version = f"{int(major)}.{int(minor)}"
    if version not in SUPPORTED_KUBE_VERSIONS:
        raise UsageError(
            f'invalid argument "{text}" for "{KUBE_VERSION_FLAG}" flag: unsupported '
            f"Kubernetes release {version}; one of: {supported}",
            command,
        )
    return KubeVersion(version, None if patch is None else int(patch))


@dataclass(frozen=True, slots=True)
class Release:
    """The release and gates a command applies.  ``overrides`` are the ``--feature-gates``
    items as given (for reports that say what was overridden); ``patch`` as in
    :class:`KubeVersion`; ``source`` says where the version came from (flag, snapshot, default)."""

    kube_version: str
    features: Features
    overrides: tuple[str, ...] = ()
    patch: int | None = None
    source: str = "default"


def resolve_release(
    kube_version: str | KubeVersion | None = None,
    feature_gates: str | None = None,
    header: SnapshotHeader | None = None,
    *,
    command: str | None = None,
    warn: Callable[[str], None] = _no_warn,
) -> Release:
    """The release and gates from ``--kube-version``, ``--feature-gates`` and a snapshot
    header (or a live cluster's, built as a :class:`SnapshotHeader`); None means "not given".
    Raises UsageError for a bad flag; warns (``warn``) about a header version dractl does not
    support, header gates it does not know, and overrides of gates the release locks."""
    version, patch, source = _version(kube_version, header, command, warn)
    features = Features.for_version(version).at_patch(version, patch)
    if header is not None and header.feature_gates:
        features = _header_gates(features, header, warn)
    overrides: tuple[str, ...] = ()
    if feature_gates:
        try:
            features = Features.parse(feature_gates, features)
        except ValueError as e:
            raise UsageError(f"{FEATURE_GATES_FLAG}: {e}", command) from None
        overrides = tuple(p.strip() for p in feature_gates.split(",") if p.strip())
        for gate in features.locked_overrides(version):
            warn(
                f"feature gate {gate} is locked in Kubernetes {version}; a real cluster ignores the override"
            )
    return Release(version, features, overrides, patch, source)


def _version(
    flag: str | KubeVersion | None,
    header: SnapshotHeader | None,
    command: str | None,
    warn: Callable[[str], None],
) -> tuple[str, int | None, str]:
    if flag is not None:
        parsed = flag if isinstance(flag, KubeVersion) else parse_kube_version(flag, command)
        return parsed.minor, parsed.patch, "flag"
    minor = header.minor if header is not None else None
    if minor is None:
        return DEFAULT_KUBE_VERSION, None, "default"
    if minor not in SUPPORTED_KUBE_VERSIONS:
        warn(
            f"the snapshot is from Kubernetes {header.server_version if header else minor}, which "
            f"dractl has no rules for; using {DEFAULT_KUBE_VERSION} (set {KUBE_VERSION_FLAG})"
        )
        return DEFAULT_KUBE_VERSION, None, "default"
    return minor, header.patch if header is not None else None, "snapshot"


def _header_gates(base: Features, header: SnapshotHeader, warn: Callable[[str], None]) -> Features:
    """Apply the recorded gates dractl knows; a cluster also records gates that are not DRA's."""
    known: dict[str, bool] = {}
    for name, value in header.feature_gates.items():
        try:
            Features.from_mapping({name: value})
        except ValueError:
            continue  # not a DRA gate (clusters record all their gates): nothing to apply
        known[name] = value
    return Features.from_mapping(known, base)
