"""``dractl claim validate``: the API server's checks for ResourceClaims and ResourceClaimTemplates."""

from __future__ import annotations

import typer

from dractl.cli.lint import (
    DEFAULT_OUTPUT,
    ExplainOpt,
    KubeOpt,
    LintOutputOpt,
    OldOpt,
    SnapshotOpt,
    StatusOpt,
    run_checks,
)
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
)

KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})
EXAMPLES = """\b
Examples:
  # Validate the claims and templates of a chart's rendered output
  helm template ./chart | dractl claim validate -

\b
  # Also check classes, selectors and counts against a cluster snapshot
  dractl claim validate claim.yaml --snapshot cluster.yaml

\b
  # Validate a claim's status as the scheduler would write it
  dractl claim validate --status claim-with-status.yaml
"""

app = typer.Typer(help="ResourceClaims and ResourceClaimTemplates.", no_args_is_help=True)


@app.command("validate", epilog=EXAMPLES)
def validate(
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
    """Validate ResourceClaims and templates like the API server (with --snapshot: also against the cluster).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """
    run_checks(
        ctx,
        "claim validate",
        paths,
        KINDS,
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
        cross=snapshot is not None,
        ci=CiFlags.of(runtime_config, skip, only, config, classes_from),
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="claim")
