"""``dractl availability | claims | health | taints``: the inventory views.

Each command reads a world (``--snapshot``, ``-f`` files, or the live cluster), calls one
engine of :mod:`dractl.inventory`, and renders the report through the registry.  The
shared wiring (sources, release, ``--watch``) is :func:`_show`; the commands only build
their engine's options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

import dractl.render.inventory  # noqa: F401  (registers the inventory writers)
from dractl.cli.cluster_options import (
    ChunkSizeOpt,
    ContextOpt,
    KubeconfigOpt,
    PartialOpt,
    RequestTimeoutOpt,
)
from dractl.cli.env import CliEnv
from dractl.cli.options import FeatureGatesOpt, KubeVersionOpt, output_option
from dractl.cluster.options import DEFAULT_CHUNK_SIZE

_, AvailabilityOutput, DEFAULT_AVAILABILITY = output_option("availability")
_, ClaimsOutput, DEFAULT_CLAIMS = output_option("claims")
_, HealthOutput, DEFAULT_HEALTH = output_option("health")
_, TaintsOutput, DEFAULT_TAINTS = output_option("taints")

FilesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "-f", "--filename", metavar="PATH", help="Cluster objects: files or directories (repeatable)."
    ),
]
SnapshotOpt = Annotated[str | None, typer.Option("--snapshot", metavar="FILE", help="A dractl snapshot.")]
NodeOpt = Annotated[str | None, typer.Option("--node", metavar="NAME", help="Only this node.")]
NodeSelectorOpt = Annotated[
    str | None,
    typer.Option(
        "-l",
        "--selector",
        metavar="SELECTOR",
        help="Only nodes with these labels (kubectl syntax: a=b,c!=d).",
    ),
]
NamespaceOpt = Annotated[
    str | None,
    typer.Option("-n", "--namespace", metavar="NS", help="Namespace of the claims [default: default]."),
]
AllNamespacesOpt = Annotated[bool, typer.Option("-A", "--all-namespaces", help="Claims of every namespace.")]
ClusterWideOpt = Annotated[
    bool,
    typer.Option(
        "-A",
        "--all-namespaces",
        help="Accepted as in kubectl: this view always reads the claims of every namespace.",
    ),
]
NoHeadersOpt = Annotated[bool, typer.Option("--no-headers", help="Tables: leave out the column headers.")]
WatchOpt = Annotated[
    bool, typer.Option("-w", "--watch", help="Re-render whenever the inputs change (Ctrl-C ends).")
]
IntervalOpt = Annotated[
    float,
    typer.Option(
        "--watch-interval", metavar="SECONDS", min=0.2, help="With --watch: how often to look for changes."
    ),
]

AVAILABILITY_EXAMPLES = """\b
Examples:
  # Free, allocated, tainted and unhealthy devices per node and pool of the demo cluster
  dractl availability -f examples/demo/

\b
  # Per DeviceClass, with the KEP-5677 counts (available/unavailable) too
  dractl availability --by class -o wide -f examples/demo/

\b
  # Whole GPUs on one node of a snapshot, as JSON
  dractl availability --class gpu.nvidia.com --node gpu-node-1 --snapshot cluster.yaml -o json
"""
CLAIMS_EXAMPLES = """\b
Examples:
  # Every claim of the demo cluster: state, devices, node, pods
  dractl claims -A -f examples/demo/

\b
  # Requests, configs (by name only) and device conditions
  dractl claims -A -o wide -f examples/demo/

\b
  # Claims that hold devices but are reserved for nobody
  dractl claims -A --state allocated -f examples/demo/
"""
HEALTH_EXAMPLES = """\b
Examples:
  # Device health from pod status, driver health taints and claim conditions
  dractl health -f examples/demo/

\b
  # Only what is not healthy, with the details of every report
  dractl health --unhealthy -o wide -f examples/demo/
"""
TAINTS_EXAMPLES = """\b
Examples:
  # Device taints, their rules, and the running pods a NoExecute taint evicts
  dractl taints -f examples/demo/

\b
  # NoExecute taints only, with time added and tolerating claims
  dractl taints --effect NoExecute -o wide -f examples/demo/
