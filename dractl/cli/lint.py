"""``dractl lint``: validate every input like the API server, then check them together.

Also the shared runner of ``dractl claim|slice|class validate`` (the same checks,
restricted to some kinds).  Output, exit codes and ``--explain`` as ``dractl validate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    CiFlags,
    ClassesFromOpt,
    ConfigOpt,
    FeatureGatesOpt,
    LenientOpt,
    MaxInputSizeOpt,
    OnlyOpt,
    PathsArg,
    RuntimeConfigOpt,
    SkipOpt,
    StrictOpt,
    features_for,
    output_option,
    parse_size,
)
from dractl.errors import UsageError

_, LintOutputOpt, DEFAULT_OUTPUT = output_option("validation")
KubeOpt = Annotated[
    str | None,
    typer.Option(
        "--kube-version",
        metavar="1.34|…|1.37",
        help="Kubernetes release (default: the snapshot's, else 1.37).",
    ),
]
SnapshotOpt = Annotated[
    str | None,
    typer.Option(
        "--snapshot", metavar="FILE", help="Cluster context for the cross-object checks (a dractl snapshot)."
    ),
]
StatusOpt = Annotated[
    bool, typer.Option("--status", help="Also apply the status rules (RCS-…, as a status update).")
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

EXAMPLES = """\b
Examples:
  # Lint a directory of manifests for Kubernetes 1.37 (validate + cross-object checks)
  dractl lint deploy/

\b
  # Check claims against what a cluster publishes (saved with dractl snapshot)
  dractl lint claims/ --snapshot cluster.yaml

\b
  # CI: fail on warnings too, annotate the pull request
  dractl lint --strict -o github deploy/

\b
  # What does a rule mean?
  dractl lint --explain ADV-POOL-CONSISTENT
