"""``dractl capacity``: how many more copies fit, can a gang run now, where capacity is stranded."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

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
    target: TargetFlags = TargetFlags(),
    replicas: int | None = typer.Option(
        None, "--replicas", min=1, metavar="N", help="Gang size: can N copies be placed at the same time?"
    ),
    order: str = typer.Option(
        "name",
        "--order",
        metavar="name|most-free|least-free",
        help="Which node takes the next copy: the first in name order where it fits; the one with the "
        "most unallocated devices (spread); the one with the fewest (pack). Unallocated: devices with "
        "no allocation of any kind (the FREE DEVICES column counts free as availability does).",
    ),
    namespace: str | None = typer.Option(
        None,
        "-n",
        "--namespace",
        metavar="NAME",
        show_default=False,
        help="Namespace for names without one [default: the context's on a live cluster, else default].",
    ),
    files: WorldFilesOpt = None,
    snapshot: WorldSnapshotOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    whatif: WhatIfFlags = WhatIfFlags(),
    best_fit: bool = typer.Option(
        False,
        "--best-fit",
        help="Also count with fragmentation-aware placement (advice): each copy on the node, of the "
        "first 64 where it fits, whose allocation scores best by explain-allocation --best-fit's score. "
        "Within a node, the best-scoring of the allocator's device set and those its search finds with "
        "the candidates in up to three best-fit orders (bounded, not explain-allocation --best-fit's "
        "ranking of every device set; the output says so).",
    ),
    max_copies: int = typer.Option(
        100_000,
        "--max-copies",
        min=1,
        metavar="N",
        help="Stop counting at N. Copies that devices do not limit (claims without device requests) "
        "are reported as no limit after one copy, counted as the larger of N and --replicas.",
    ),
    allocator: AllocatorOpt = "auto",
    connection: ConnectionFlags = ConnectionFlags(),
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
    from dractl.cli.cluster_options import world_source
    from dractl.errors import UsageError
    from dractl.explain import inputs as inp
    from dractl.explain.capacity import ORDERS, CapacityOptions
    from dractl.explain.capacity import capacity as run

    env = CliEnv.of(ctx)
    with _bulk_heap():  # the collector off: see _bulk_heap
        pod = target.pod(COMMAND, "count copies of one pod at a time")
        if order not in ORDERS:
            raise UsageError(f"--order {order}: one of {', '.join(ORDERS)}", COMMAND)
        # The allocated state is cluster-wide: a live cluster's claims are read in every namespace.
        cluster = connection.options(namespace=namespace, all_namespaces=True, command=COMMAND)
        refs = [(pod.split("/")[0] if "/" in pod else (namespace or ""), pod.split("/")[-1])] if pod else []
        source = world_source(snapshot=snapshot, files=files or [], cluster=cluster, warn=env.warn, pods=refs)
        world = source.load(namespace or "default")
        namespace = namespace or getattr(getattr(source, "connection", None), "namespace", None) or "default"
        release = env.release(kube_version, feature_gates, inp.header_of(world))
        version, features, overrides = release.kube_version, release.features, release.overrides
        spec, extra = inp.target_spec(
            target.claim_files or [], target.claim or [], pod, namespace, version, features, COMMAND
        )
        opts = CapacityOptions(
            features=features,
            kube_version=version,
            order=order,
            replicas=replicas,
            best_fit=best_fit,
            implementation=allocator,
            max_copies=max_copies,
            feature_overrides=overrides,
            whatif=whatif.whatif(),
        )
        report = run(inp.merge(world, extra), spec, opts)
        from dractl.cli.cluster_options import with_missing

        report = with_missing(report, source, "notes")
        env.render(report, output)
        raise typer.Exit(report.exit_code)


# A young generation this large when the command ends: a big world was built.
_FREEZE_ABOVE = 1_000_000


@contextlib.contextmanager
def _bulk_heap() -> Iterator[None]:
    """The cyclic collector is off while the command runs.  It builds a large heap that holds
    no reference cycles to speak of (1,000 MIG nodes: millions of objects; an allocation
    attempt leaves none behind), and walking that heap again and again took ~1 s of the
    1,000-node MIG count.  After a big run, what was built is frozen (never walked again;
    reference counting still frees it) before the collector is back on: the process exits
    next."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > _FREEZE_ABOVE:
            gc.freeze()
        if enabled:
            gc.enable()


def register(app: typer.Typer) -> None:
    app.command("capacity", epilog=EXAMPLES)(with_flag_groups(capacity))
