"""``dractl selector``: a playground for DRA CEL selectors (check, eval).

``dractl.cel`` is imported inside the commands only, so ``dractl --help`` stays fast.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    FeatureGatesOpt,
    KubeVersionOpt,
    MaxInputSizeOpt,
    parse_size,
)
from dractl.errors import EXIT_FINDINGS, EXIT_INPUT, UsageError

if TYPE_CHECKING:
    from dractl.cel.playground import CheckResult, EvalResult
    from dractl.model.features import Features
    from dractl.model.objects import Device


class SelectorOutput(StrEnum):
    TABLE = "table"
    JSON = "json"


OutputOpt = Annotated[SelectorOutput, typer.Option("-o", "--output", help="Output format: table, json.",
                                                   case_sensitive=False)]
ExprsArg = Annotated[list[str], typer.Argument(metavar="EXPR", help="CEL selector expressions.",
                                               show_default=False)]

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


def _features(kube_version: str | None, feature_gates: str | None, env: CliEnv) -> Features:
    return env.release(kube_version, feature_gates).features


def check(ctx: typer.Context, expressions: ExprsArg, kube_version: KubeVersionOpt = None,
          feature_gates: FeatureGatesOpt = None,
          output: OutputOpt = SelectorOutput.TABLE) -> None:
    """Check selectors as the API server does for a new object: length, compile and type
    errors, estimated cost (limit 1,000,000).

    Exit status: 0 all accepted, 1 any rejected, 2 usage error.
    """
    from dractl.cel.playground import check_expression

    env = CliEnv.of(ctx)
    features = _features(kube_version, feature_gates, env)
    results = [check_expression(e, features) for e in expressions]
    if output is SelectorOutput.JSON:
        env.write(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        _check_table(env, results)
    raise typer.Exit(0 if all(r.ok for r in results) else EXIT_FINDINGS)


def _check_table(env: CliEnv, results: list[CheckResult]) -> None:
    """One block per selector: verdict and estimated cost, the expression, then the message."""
    for i, r in enumerate(results):
        if i:
            env.out.print()
        cost = "-" if r.max_cost is None else str(r.max_cost)
        verdict = "accepted" if r.ok else f"rejected ({r.error_type})"
        env.out.print(f"{verdict}, estimated cost {cost}: {r.expression}", soft_wrap=True)
        for line in (r.error or "").splitlines():
            env.out.print(f"  {line}", soft_wrap=True)
        if r.hint:
            env.out.print(f"  hint: {r.hint}", soft_wrap=True)


def _load_devices(paths: list[str], max_input_size: str, env: CliEnv) -> tuple[list[Device], dict[int, str]]:
    from dractl.io import load_paths
    from dractl.model.build import build_object

    loaded = load_paths(paths, max_input_size=parse_size(max_input_size, "selector eval"))
    for error in loaded.errors:
        env.err.print(f"dractl: error: {error.one_line()}", soft_wrap=True)
    if loaded.errors and not loaded.docs:
        raise typer.Exit(EXIT_INPUT)
    devices: list[Device] = []
    nodes: dict[int, str] = {}
    for doc in loaded.docs:
        if doc.raw.get("kind") != "ResourceSlice":
            continue
        try:
            rs = build_object(doc.raw, doc.origin)
        except (KeyError, ValueError) as e:
            env.err.print(f"dractl: error: {doc.origin.file}: ResourceSlice: {e}", soft_wrap=True)
            raise typer.Exit(EXIT_INPUT) from None
        for d in getattr(rs, "devices", ()):
            devices.append(d)
            nodes[id(d)] = getattr(rs, "node_name", None) or ("<all nodes>" if getattr(rs, "all_nodes", None)
                                                               else "")
    if loaded.errors:
        raise typer.Exit(EXIT_INPUT)
    return devices, nodes


def evaluate(ctx: typer.Context, expressions: ExprsArg,
             files: Annotated[list[str], typer.Option(
                 "-f", "--filename", metavar="PATH",
                 help="ResourceSlice files or directories ('-' for stdin); repeatable.")] = [],  # noqa: B006
             kube_version: KubeVersionOpt = None, feature_gates: FeatureGatesOpt = None,
             max_input_size: MaxInputSizeOpt = DEFAULT_MAX_INPUT_SIZE,
             output: OutputOpt = SelectorOutput.TABLE) -> None:
    """Evaluate selectors on the devices of ResourceSlices, as the scheduler's allocator does:
    which devices match, which fail with a runtime error and why, and which attribute or
    capacity names a selector uses that no input device publishes.

    Exit status: 0 evaluated without errors (even if nothing matches), 1 a selector does not
    compile or fails on some device, 2 unreadable input or usage error.
    """
    from dractl.cel.playground import evaluate as run

    env = CliEnv.of(ctx)
    if not files:
        raise UsageError("missing -f PATH (ResourceSlice files or directories, '-' for stdin)",
                         "selector eval")
    features = _features(kube_version, feature_gates, env)
    devices, nodes = _load_devices(files, max_input_size, env)
    if not devices:
        env.warn("no ResourceSlice devices in the given files: nothing to evaluate")
    results = [run(e, devices, features, nodes=nodes) for e in expressions]
    if output is SelectorOutput.JSON:
        env.write(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        for i, r in enumerate(results):
            if i:
                env.out.print()
            _eval_table(env, r)
    failed = any(r.compile_error or r.errors for r in results)
    raise typer.Exit(EXIT_FINDINGS if failed else 0)


def _eval_table(env: CliEnv, r: EvalResult) -> None:
    from rich.table import Table

    env.out.print(f"Selector: {r.expression}", soft_wrap=True)
    if r.compile_error:
        env.out.print(f"Does not compile: {r.compile_error}", soft_wrap=True)
        return
    if r.outcomes:
        table = Table(box=None, show_edge=False, pad_edge=False)
        for col in ("DEVICE", "NODE", "RESULT", "ERROR"):
            table.add_column(col, overflow="fold")
        for o in r.outcomes:
            d = o.device
            result = "error" if o.error else ("match" if o.matches else "no match")
            table.add_row(f"{d.driver}/{d.pool}/{d.name}", o.node or d.node_name or "", result, o.error or "")
        env.out.print(table)
    env.out.print(f"{r.matched} of {len(r.outcomes)} devices match; {r.errors} failed with an error "
                  f"(estimated cost {r.max_cost}).", soft_wrap=True)
    for ref in r.missing:
        hint = ""
        if ref.other_kind_on:
            domain, _, name = ref.qualified.rpartition("/")
            hint = (f"; it is a {ref.other_kind} on {ref.other_kind_on} devices: did you mean "
                    f'device.{ref.other_kind}["{domain}"].{name}?')
        env.out.print(f"Note: {ref.qualified} ({ref.kind}) exists on {ref.present_on} of {ref.total} "
                      f"devices{hint or '.'}", soft_wrap=True)


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Try DRA CEL selectors: check them like the API server, evaluate them on "
                             "ResourceSlices like the scheduler.", no_args_is_help=True)
    group.command("check", epilog=CHECK_EXAMPLES)(check)
    group.command("eval", epilog=EVAL_EXAMPLES)(evaluate)
    app.add_typer(group, name="selector")
