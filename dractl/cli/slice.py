"""``dractl slice validate``: the API server's checks for ResourceSlices, plus pool consistency."""

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

KINDS = frozenset({"ResourceSlice"})
EXAMPLES = """\b
Examples:
  # Validate the slices a driver publishes (e.g. from dractl discover)
  dractl slice validate slices.yaml

\b
  # Validate for a 1.35 cluster with partitionable devices enabled
  dractl slice validate slices.yaml --kube-version 1.35 --feature-gates DRAPartitionableDevices=true

\b
  # Check that an updated slice keeps its identity
  dractl slice validate new.yaml --old published.yaml
"""

app = typer.Typer(help="ResourceSlices.", no_args_is_help=True)


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
    """Validate ResourceSlices like the API server, then pools across them (generations, counts, counters).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """
    run_checks(
        ctx,
        "slice validate",
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
        cross=True,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="slice")
