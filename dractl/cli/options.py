"""Shared command-line options, as ``Annotated`` aliases every command reuses.

Flag names follow kubectl where the meaning overlaps (``-o``).  ``output_option(report_type)``
builds the ``-o/--output`` option of a report command from the formats its report type
supports (the render registry), so help, completion and the error for a wrong format agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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


RuntimeConfigOpt = Annotated[list[str] | None, typer.Option(
    "--runtime-config", metavar="KEY=BOOL,...",
    help="API versions the cluster serves, in kube-apiserver's --runtime-config syntax "
         "(e.g. resource.k8s.io/v1beta2=true, api/beta=true) [default: a snapshot's served versions, else "
         "kube-apiserver's defaults: resource.k8s.io/v1 only].")]
SkipOpt = Annotated[list[str] | None, typer.Option(
    "--skip", metavar="RULE[,RULE]", help="Do not report these rules (wildcards allowed, e.g. 'LINT-*'); "
    "suppressed findings are still counted.")]
OnlyOpt = Annotated[list[str] | None, typer.Option(
    "--only", metavar="RULE[,RULE]", help="Report only these rules (wildcards allowed).")]
ConfigOpt = Annotated[str | None, typer.Option(
    "--config", metavar="FILE",
    help="Config file [default: .dractl.yaml in the working directory or a parent].")]
ClassesFromOpt = Annotated[list[str] | None, typer.Option(
    "--classes-from", metavar="FILE|DIR|SNAPSHOT",
    help="DeviceClasses installed elsewhere (a chart, the cluster): context for ADV-CLASS-EXISTS.")]


@dataclass(frozen=True)
class CiFlags:
    """The CI flags every validation command shares (issue 14): what the cluster serves, which rules
    are silenced, the config file, where installed DeviceClasses come from."""

    runtime_config: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    config: str | None = None
    classes_from: tuple[str, ...] = ()

    @classmethod
    def of(cls, runtime_config: list[str] | None, skip: list[str] | None, only: list[str] | None,
           config: str | None, classes_from: list[str] | None = None) -> CiFlags:
        return cls(tuple(runtime_config or ()), tuple(skip or ()), tuple(only or ()), config,
                   tuple(classes_from or ()))


@dataclass(frozen=True)
class CiRun:
    """What :func:`ci_setup` resolved: the config, the suppression policy, the served versions,
    the DeviceClasses given as context and the inputs among them that could not be read."""

    config: Any
    policy: Any
    runtime: Any
    classes: list[Any]
    class_errors: list[Any]


def ci_setup(ci: CiFlags, header: dict[str, Any] | None, limit: int, command: str) -> CiRun:
    """Load the config file, check --skip/--only, resolve --runtime-config (flag, config, snapshot
    header's servedVersions, default) and read --classes-from.  UsageError / InputError."""
    from dractl.validate import config as configs
    from dractl.validate.catalog import all_rules, suggest
    from dractl.validate.suppress import SUPPRESS_RULES, split_rules, unknown_patterns

    cfg = configs.load(ci.config)
    known = [*all_rules(), *SUPPRESS_RULES]
    for flag, values in (("--skip", ci.skip), ("--only", ci.only)):
        bad = unknown_patterns(split_rules(values), known)
        if bad:
            hint = suggest(bad[0])
            near = f"; did you mean {', '.join(hint)}?" if hint else ""
            raise UsageError(f"{flag}: unknown rule {bad[0]}{near}", command)
    served = (header or {}).get("servedVersions")
    try:
        runtime = configs.runtime_for(ci.runtime_config, cfg, served if isinstance(served, list) else None)
    except ValueError as e:
        raise UsageError(f"--runtime-config: {e}", command) from None
    classes, errors = configs.class_docs([*ci.classes_from, *cfg.classes_from], limit)
    return CiRun(cfg, cfg.policy.with_flags(ci.skip, ci.only), runtime, classes, errors)


def ci_finish(report: Any, docs: Any, run: CiRun) -> Any:
    """The report with the suppressions applied (counted, never dropped), and a one-line meaning for
    every rule it uses (SARIF's shortDescription must not be the bare id)."""
    from dataclasses import replace

    from dractl.validate.catalog import all_rules, explain
    from dractl.validate.suppress import SUPPRESS_RULES, apply

    report = apply(report, docs, run.policy, [*all_rules(), *SUPPRESS_RULES])
    used = {f.rule for f in report.findings} | {f.rule for f, _ in report.suppressed}
    missing = {r: (explain(r) or "").split("What: ", 1)[-1].split("\n", 1)[0].strip() for r in used
               if not report.rules.get(r)}
    missing.update({r: SUPPRESS_RULES[r] for r in missing if r in SUPPRESS_RULES})
    missing = {r: d for r, d in missing.items() if d and d != r}
    return replace(report, rules={**report.rules, **missing}) if missing else report


def config_version(flag: str | None, run: CiRun, command: str) -> tuple[str | None, int | None]:
    """``--kube-version`` when given, else the config file's ``kubeVersion`` (1.36, v1.36, 1.36.2):
    (minor or None, patch or None).  UsageError for a config version dractl does not support."""
    from dractl.model.features import parse_kube_version

    text = flag if flag is not None else run.config.kube_version
    if text is None:
        return None, None
    try:
        minor, patch = parse_kube_version(str(getattr(text, "value", text)))
    except ValueError as e:
        raise UsageError(f"--kube-version: {e}", command) from None
    if minor not in SUPPORTED_KUBE_VERSIONS:
        raise UsageError(f"--kube-version: unsupported version {minor!r}; one of: "
                         f"{', '.join(SUPPORTED_KUBE_VERSIONS)}", command)
    return minor, patch


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
