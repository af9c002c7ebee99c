"""``dractl explain-allocation``: would these claims be allocated, where, and if not, why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from dractl.cli.cluster_options import (
    ChunkSizeOpt,
    ContextOpt,
    KubeconfigOpt,
    PartialOpt,
    RequestTimeoutOpt,
    cluster_options,
)
from dractl.cli.env import CliEnv
from dractl.cli.options import (
    FeatureGatesOpt,
    IgnoreAllocationsOpt,
    IgnoreTaintsOpt,
    KubeVersionOpt,
    output_option,
)
from dractl.cluster.options import DEFAULT_CHUNK_SIZE, ClusterOptions
from dractl.errors import UsageError

if TYPE_CHECKING:
    from dractl.io.sources import WorldSource
    from dractl.model.features import Features

_, OutputOpt, DEFAULT_OUTPUT = output_option("allocation-explanation")

EXAMPLES = """\b
Examples:
  # Why can't the claim two-h100 of the demo cluster be allocated?
  dractl explain-allocation --claim two-h100 -f examples/demo/

\b
  # All claims of a pending pod (template claims and nvidia.com/gpu included), one node
  dractl explain-allocation --pod notebook --node gpu-node-1 -f examples/demo/

\b
  # A claim file against a saved snapshot, as JSON
  dractl explain-allocation claim.yaml --snapshot cluster.yaml -o json

\b
  # A claim of the live cluster (the current kubeconfig context)
  dractl explain-allocation --claim team-a/train --context prod

\b
  # What if the taints were gone and gpu-node-1 drained?
  dractl explain-allocation --claim two-h100 --ignore-taints --without-node gpu-node-1 -f examples/demo/
"""


def explain_allocation(
    ctx: typer.Context,
    claim_files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="CLAIM_FILE",
            help="Files with the ResourceClaims (or templates) to explain.",
            show_default=False,
        ),
    ] = None,
    claim: list[str] | None = typer.Option(
        None, "--claim", metavar="[NS/]NAME", help="A claim of the cluster (repeatable)."
    ),
    pods: list[str] | None = typer.Option(
        None,
        "--pod",
        metavar="[NS/]NAME",
        help="All claims of this pod (or one replica of a workload in the -f files).",
    ),
    namespace: str = typer.Option("default", "-n", "--namespace", help="Namespace for names without one."),
    files: list[str] | None = typer.Option(
        None, "-f", "--filename", metavar="PATH", help="Cluster objects: files or directories (repeatable)."
    ),
    snapshot: str | None = typer.Option(None, "--snapshot", metavar="FILE", help="A dractl snapshot."),
    node: str | None = typer.Option(None, "--node", metavar="NAME", help="Explain this node only."),
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    ignore_allocations: IgnoreAllocationsOpt = False,
    ignore_taints: IgnoreTaintsOpt = False,
    without_node: list[str] | None = typer.Option(
        None, "--without-node", metavar="NAME", help="As if the node were gone."
    ),
    best_fit: bool = typer.Option(False, "--best-fit", help="Rank feasible allocations by fragmentation."),
    best_fit_limit: int = typer.Option(1000, "--best-fit-limit", min=1, help="Best-fit search steps."),
    allocator: str = typer.Option(
        "auto",
        "--allocator",
        metavar="auto|stable|incubating|experimental",
        help="Allocator implementation (default: the one Kubernetes picks for the features).",
    ),
    output: OutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = DEFAULT_CHUNK_SIZE,
    partial: PartialOpt = False,
) -> None:
    """Explain whether claims would be allocated, on which nodes, and exactly why not.

    Without -f or --snapshot it reads the live cluster (kubeconfig, --context).

    Exit status: 0 fits on at least one node, 1 fits nowhere or the scheduler would
    fail the pod, 2 bad input or usage, 3 cluster errors.
    """
    from dractl.explain import inputs as inp
    from dractl.explain.engine import ExplainOptions, explain
    from dractl.explain.whatif import WhatIf

    env = CliEnv.of(ctx)
    if pods and len(pods) > 1:
        raise UsageError(
            f"--pod given {len(pods)} times: explain one pod at a time (each run is one scheduling attempt)",
            "explain-allocation",
        )
    pod = pods[0] if pods else None
    live = (
        None
        if files or snapshot
        else _live_cluster(
            env,
            cluster_options(
                kubeconfig=kubeconfig,
                context=context,
                request_timeout=request_timeout,
                chunk_size=chunk_size,
                partial=partial,
                all_namespaces=True,
                namespace=_target_namespace(claim or [], pod, namespace),
                command="explain-allocation",
            ),
            pod,
            namespace,
        )
    )
    world = inp.load_world(inp.world_sources(files or [], snapshot, cluster=live), namespace)
    world = inp.with_workload_pod(world, files or [], pod, namespace)
    release = env.release(kube_version, feature_gates, inp.header_of(world))
    version, features, overrides = release.kube_version, release.features, release.overrides
    _check_allocator(allocator, features)
    spec, extra = inp.target_spec(claim_files or [], claim or [], pod, namespace, version, features)
    world = inp.merge(world, extra)
    opts = ExplainOptions(
        features=features,
        kube_version=version,
        node=node,
        best_fit=best_fit,
        best_fit_limit=best_fit_limit,
        feature_overrides=overrides,
        whatif=WhatIf(ignore_allocations, ignore_taints, tuple(without_node or ())),
        allocator=allocator,
    )
    report = explain(world, spec, opts)
    env.render(report, output)
    raise typer.Exit(report.exit_code)


def _target_namespace(claims: list[str], pod: str | None, namespace: str) -> str:
    # The namespace a least-privileged user can read claims in, should listing them all be denied.
    ref = pod or next((c for c in claims if "/" in c), "")
    return ref.split("/", 1)[0] if "/" in ref else namespace


def _live_cluster(env: CliEnv, opts: ClusterOptions, pod: str | None, namespace: str) -> WorldSource:
    """The live cluster as the world (every namespace's claims: their devices are in use)."""
    from dractl.cli.cluster_options import world_source

    pods = [tuple(pod.split("/", 1)) if "/" in pod else (namespace, pod)] if pod else []
    return world_source(
        snapshot=None, files=(), cluster=opts, warn=env.warn, pods=[(p[0], p[1]) for p in pods]
    )


def _check_allocator(allocator: str, features: Features) -> None:
    from dractl.matcher.implementations import choose

    try:
        choose(features, allocator)
    except ValueError as err:
        raise UsageError(f"--allocator: {err}", "explain-allocation") from None


def register(app: typer.Typer) -> None:
    app.command("explain-allocation", epilog=EXAMPLES)(explain_allocation)
