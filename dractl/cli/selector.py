"""``dractl selector``: a playground for DRA CEL selectors (check, eval).

``dractl.cel`` is imported inside the commands only, so ``dractl --help`` stays fast.
"""

from __future__ import annotations

from typing import Annotated

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    FeatureGatesOpt,
    KubeVersionOpt,
    MaxInputSizeOpt,
    NoHeadersOpt,
    output_option,
    parse_size,
)
from dractl.errors import EXIT_INPUT, UsageError

_, CheckOutputOpt, CHECK_OUTPUT = output_option("selector-check")
_, EvalOutputOpt, EVAL_OUTPUT = output_option("selector-eval")
ExprsArg = Annotated[
    list[str], typer.Argument(metavar="EXPR", help="CEL selector expressions.", show_default=False)
]

CHECK_EXAMPLES = """\b
Examples:
  # Would the API server accept this selector?
  dractl selector check 'device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA H")'

\b
  # Check an includes() selector with list-type attributes on
  dractl selector check 'device.attributes["d"].v.includes(1)' --feature-gates DRAListTypeAttributes=true
"""

EVAL_EXAMPLES = """\b
Examples:
  # Which devices of these slices match?
  dractl selector eval 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0' -f slices/

\b
  # Why does my class match nothing?  Names no device publishes are listed.
  dractl selector eval 'device.attributes["gpu.nvidia.com"].idx == 0' -f slices.yaml -o json
"""


def check(
    ctx: typer.Context,
    expressions: ExprsArg,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    output: CheckOutputOpt = CHECK_OUTPUT,  # type: ignore[valid-type]
) -> None:
    """Check selectors as the API server does for a new object: length, compile and type
    errors, estimated cost (limit 1,000,000).

    Exit status: 0 all accepted, 1 any rejected, 2 usage error.
    """
    from dractl.cel.playground import check_expression
    from dractl.explain.playground import SelectorCheckReport

    env = CliEnv.of(ctx)
    release = env.release(kube_version, feature_gates)
    results = tuple(check_expression(e, release.features) for e in expressions)
    report = SelectorCheckReport(results, release.kube_version)
    env.render(report, output)
    raise typer.Exit(report.exit_code)


def evaluate(
    ctx: typer.Context,
    expressions: ExprsArg,
    files: Annotated[
        list[str],
        typer.Option(
            "-f",
            "--filename",
            metavar="PATH",
            help="ResourceSlice files or directories ('-' for stdin); repeatable.",
        ),
    ] = [],  # noqa: B006
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
    no_headers: NoHeadersOpt = False,
    output: EvalOutputOpt = EVAL_OUTPUT,  # type: ignore[valid-type]
) -> None:
    """Evaluate selectors on the devices of ResourceSlices, as the scheduler's allocator does:
    which devices match, which fail with a runtime error and why, and which attribute or
    capacity names a selector uses that no input device publishes.

    Exit status: 0 evaluated without errors (even if nothing matches), 1 a selector does not
    compile or fails on some device, 2 unreadable input or usage error.
    """
    from dractl.cel.playground import evaluate as run
    from dractl.explain.playground import SelectorEvalReport, slice_devices
    from dractl.io import load_paths

    env = CliEnv.of(ctx)
    if not files:
        raise UsageError(
            "missing -f PATH (ResourceSlice files or directories, '-' for stdin)", "selector eval"
        )
    release = env.release(kube_version, feature_gates)
    loaded = load_paths(files, max_input_size=parse_size(max_input_size, "selector eval"))
    devices, nodes, bad = slice_devices(loaded.docs)
    for error in [*loaded.errors, *bad]:  # nothing is evaluated on partial input
        env.error(error.one_line())
    if loaded.errors or bad:
        raise typer.Exit(EXIT_INPUT)
    if not devices:
        env.warn("no ResourceSlice devices in the given files: nothing to evaluate")
    results = tuple(run(e, devices, release.features, nodes=nodes) for e in expressions)
    report = SelectorEvalReport(results, release.kube_version, len(devices))
    env.render(report, output, no_headers=no_headers)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="Try DRA CEL selectors: check them like the API server, evaluate them on "
        "ResourceSlices like the scheduler.",
        no_args_is_help=True,
    )
    group.command("check", epilog=CHECK_EXAMPLES)(check)
    group.command("eval", epilog=EVAL_EXAMPLES)(evaluate)
    app.add_typer(group, name="selector")
