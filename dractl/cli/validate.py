"""``dractl validate``: check DRA manifests as the API server would decode and accept them."""

from __future__ import annotations

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    CiFlags,
    ConfigOpt,
    FeatureGatesOpt,
    LenientOpt,
    MaxInputSizeOpt,
    OnlyOpt,
    PathsArg,
    RuntimeConfigOpt,
    SkipOpt,
    SnapshotKubeVersionOpt,
    StatusOpt,
    StrictOpt,
    features_for,
    kube_version_for,
    output_option,
    parse_size,
)
from dractl.errors import UsageError

_, ValidateOutputOpt, DEFAULT_OUTPUT = output_option("validation")

EXAMPLES = """\b
Examples:
  # Validate every manifest under a directory against Kubernetes 1.37
  dractl validate manifests/

\b
  # Validate a file for a 1.35 cluster, failing on warnings too
  dractl validate claim.yaml --kube-version 1.35 --strict

\b
  # Validate what kubectl would apply, as GitHub annotations
  kustomize build overlays/prod | dractl validate - -o github

\b
  # Explain a rule id seen in a report
  dractl validate --explain SCHEMA-UNKNOWN-FIELD
"""


def validate(ctx: typer.Context, paths: PathsArg = None, kube_version: SnapshotKubeVersionOpt = None,
             feature_gates: FeatureGatesOpt = None, strict: StrictOpt = False, lenient: LenientOpt = False,
             status: StatusOpt = False, runtime_config: RuntimeConfigOpt = None, skip: SkipOpt = None,
             only: OnlyOpt = None, config: ConfigOpt = None,
             max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
             explain: str | None = typer.Option(None, "--explain", metavar="RULE",
                                                help="Describe a rule id and exit."),
             output: ValidateOutputOpt = DEFAULT_OUTPUT) -> None:  # type: ignore[valid-type]
    """Validate DRA manifests like the API server: API versions, schema, duplicate keys, rules.

    Exit status: 0 no errors (warnings allowed), 1 error findings (or any warning with
    --strict), 2 an input could not be read or a usage error.
    """
    env = CliEnv.of(ctx)
    if explain is not None:
        _explain(env, explain)
        return
    if not paths:
        raise UsageError("missing PATH (a file, a directory, or '-' for stdin)", "validate")
    from dractl.cli.options import ci_finish, ci_setup, config_version
    from dractl.io import load_paths
    from dractl.render import render
    from dractl.validate.engine import validate_docs
    from dractl.validate.lint import admin_namespace_findings, settle_offline_warnings
    from dractl.validate.options import ValidateOptions
    from dractl.validate.report import ValidationReport

    limit = parse_size(max_input_size, "validate")
    loaded = load_paths(paths, max_input_size=limit)
    flags = CiFlags.of(runtime_config, skip, only, config)
    ci_run = ci_setup(flags, loaded.snapshot_header, limit, "validate")
    minor, patch = config_version(None, ci_run, "validate") if kube_version is None else (None, None)
    version = kube_version_for(kube_version if kube_version is not None else minor, loaded.snapshot_header)
    features, locked = features_for(version, feature_gates or ci_run.config.feature_gates, "validate")
    for gate in locked:
        env.warn(f"feature gate {gate} is locked in Kubernetes {version}; a real cluster ignores it")
    opts = ValidateOptions(kube_version=version, features=features, strict=strict, lenient=lenient,
                           status=status, runtime=ci_run.runtime, kube_patch=patch)
    report = validate_docs(loaded.docs, opts, input_errors=loaded.errors, files=loaded.files)
    # Admin access against Namespaces in the input: the same exact answer as lint gives.
    settled = settle_offline_warnings(report.findings, loaded.docs)
    admin = admin_namespace_findings(loaded.docs, opts)
    if admin or len(settled) != len(report.findings):
        report = ValidationReport.build(version, [*settled, *admin], report.objects, report.input_errors,
                                        loaded.files, report.rules)
    report = ci_finish(report, loaded.docs, ci_run)
    render(report, output, env.out, "validate")
    for error in report.input_errors:
        env.err.print(f"dractl: error: {error.one_line()}", soft_wrap=True)
    raise typer.Exit(report.exit_code(strict))


def _explain(env: CliEnv, rule: str) -> None:
    from dractl.validate.engine import explain_rule

    text = explain_rule(rule)
    if text is None:
        raise UsageError(f"unknown rule {rule!r}", "validate")
    env.out.print(text, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("validate", epilog=EXAMPLES)(validate)
