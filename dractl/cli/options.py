"""Shared command-line options: each flag is defined once, here, as an ``Annotated`` alias.

Flag names follow kubectl where the meaning overlaps (``-o``, ``--no-headers``).  Flags that
always travel together (the live cluster's connection, the what-if flags) are a *flag group*:
a dataclass whose ``OPTIONS`` declares them; a command takes one parameter of that class and
:func:`with_flag_groups` puts the group's flags in its place.  A command
declares ``kube_version: KubeVersionOpt = None`` and hands the value to
:func:`dractl.io.release.resolve_release` (through ``CliEnv.release``): the option accepts
``1.35``, ``v1.35``, ``1.35.2`` and ``v1.35.2`` and rejects anything else with one
kubectl-style message.  ``output_option(report_type)`` builds the ``-o/--output`` option of
a report command from the formats its report type registers (the render registry), so help,
completion and the error for a wrong format come from one place.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, ClassVar

import typer
from typer import CallbackParam as Parameter
from typer import Context

from dractl.errors import UsageError
from dractl.render import Format, allowed_formats, format_enum

DEFAULT_MAX_INPUT_SIZE = "128Mi"  # validate/lint: ~5x this in memory at most (issue 11)


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
        "--max-input-size",
        metavar="SIZE",
        help="Refuse inputs larger than this (bytes, or e.g. 64Mi, 1G).  validate and lint read "
        "objects one at a time (the items of a kind: List too, YAML or JSON): about 5x an input's "
        "size in memory at most.",
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


# Where the world comes from (explain-allocation, capacity and the inventory views): -f files,
# --snapshot, else the live cluster (dractl.cli.cluster_options.world_source).
WorldFilesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "-f", "--filename", metavar="PATH", help="Cluster objects: files or directories (repeatable)."
    ),
]
WorldSnapshotOpt = Annotated[
    str | None, typer.Option("--snapshot", metavar="FILE", help="A dractl snapshot.")
]

# What explain-allocation explains and capacity counts copies of (dractl.explain.inputs.target_spec):
# exactly one of claim files, --claim or --pod.
ClaimFilesArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="CLAIM_FILE",
        help="Files with the ResourceClaims (or templates) to place.",
        show_default=False,
    ),
]
ClaimRefOpt = Annotated[
    list[str] | None,
    typer.Option("--claim", metavar="[NS/]NAME", help="A claim of the cluster (repeatable)."),
]
PodRefOpt = Annotated[
    list[str] | None,
    typer.Option("--pod", metavar="[NS/]NAME", help="All claims of this pod (template claims included)."),
]
WithoutNodeOpt = Annotated[
    list[str] | None,
    typer.Option("--without-node", metavar="NAME", help="As if the node were gone (repeatable)."),
]
AllocatorOpt = Annotated[
    str,
    typer.Option(
        "--allocator",
        metavar="auto|stable|incubating|experimental",
        help="Allocator implementation (auto: the one Kubernetes picks for the version and gates).",
    ),
]


Group = Mapping[str, tuple[Any, Any]]  # parameter name -> (Annotated alias, default), in --help order


def with_flag_groups(fn: Callable[..., None]) -> Callable[..., None]:
    """A Typer command from ``fn``: each parameter annotated with a flag group (a class with an
    ``OPTIONS`` mapping) is replaced, where it stands, by the group's flags; the command builds
    the group object from their values and passes it to ``fn`` under the parameter's name."""
    signature = inspect.signature(fn, eval_str=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[type, tuple[str, ...]]] = {}
    for p in signature.parameters.values():
        options: Group | None = getattr(p.annotation, "OPTIONS", None)
        if options is None:
            kind = p.kind if p.default is p.empty else inspect.Parameter.KEYWORD_ONLY
            params.append(p.replace(kind=kind))
            continue
        groups[p.name] = (p.annotation, tuple(options))
        params += [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=alias, default=default)
            for name, (alias, default) in options.items()
        ]

    def command(*args: Any, **values: Any) -> None:
        for name, (cls, names) in groups.items():
            values[name] = cls(**{n: values.pop(n) for n in names})
        fn(*args, **values)

    command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    command.__doc__ = fn.__doc__
    command.__name__ = fn.__name__
    return command


@dataclass(frozen=True, slots=True)
class WhatIfFlags:
    """The what-if flags of explain-allocation and capacity (:class:`dractl.explain.whatif.WhatIf`)."""

    OPTIONS: ClassVar[Group] = {
        "ignore_allocations": (IgnoreAllocationsOpt, False),
        "ignore_taints": (IgnoreTaintsOpt, False),
        "without_node": (WithoutNodeOpt, None),
    }
    ignore_allocations: bool = False
    ignore_taints: bool = False
    without_node: list[str] | None = None

    def whatif(self) -> Any:
        from dractl.explain.whatif import WhatIf

        return WhatIf(self.ignore_allocations, self.ignore_taints, tuple(self.without_node or ()))


@dataclass(frozen=True, slots=True)
class TargetFlags:
    """What explain-allocation explains and capacity counts copies of: claim files, ``--claim`` or
    ``--pod`` (exactly one of them: :func:`dractl.explain.inputs.target_spec` checks)."""

    OPTIONS: ClassVar[Group] = {
        "claim_files": (ClaimFilesArg, None),
        "claim": (ClaimRefOpt, None),
        "pods": (PodRefOpt, None),
    }
    claim_files: list[str] | None = None
    claim: list[str] | None = None
    pods: list[str] | None = None

    def pod(self, command: str, why: str) -> str | None:
        """The one ``--pod`` given (None: none); UsageError when it was given more than once."""
        if self.pods and len(self.pods) > 1:
            raise UsageError(f"--pod given {len(self.pods)} times: {why}", command)
        return self.pods[0] if self.pods else None
