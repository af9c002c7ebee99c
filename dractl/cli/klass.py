"""``dractl class validate``: the API server's checks for DeviceClasses (``class`` is a Python keyword)."""

from __future__ import annotations

import typer

from dractl.cli.lint import (
    DEFAULT_OUTPUT,
    ExplainOpt,
    KubeOpt,
    LintOutputOpt,
    OldOpt,
    SnapshotOpt,
    run_checks,
)
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    FeatureGatesOpt,
    LenientOpt,
    MaxInputSizeOpt,
    PathsArg,
    StrictOpt,
)

KINDS = frozenset({"DeviceClass"})
EXAMPLES = """\b
Examples:
  # Validate the DeviceClasses of a driver's deployment
  dractl class validate deployments/deviceclass.yaml

\b
  # Also check which attributes the selectors use against published slices
  dractl class validate deviceclass.yaml --snapshot cluster.yaml
"""

app = typer.Typer(help="DeviceClasses.", no_args_is_help=True)


@app.command("validate", epilog=EXAMPLES)
def validate(
    ctx: typer.Context,
    paths: PathsArg = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeOpt = None,
    feature_gates: FeatureGatesOpt = None,
    strict: StrictOpt = False,
    lenient: LenientOpt = False,
    old: OldOpt = None,
    max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
    explain: ExplainOpt = None,
    output: LintOutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
) -> None:
    """Validate DeviceClasses like the API server (CEL selectors, config, extended resource name).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """
    run_checks(
        ctx,
        "class validate",
        paths,
        KINDS,
        snapshot,
        kube_version,
        feature_gates,
        strict,
        lenient,
        False,
        old,
        max_input_size,
        explain,
        output,
        cross=snapshot is not None,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="class")
