"""``dractl explain-allocation``: would these claims be allocated, where, and if not, why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from dractl.cli.cluster_options import ConnectionFlags
from dractl.cli.env import CliEnv
from dractl.cli.options import (
    AllocatorOpt,
    FeatureGatesOpt,
    KubeVersionOpt,
    TargetFlags,
    WhatIfFlags,
    WorldFilesOpt,
    WorldSnapshotOpt,
    output_option,
    with_flag_groups,
)
from dractl.cluster.options import ClusterOptions
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
    target: TargetFlags = TargetFlags(),
    namespace: str = typer.Option("default", "-n", "--namespace", help="Namespace for names without one."),
    files: WorldFilesOpt = None,
    snapshot: WorldSnapshotOpt = None,
    node: str | None = typer.Option(None, "--node", metavar="NAME", help="Explain this node only."),
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    whatif: WhatIfFlags = WhatIfFlags(),
    best_fit: bool = typer.Option(False, "--best-fit", help="Rank feasible allocations by fragmentation."),
    best_fit_limit: int = typer.Option(1000, "--best-fit-limit", min=1, help="Best-fit search steps."),
    allocator: AllocatorOpt = "auto",
    output: OutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
    connection: ConnectionFlags = ConnectionFlags(),
) -> None:
    """Explain whether claims would be allocated, on which nodes, and exactly why not.

    --pod may also name a workload of the -f files (Deployment, Job, …): one pending
    replica of it is explained.  Without -f or --snapshot it reads the live cluster
    (kubeconfig, --context).

    Exit status: 0 fits on at least one node, 1 fits nowhere or the scheduler would
    fail the pod, 2 bad input or usage, 3 cluster errors.
    """
    from dractl.explain import inputs as inp
    from dractl.explain.engine import ExplainOptions, explain

    env = CliEnv.of(ctx)
    pod = target.pod("explain-allocation", "explain one pod at a time (each run is one scheduling attempt)")
    live = (
        None
        if files or snapshot
        else _live_cluster(
            env,
            connection.options(
                all_namespaces=True,
                namespace=_target_namespace(target.claim or [], pod, namespace),
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
    spec, extra = inp.target_spec(
        target.claim_files or [], target.claim or [], pod, namespace, version, features
    )
    world = inp.merge(world, extra)
    opts = ExplainOptions(
        features=features,
        kube_version=version,
        node=node,
        best_fit=best_fit,
        best_fit_limit=best_fit_limit,
        feature_overrides=overrides,
        whatif=whatif.whatif(),
        allocator=allocator,
    )
    report = explain(world, spec, opts)
    if inp.header_of(world) is None or release.source == "flag":  # files, or a release chosen by flag
        report = _with_release_warnings(env, report, world, release)
    from dractl.cli.cluster_options import with_missing

    report = with_missing(report, live, "warnings")
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


def _with_release_warnings(env: CliEnv, report: Any, world: Any, release: Any) -> Any:
    """The report with a warning (stderr and JSON) per slice or class the release rejects."""
    from dataclasses import replace

    from dractl.explain.release_check import release_warnings

    found = release_warnings(world, release.kube_version, release.features, release.patch)
    for line in found:
        env.warn(line)
    return replace(report, warnings=(*report.warnings, *found)) if found else report


def register(app: typer.Typer) -> None:
    app.command("explain-allocation", epilog=EXAMPLES)(with_flag_groups(explain_allocation))
