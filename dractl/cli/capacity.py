"""``dractl capacity``: how many more copies fit, can a gang run now, where capacity is stranded."""

from __future__ import annotations

from typing import Annotated

import typer

from dractl.cli.cluster_options import (
    ChunkSizeOpt,
    ContextOpt,
    KubeconfigOpt,
    PartialOpt,
    RequestTimeoutOpt,
)
from dractl.cli.env import CliEnv
from dractl.cli.options import (
    FeatureGatesOpt,
    IgnoreAllocationsOpt,
    IgnoreTaintsOpt,
    KubeVersionOpt,
    output_option,
)

COMMAND = "capacity"
_, OutputOpt, DEFAULT_OUTPUT = output_option("capacity")

EXAMPLES = """\b
Examples:
  # How many more copies of the notebook pod fit in the demo cluster?
  dractl capacity --pod notebook -f examples/demo/

\b
  # Can a gang of 3 single-GPU claims run at the same time? (exit 1 if not)
  dractl capacity --claim single-gpu --replicas 3 -f examples/demo/

\b
  # The theoretical maximum on an empty cluster, and what best fit would gain
  dractl capacity --claim inference-mig --ignore-allocations --best-fit -f examples/demo/

\b
  # A claim file against a saved snapshot, fullest nodes first, as JSON
  dractl capacity claim.yaml --snapshot cluster.yaml --order least-free -o json

\b
  # On the live cluster of the current kubeconfig context: a pod of team-a, 16 at once?
  dractl capacity --pod team-a/trainer-0 --replicas 16
"""


def capacity(
    ctx: typer.Context,
    claim_files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="CLAIM_FILE",
            help="Files with the ResourceClaims (or templates) of one copy.",
            show_default=False,
        ),
    ] = None,
    claim: list[str] | None = typer.Option(
        None,
        "--claim",
        metavar="[NS/]NAME",
        help="A claim of the cluster whose shape is copied (repeatable).",
    ),
    pod: str | None = typer.Option(None, "--pod", metavar="[NS/]NAME", help="Copies of this pod."),
    replicas: int | None = typer.Option(
        None, "--replicas", min=1, metavar="N", help="Gang size: can N copies be placed at the same time?"
    ),
    order: str = typer.Option(
        "name",
        "--order",
        metavar="name|most-free|least-free",
        help="Which node takes the next copy: the first in name order where it fits; the one with the "
        "most free devices (spread); the one with the fewest (pack).",
    ),
    namespace: str | None = typer.Option(
        None,
        "-n",
        "--namespace",
        metavar="NAME",
        show_default=False,
        help="Namespace for names without one [default: the context's on a live cluster, else default].",
    ),
    files: list[str] | None = typer.Option(
        None, "-f", "--filename", metavar="PATH", help="Cluster objects: files or directories (repeatable)."
    ),
    snapshot: str | None = typer.Option(None, "--snapshot", metavar="FILE", help="A dractl snapshot."),
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    ignore_allocations: IgnoreAllocationsOpt = False,
    ignore_taints: IgnoreTaintsOpt = False,
    without_node: list[str] | None = typer.Option(
        None, "--without-node", metavar="NAME", help="As if the node were gone (repeatable)."
    ),
    best_fit: bool = typer.Option(
        False, "--best-fit", help="Also count with fragmentation-aware placement (advice)."
    ),
    max_copies: int = typer.Option(100_000, "--max-copies", min=1, metavar="N", help="Stop counting at N."),
    allocator: str = typer.Option(
        "auto",
        "--allocator",
        metavar="auto|stable|incubating|experimental",
        help="Allocator implementation (auto: the one Kubernetes picks for the version and gates).",
    ),
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = 500,
    partial: PartialOpt = False,
    output: OutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
) -> None:
    """Count how many more copies of a pod (or of a set of claims) fit, as the scheduler would place them.

    Copies are placed one after another, each allocated exactly as the allocator would,
    on the first node in --order where it fits; every placement counts as allocated
    before the next.  Shows copies per node and pool, why the next copy fits nowhere,
    and free devices this shape cannot use (stranded capacity).

    Without -f or --snapshot, reads the live cluster of the kubeconfig context (read-only;
    claims of every namespace, since what is allocated is cluster-wide).

    Exit status: 0 at least --replicas (default 1) copies fit, 1 fewer fit, 2 bad input
    or usage, 3 cluster errors.
    """
    from dractl.cli.cluster_options import cluster_options, world_source
    from dractl.errors import UsageError
    from dractl.explain import inputs as inp
    from dractl.explain.capacity import ORDERS, CapacityOptions
    from dractl.explain.capacity import capacity as run
    from dractl.explain.whatif import WhatIf

    env = CliEnv.of(ctx)
    if order not in ORDERS:
        raise UsageError(f"--order {order}: one of {', '.join(ORDERS)}", COMMAND)
    # The allocated state is cluster-wide: a live cluster's claims are read in every namespace.
    cluster = cluster_options(
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        all_namespaces=True,
        request_timeout=request_timeout,
        chunk_size=chunk_size,
        partial=partial,
        command=COMMAND,
    )
    pods = [(pod.split("/")[0] if "/" in pod else (namespace or ""), pod.split("/")[-1])] if pod else []
    source = world_source(snapshot=snapshot, files=files or [], cluster=cluster, warn=env.warn, pods=pods)
    world = source.load(namespace or "default")
    namespace = namespace or getattr(getattr(source, "connection", None), "namespace", None) or "default"
    release = env.release(kube_version, feature_gates, inp.header_of(world))
    version, features, overrides = release.kube_version, release.features, release.overrides
    spec, extra = inp.target_spec(claim_files or [], claim or [], pod, namespace, version, features, COMMAND)
    opts = CapacityOptions(
        features=features,
        kube_version=version,
        order=order,
        replicas=replicas,
        best_fit=best_fit,
        implementation=allocator,
        max_copies=max_copies,
        feature_overrides=overrides,
        whatif=WhatIf(ignore_allocations, ignore_taints, tuple(without_node or ())),
    )
    report = run(inp.merge(world, extra), spec, opts)
    env.render(report, output)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command("capacity", epilog=EXAMPLES)(capacity)