"""


def lint(
    ctx: typer.Context,
    paths: PathsArg = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeOpt = None,
    feature_gates: FeatureGatesOpt = None,
    strict: StrictOpt = False,
    lenient: LenientOpt = False,
    status: StatusOpt = False,
    old: OldOpt = None,
    runtime_config: RuntimeConfigOpt = None,
    skip: SkipOpt = None,
    only: OnlyOpt = None,
    config: ConfigOpt = None,
    classes_from: ClassesFromOpt = None,
    max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
    explain: ExplainOpt = None,
    output: LintOutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
) -> None:
    """Validate DRA manifests and check them together (classes, pools, counters, selectors, taints).

    Exit status: 0 no errors (warnings allowed), 1 error findings (or any warning with
    --strict), 2 an input could not be read or a usage error.
    """
    run_checks(
        ctx,
        "lint",
        paths,
        None,
        snapshot,
        kube_version,
        feature_gates,
        strict,
        lenient,
        status,
        old,
        max_input_size,
        explain,
        output,
        cross=True,
        ci=CiFlags.of(runtime_config, skip, only, config, classes_from),
    )


def run_checks(
    ctx: typer.Context,
    command: str,
    paths: Sequence[str] | None,
    kinds: frozenset[str] | None,
    snapshot: str | None,
    kube_version: str | None,
    feature_gates: str | None,
    strict: bool,
    lenient: bool,
    status: bool,
    old: Sequence[str] | None,
    max_input_size: str,
    explain: str | None,
    output: Any,
    cross: bool,
    ci: CiFlags | None = None,
) -> None:
    """Load → validate (engine) → cross-object lint (``cross``) → suppressions → render → exit code."""
    env = CliEnv.of(ctx)
    if explain is not None:
        _explain(env, explain, command)
        return
    if not paths:
        raise UsageError("missing PATH (a file, a directory, or '-' for stdin)", command)
    from dataclasses import replace

    from dractl.cli.options import ci_finish, ci_setup, config_version
    from dractl.io.loader import load_paths
    from dractl.render import render
    from dractl.validate.engine import validate_docs
    from dractl.validate.options import ValidateOptions
    from dractl.validate.report import ValidationReport

    limit = parse_size(max_input_size, command)
    context = load_paths([snapshot], max_input_size=limit) if snapshot else None
    ci_run = ci_setup(ci or CiFlags(), context.snapshot_header if context else None, limit, command)
    patch = None
    if kube_version is None and ci_run.config.kube_version is not None:
        kube_version, patch = config_version(None, ci_run, command)
    elif kube_version is not None and kube_version.count(".") == 2:
        kube_version, patch = config_version(kube_version, ci_run, command)
    version = _version(kube_version, context.snapshot_header if context else None, command)
    features, locked = features_for(version, feature_gates or ci_run.config.feature_gates, command)
    for gate in locked:
        env.warn(f"feature gate {gate} is locked in Kubernetes {version}; a real cluster ignores it")
    opts = ValidateOptions(
        kube_version=version,
        features=features,
        strict=strict,
        lenient=lenient,
        status=status,
        old_files=tuple(old or ()),
        runtime=ci_run.runtime,
        kube_patch=patch,
    )
    loaded = load_paths(list(paths), max_input_size=limit)
    docs = [d for d in loaded.docs if kinds is None or _selected(d.kind, d.api_version, kinds)]
    if kinds is not None and len(docs) < len(loaded.docs):
        env.warn(f"{command}: ignored {len(loaded.docs) - len(docs)} object(s) of other kinds")
    errors = list(loaded.errors) + (list(context.errors) if context else []) + ci_run.class_errors
    cross = cross or bool(ci_run.classes)
    if old:  # an unreadable --old file is an input error, not a silent "create"
        errors += load_paths(list(old), max_input_size=limit).errors
    report = validate_docs(docs, opts, input_errors=errors, files=loaded.files)
    if cross:
        from dractl.validate.catalog import all_rules
        from dractl.validate.catalog import explain as explain_rule
        from dractl.validate.lint import LINT_RULES, settle_offline_warnings
        from dractl.validate.lint import lint as cross_lint

        context_docs = [*(context.docs if context else []), *ci_run.classes]
        extra = cross_lint(docs, opts, context_docs=context_docs)
        kept = settle_offline_warnings(report.findings, docs, context_docs)
        rules = {**report.rules, **LINT_RULES}
        rules.update(
            {
                r: (explain_rule(r) or "").split("What: ", 1)[-1].split("\n", 1)[0]
                for r in all_rules()
                if r not in rules
            }
        )
        report = ValidationReport.build(
            version, [*kept, *extra], report.objects, report.input_errors, loaded.files, rules
        )
        report = replace(report)
    report = ci_finish(report, docs, ci_run)
    render(report, output, env.out, command)
    for error in report.input_errors:
        env.err.print(f"dractl: error: {error.one_line()}", soft_wrap=True)
    raise typer.Exit(report.exit_code(strict))


_DRA_KINDS = frozenset(
    {"ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "DeviceTaintRule",
     "ResourcePoolStatusRequest"}
)


def _selected(kind: str | None, api_version: str | None, kinds: frozenset[str]) -> bool:
    """An object of ``kinds``, or one whose kind is missing or misspelled in the DRA group: those are
    validated (and reported) rather than silently skipped as "other kinds"."""
    if kind in kinds:
        return True
    # A DRA document without a kind or with a misspelled one is reported; anything else (another kind
    # of the group such as ResourcePoolStatusRequest, a document without apiVersion and kind) is
    # outside the family and ignored, as the command's help says.
    in_group = (api_version or "").startswith("resource.k8s.io/")
    return in_group and (not kind or kind not in _DRA_KINDS)


def _version(flag: str | None, header: dict[str, object] | None, command: str) -> str:
    from dractl.model.features import DEFAULT_KUBE_VERSION, SUPPORTED_KUBE_VERSIONS

    version = flag
    if version is None and header:
        server = str(header.get("kubeVersion") or header.get("serverVersion") or "")
        version = ".".join(server.lstrip("v").split(".")[:2]) or None
        if version not in SUPPORTED_KUBE_VERSIONS:
            version = None
    version = DEFAULT_KUBE_VERSION if version is None else version
    if version not in SUPPORTED_KUBE_VERSIONS:
        raise UsageError(
            f"--kube-version: unsupported version {version!r}; one of: {', '.join(SUPPORTED_KUBE_VERSIONS)}",
            command,
        )
    return version


def _explain(env: CliEnv, rule: str, command: str) -> None:
    from dractl.validate.catalog import explain, suggest

    text = explain(rule)
    if text is None:
        hint = suggest(rule)
        raise UsageError(
            f"unknown rule {rule!r}" + (f"; did you mean {', '.join(hint)}?" if hint else ""), command
        )
    env.write(text)


def kind_group(command: str, kinds: frozenset[str], group_help: str, doc: str, examples: str, *,
               always_cross: bool) -> typer.Typer:
    """A ``<kind> validate`` group: the checks of ``lint`` limited to ``kinds``; cross-object checks
    always (``always_cross``) or only with a ``--snapshot``.  ``doc`` becomes the command's --help."""
    app = typer.Typer(help=group_help, no_args_is_help=True)

    def validate(
        ctx: typer.Context,
        paths: PathsArg = None,
        snapshot: SnapshotOpt = None,
        kube_version: KubeOpt = None,
        feature_gates: FeatureGatesOpt = None,
        strict: StrictOpt = False,
        lenient: LenientOpt = False,
        old: OldOpt = None,
        runtime_config: RuntimeConfigOpt = None,
        skip: SkipOpt = None,
        only: OnlyOpt = None,
        config: ConfigOpt = None,
        classes_from: ClassesFromOpt = None,
        max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
        explain: ExplainOpt = None,
        output: LintOutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
    ) -> None:
        run_checks(ctx, command, paths, kinds, snapshot, kube_version, feature_gates, strict, lenient, False,
                   old, max_input_size, explain, output, cross=always_cross or snapshot is not None,
                   ci=CiFlags.of(runtime_config, skip, only, config, classes_from))

    validate.__doc__ = doc
    app.command("validate", epilog=examples)(validate)
    return app


def register(app: typer.Typer) -> None:
    """``lint`` plus the ``claim``, ``slice`` and ``class`` groups (their ``validate`` commands)."""
    from dractl.cli import claim, klass, slice

    app.command("lint", epilog=EXAMPLES)(lint)
    claim.register(app)
    klass.register(app)
    slice.register(app)
