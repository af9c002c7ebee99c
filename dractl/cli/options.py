"""Shared command-line options: each flag is defined once, here, as an ``Annotated`` alias.

Flag names follow kubectl where the meaning overlaps (``-o``, ``--no-headers``).  A command
declares ``kube_version: KubeVersionOpt = None`` and hands the value to
:func:`dractl.io.release.resolve_release` (through ``CliEnv.release``): the option accepts
``1.35``, ``v1.35``, ``1.35.2`` and ``v1.35.2`` and rejects anything else with one
kubectl-style message.  ``output_option(report_type)`` builds the ``-o/--output`` option of
a report command from the formats its report type registers (the render registry), so help,
completion and the error for a wrong format come from one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

import typer
from typer import CallbackParam as Parameter
from typer import Context

from dractl.errors import UsageError
from dractl.render import Format, allowed_formats, format_enum

DEFAULT_MAX_INPUT_SIZE = "512Mi"


def command_name(ctx: Any) -> str:
    """``validate``, ``claim validate``: the command path without the program name."""
    path = str(getattr(ctx, "command_path", "") or "")
    return path.split(" ", 1)[1] if " " in path else path


KUBE_PATCH = "dractl.kube_patch"


def kube_version_callback(ctx: Context, param: Parameter, value: str | None) -> str | None:
    """Parse at the command line (the error names the flag and its value, as kubectl does, and
    comes before any other: the option is eager).  The command gets the minor (``v1.35.2`` →
    ``1.35``); the patch, when given, waits in ``ctx.meta[KUBE_PATCH]`` for ``CliEnv.release``."""
    if value is None:
        return None
    from dractl.io.release import parse_kube_version

    parsed = parse_kube_version(value, command_name(ctx))
    ctx.meta[KUBE_PATCH] = parsed.patch
    return parsed.minor


OutputOpt = Annotated[Format, typer.Option("-o", "--output", help="Output format.", case_sensitive=False)]
KubeVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--kube-version",
        metavar="1.34|…|1.37",
        callback=kube_version_callback,
        is_eager=True,
        show_default=False,
        help="Kubernetes release whose API and rules apply (1.35, v1.35 or 1.35.2) "
        "[default: a snapshot's server version, else 1.37].",
    ),
]
FeatureGatesOpt = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="DRA feature gates to override (Kubernetes gate names), e.g. DRAListTypeAttributes=true.",
    ),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")]
LenientOpt = Annotated[
    bool,
    typer.Option(
        "--lenient",
        help="Report unknown and duplicate fields as warnings (the server's fieldValidation=Warn).",
    ),
]
StatusOpt = Annotated[
    bool,
    typer.Option(
        "--status", help="Also check status (as a status update would be; on create the server discards it)."
    ),
]
MaxInputSizeOpt = Annotated[
    str,
    typer.Option(
        "--max-input-size", metavar="SIZE", help="Refuse inputs larger than this (bytes, or e.g. 64Mi, 1G)."
    ),
]
PathsArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATH",
        help="Files or directories of YAML/JSON manifests; '-' reads stdin.",
        show_default=False,
    ),
]
SnapshotOpt = Annotated[
    str | None,
    typer.Option(
        "--snapshot", metavar="FILE", help="Cluster context for the cross-object checks (a dractl snapshot)."
    ),
]
OldOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--old", metavar="FILE", help="Previous versions of the objects: apply the update rules (UPD-…)."
    ),
]
ExplainOpt = Annotated[
    str | None, typer.Option("--explain", metavar="RULE", help="Describe a rule id and exit.")
]
NoHeadersOpt = Annotated[
    bool, typer.Option("--no-headers", help="Tables: leave out the column headers (kubectl's --no-headers).")
]


RuntimeConfigOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--runtime-config",
        metavar="KEY=BOOL,...",
        help="API versions the cluster serves, in kube-apiserver's --runtime-config syntax "
        "(e.g. resource.k8s.io/v1beta2=true, api/beta=true) [default: the served versions of "
        "--snapshot or --cluster, else "
        "kube-apiserver's defaults: resource.k8s.io/v1 only].",
    ),
]
SkipOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--skip",
        metavar="RULE[,RULE]",
        help="Do not report these rules (wildcards allowed, e.g. 'LINT-*'); "
        "suppressed findings are still counted.",
    ),
]
OnlyOpt = Annotated[
    list[str] | None,
    typer.Option("--only", metavar="RULE[,RULE]", help="Report only these rules (wildcards allowed)."),
]
ConfigOpt = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Config file [default: .dractl.yaml in the working directory or a parent].",
    ),
]
ClassesFromOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--classes-from",
        metavar="FILE|DIR|SNAPSHOT",
        help="DeviceClasses installed elsewhere (a chart, the cluster): context for ADV-CLASS-EXISTS.",
    ),
]


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
    def of(
        cls,
        runtime_config: list[str] | None,
        skip: list[str] | None,
        only: list[str] | None,
        config: str | None,
        classes_from: list[str] | None = None,
    ) -> CiFlags:
        return cls(
            tuple(runtime_config or ()),
            tuple(skip or ()),
            tuple(only or ()),
            config,
            tuple(classes_from or ()),
        )


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
    from dractl.validate.catalog import rule_ids, suggest
    from dractl.validate.suppress import split_rules, unknown_patterns

    cfg = configs.load(ci.config)
    for flag, values in (("--skip", ci.skip), ("--only", ci.only)):
        patterns = split_rules(values)
        bad = unknown_patterns(patterns, rule_ids()) if patterns else []
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
    """The report with the suppressions applied (counted, never dropped).  Rule descriptions
    (SARIF's shortDescription) come from the rule registry through the report."""
    from dractl.validate.catalog import rule_ids
    from dractl.validate.suppress import apply

    return apply(report, docs, run.policy, rule_ids())  # the ids are read only if something applies


def output_option(report_type: str, default: Format = Format.TABLE) -> tuple[type[Enum], Any, Any]:
    """``(enum, Annotated alias, default)`` of ``-o/--output`` for ``report_type``.

    The option takes any text and checks it against the registry when parsed, so a wrong
    format gets the registry's message ("--output sarif is not supported by selector check;
    one of: table, json") on every command; the command receives the format's name
    (lower-case) and hands it to ``env.render(report, output)``.  ``enum`` lists the formats.
    """
    enum = format_enum(report_type)
    names = [f.value for f in allowed_formats(report_type)]

    def check(ctx: Context, param: Parameter, value: str | None) -> str | None:
        if value is None:
            return None
        chosen = value.strip().lower()
        if chosen not in names:
            raise UsageError(
                f"--output {value} is not supported by {command_name(ctx)}; one of: {', '.join(names)}",
                command_name(ctx),
            )
        return chosen

    def complete(incomplete: str) -> list[str]:
        return [n for n in names if n.startswith(incomplete.lower())]

    alias = Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            callback=check,
            autocompletion=complete,
            help=f"Output format: {', '.join(names)}.",
        ),
    ]
    return enum, alias, default.value


_SIZE = re.compile(r"^\s*(\d+)\s*([kKMGT]i?|[kKMGT]i?B|B)?\s*$")
_UNITS = {
    "": 1,
    "B": 1,
    "k": 10**3,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}


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


# What-if flags shared by explain-allocation and capacity (dractl.explain.whatif.WhatIf).
IgnoreAllocationsOpt = Annotated[
    bool, typer.Option("--ignore-allocations", help="As if no claim held a device.")
]
IgnoreTaintsOpt = Annotated[bool, typer.Option("--ignore-taints", help="As if no device were tainted.")]