"""


def availability(
    ctx: typer.Context,
    by: Annotated[
        str, typer.Option("--by", metavar="node|class", help="Rows per pool (node) or per class.")
    ] = "node",
    device_class: Annotated[
        str | None, typer.Option("--class", metavar="NAME", help="Only this DeviceClass.")
    ] = None,
    node: NodeOpt = None,
    selector: NodeSelectorOpt = None,
    files: FilesOpt = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    no_headers: NoHeadersOpt = False,
    watch: WatchOpt = False,
    watch_interval: IntervalOpt = 2.0,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = DEFAULT_CHUNK_SIZE,
    partial: PartialOpt = False,
    all_namespaces: ClusterWideOpt = False,
    output: AvailabilityOutput = DEFAULT_AVAILABILITY,  # type: ignore[valid-type]
) -> None:
    """Show devices published, allocated, free, tainted and unhealthy per node, driver and pool.

    "Free" is what the allocator would give a new request now: shared counters (MIG),
    consumable capacity, taints and incomplete pools count.  Exit status: 0, 2 usage or
    input error, 3 cluster error.
    """
    del all_namespaces  # what is allocated is cluster-wide: claims are always read everywhere
    from dractl.inventory.availability import AvailabilityOptions
    from dractl.inventory.availability import availability as engine

    if by not in ("node", "class"):
        _usage(f"--by {by}: one of node, class", "availability")
    sel = _selector(selector, "availability")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, AvailabilityOptions(features, by, device_class, node, sel, context))

    _show(
        ctx,
        "availability",
        build,
        files,
        snapshot,
        kube_version,
        feature_gates,
        output,
        no_headers,
        watch,
        watch_interval,
        _cluster(
            kubeconfig, context, request_timeout, chunk_size, partial, node, (None, True), "availability"
        ),
    )


def claims(
    ctx: typer.Context,
    namespace: NamespaceOpt = None,
    all_namespaces: AllNamespacesOpt = False,
    selector: Annotated[
        str | None,
        typer.Option(
            "-l", "--selector", metavar="SELECTOR", help="Only claims with these labels (kubectl syntax)."
        ),
    ] = None,
    node: NodeOpt = None,
    state: Annotated[
        str | None,
        typer.Option(
            "--state", metavar="pending|allocated|reserved|deleting", help="Only claims in this state."
        ),
    ] = None,
    files: FilesOpt = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    no_headers: NoHeadersOpt = False,
    watch: WatchOpt = False,
    watch_interval: IntervalOpt = 2.0,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = DEFAULT_CHUNK_SIZE,
    partial: PartialOpt = False,
    output: ClaimsOutput = DEFAULT_CLAIMS,  # type: ignore[valid-type]
) -> None:
    """Show ResourceClaims: state, the exact devices each got, node, pods, device conditions.

    A claim allocated but reserved for nobody is called out: it holds devices nobody uses.
    Exit status: 0, 2 usage or input error, 3 cluster error.
    """
    from dractl.inventory.claims import STATES, ClaimsOptions
    from dractl.inventory.claims import claims as engine

    if state is not None and state not in STATES:
        _usage(f"--state {state}: one of {', '.join(STATES)}", "claims")
    if all_namespaces and namespace:
        _usage("-n/--namespace and -A/--all-namespaces exclude each other", "claims")
    sel = _selector(selector, "claims")
    # files and snapshots hold every namespace: filter (default: default); a cluster read is
    # already scoped to -n, -A or the context's namespace
    ns = None if all_namespaces or (not (files or snapshot) and not namespace) else (namespace or "default")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, ClaimsOptions(features, ns, sel, node, state, {**context, "namespace": ns}))

    _show(
        ctx,
        "claims",
        build,
        files,
        snapshot,
        kube_version,
        feature_gates,
        output,
        no_headers,
        watch,
        watch_interval,
        _cluster(
            kubeconfig,
            context,
            request_timeout,
            chunk_size,
            partial,
            node,
            (namespace, all_namespaces),
            "claims",
        ),
    )


def health(
    ctx: typer.Context,
    unhealthy: Annotated[
        bool, typer.Option("--unhealthy", help="Only devices that are not healthy.")
    ] = False,
    node: NodeOpt = None,
    selector: NodeSelectorOpt = None,
    files: FilesOpt = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    no_headers: NoHeadersOpt = False,
    watch: WatchOpt = False,
    watch_interval: IntervalOpt = 2.0,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = DEFAULT_CHUNK_SIZE,
    partial: PartialOpt = False,
    all_namespaces: ClusterWideOpt = False,
    output: HealthOutput = DEFAULT_HEALTH,  # type: ignore[valid-type]
) -> None:
    """Show device health from pod status, driver health taints and claim conditions.

    Lists the devices something reported on, with the claims and pods they affect.
    Exit status: 0, 2 usage or input error, 3 cluster error.
    """
    del all_namespaces  # what is allocated is cluster-wide: claims are always read everywhere
    from dractl.inventory.health import HealthOptions
    from dractl.inventory.health import health as engine

    sel = _selector(selector, "health")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(
            world, HealthOptions(features, context.get("kubeVersion", ""), node, sel, unhealthy, context)
        )

    _show(
        ctx,
        "health",
        build,
        files,
        snapshot,
        kube_version,
        feature_gates,
        output,
        no_headers,
        watch,
        watch_interval,
        _cluster(kubeconfig, context, request_timeout, chunk_size, partial, node, (None, True), "health"),
    )


def taints(
    ctx: typer.Context,
    effect: Annotated[
        str | None,
        typer.Option("--effect", metavar="NoSchedule|NoExecute|None", help="Only taints with this effect."),
    ] = None,
    node: NodeOpt = None,
    selector: NodeSelectorOpt = None,
    files: FilesOpt = None,
    snapshot: SnapshotOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    no_headers: NoHeadersOpt = False,
    watch: WatchOpt = False,
    watch_interval: IntervalOpt = 2.0,
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = None,
    chunk_size: ChunkSizeOpt = DEFAULT_CHUNK_SIZE,
    partial: PartialOpt = False,
    all_namespaces: ClusterWideOpt = False,
    output: TaintsOutput = DEFAULT_TAINTS,  # type: ignore[valid-type]
) -> None:
    """Show device taints, the rule behind each, who tolerates them, and whom NoExecute evicts.

    Exit status: 0, 2 usage or input error, 3 cluster error.
    """
    del all_namespaces  # what is allocated is cluster-wide: claims are always read everywhere
    from dractl.inventory.taints import TaintsOptions
    from dractl.inventory.taints import taints as engine

    if effect is not None and effect not in ("NoSchedule", "NoExecute", "None"):
        _usage(f"--effect {effect}: one of NoSchedule, NoExecute, None", "taints")
    sel = _selector(selector, "taints")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, TaintsOptions(features, node, sel, effect, context))

    _show(
        ctx,
        "taints",
        build,
        files,
        snapshot,
        kube_version,
        feature_gates,
        output,
        no_headers,
        watch,
        watch_interval,
        _cluster(kubeconfig, context, request_timeout, chunk_size, partial, node, (None, True), "taints"),
    )


# ----------------------------------------------------------------------------- wiring


def _usage(message: str, command: str) -> None:
    from dractl.errors import UsageError

    raise UsageError(message, command)


def _selector(text: str | None, command: str) -> Any:
    from dractl.inventory.labels import parse_selector

    return parse_selector(text, command)


def _show(
    ctx: typer.Context,
    command: str,
    build: Callable[[Any, Any, dict[str, Any]], Any],
    files: list[str] | None,
    snapshot: str | None,
    kube_version: str | None,
    feature_gates: str | None,
    output: Any,
    no_headers: bool,
    watch: bool,
    interval: float,
    cluster: Any,
) -> None:
    """Load the world, resolve release and gates, build the report, render it (and with
    ``--watch`` again whenever the rendered output would change)."""
    from dractl.cli import inventory_inputs as inputs
    from dractl.cli.cluster_options import progress_reporter
    from dractl.render import render
    from dractl.render.inventory import table_options

    env = CliEnv.of(ctx)
    text_output = str(getattr(output, "value", output)) in ("table", "wide")
    with progress_reporter(env, enabled=text_output and not watch) as progress:
        sources = inputs.sources(files or [], snapshot, command, cluster, env.warn, progress)

    def once(world: Any = None) -> Any:
        world = inputs.load(sources) if world is None else world
        version, features, overrides = inputs.release(world, kube_version, feature_gates, command, env.warn)
        return build(world, features, inputs.context(world, version, overrides))

    with table_options(no_headers=no_headers):
        if watch:
            inputs.watch(once, lambda r: render(r, output, env.out, command), interval, sources)
            return
        report = once()
        render(report, output, env.out, command)
    raise typer.Exit(report.exit_code)


def _cluster(
    kubeconfig: str | None,
    context: str | None,
    request_timeout: str | None,
    chunk_size: int,
    partial: bool,
    node: str | None,
    scope: tuple[str | None, bool],
    command: str,
) -> Any:
    """The live-cluster options (used only without -f/--snapshot).  Views other than claims read
    claims of every namespace: what is allocated is cluster-wide."""
    from dractl.cli.cluster_options import cluster_options

    namespace, all_namespaces = scope
    return cluster_options(
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        all_namespaces=all_namespaces,
        request_timeout=request_timeout,
        chunk_size=chunk_size,
        partial=partial,
        node=node,
        command=command,
    )


def register(app: typer.Typer) -> None:
    app.command("availability", epilog=AVAILABILITY_EXAMPLES)(availability)
    app.command("claims", epilog=CLAIMS_EXAMPLES)(claims)
    app.command("health", epilog=HEALTH_EXAMPLES)(health)
    app.command("taints", epilog=TAINTS_EXAMPLES)(taints)
