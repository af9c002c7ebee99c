"""Shared command-line options, as ``Annotated`` aliases every command reuses.

Flag names follow kubectl where the meaning overlaps (``-o``).  ``output_option(report_type)``
builds the ``-o/--output`` option of a report command from the formats its report type
supports (the render registry), so help, completion and the error for a wrong format agree.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Any

import typer

from dractl.errors import UsageError
from dractl.model.features import DEFAULT_KUBE_VERSION, SUPPORTED_KUBE_VERSIONS, Features
from dractl.render import Format, format_enum

KubeVersion = Enum("KubeVersion", {f"V{v.replace('.', '_')}": v for v in SUPPORTED_KUBE_VERSIONS},  # type: ignore[misc]
                   type=str)
DEFAULT_KUBE = KubeVersion(DEFAULT_KUBE_VERSION)
DEFAULT_MAX_INPUT_SIZE = "512Mi"

OutputOpt = Annotated[Format, typer.Option("-o", "--output", help="Output format.", case_sensitive=False)]
KubeVersionOpt = Annotated[KubeVersion, typer.Option(
    "--kube-version", help="Kubernetes release whose API and rules apply.")]
SnapshotKubeVersionOpt = Annotated[KubeVersion | None, typer.Option(
    "--kube-version", show_default=False,
    help="Kubernetes release whose API and rules apply [default: a snapshot's server version, else 1.37].")]
FeatureGatesOpt = Annotated[str | None, typer.Option(
    "--feature-gates", metavar="NAME=BOOL,...",
    help="DRA feature gates to override (Kubernetes gate names), e.g. DRAListTypeAttributes=true.")]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")]
LenientOpt = Annotated[bool, typer.Option(
    "--lenient", help="Report unknown and duplicate fields as warnings (the server's fieldValidation=Warn).")]
StatusOpt = Annotated[bool, typer.Option(
    "--status", help="Also check status (as a status update would be; on create the server discards it).")]
MaxInputSizeOpt = Annotated[str, typer.Option(
    "--max-input-size", metavar="SIZE", help="Refuse inputs larger than this (bytes, or e.g. 64Mi, 1G).")]
PathsArg = Annotated[list[str] | None, typer.Argument(
    metavar="PATH", help="Files or directories of YAML/JSON manifests; '-' reads stdin.", show_default=False)]


def output_option(report_type: str, default: Format = Format.TABLE) -> tuple[type[Enum], Any, Any]:
    """``(enum, Annotated alias, default member)`` of ``-o/--output`` for ``report_type``."""
    enum = format_enum(report_type)
    names = ", ".join(m.value for m in enum)
    alias = Annotated[enum, typer.Option(  # type: ignore[valid-type]
        "-o", "--output", help=f"Output format: {names}.", case_sensitive=False)]
    return enum, alias, enum(default.value)


_SIZE = re.compile(r"^\s*(\d+)\s*([kKMGT]i?|[kKMGT]i?B|B)?\s*$")
_UNITS = {"": 1, "B": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
          "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def parse_size(text: str, command: str | None = None) -> int:
    """``"512Mi"`` → 536870912; ``"1G"``/``"1GB"`` are decimal, ``"1Gi"``/``"1GiB"`` binary.
    Raises UsageError for anything else or a size of 0."""
    match = _SIZE.match(text)
    if not match:
        raise UsageError(f"--max-input-size: invalid size {text!r} (e.g. 1048576, 64Mi, 1G)", command)
    unit = (match.group(2) or "").removesuffix("B") if match.group(2) != "B" else "B"
    value = int(match.group(1)) * _UNITS[unit]
    if value <= 0:
        raise UsageError("--max-input-size must be greater than zero", command)
    return value


def kube_version_for(flag: Enum | str | None, snapshot_header: dict[str, Any] | None) -> str:
    """``--kube-version`` when given, else a snapshot header's supported server version
    (``v1.36.2`` → ``1.36``), else the default (1.37)."""
    if flag is not None:
        return str(flag.value if isinstance(flag, Enum) else flag)
    server = str((snapshot_header or {}).get("serverVersion") or "")
    minor = ".".join(server.lstrip("v").split(".")[:2])
    return minor if minor in SUPPORTED_KUBE_VERSIONS else DEFAULT_KUBE_VERSION


def features_for(kube_version: str, spec: str | None,
                 command: str | None = None) -> tuple[Features, list[str]]:
    """The effective gates of a release with ``--feature-gates`` applied, plus the gate names
    set against what that release locks (the caller warns).  Raises UsageError."""
    base = Features.for_version(kube_version)
    if not spec:
        return base, []
    try:
        features = Features.parse(spec, base)
    except ValueError as e:
        raise UsageError(f"--feature-gates: {e}", command) from None
    return features, features.locked_overrides(kube_version)
