"""``dractl availability | claims | health | taints``: the inventory views.

Each command reads a world (``--snapshot``, ``-f`` files, or the live cluster), calls one
engine of :mod:`dractl.inventory`, and renders the report through the registry.  A view is a
:class:`View`: its own flags and a ``plan`` function that checks them and says how to build its
engine's report; the flags every view shares are declared once (:data:`SHARED_OPTIONS`, parsed
into :class:`ViewFlags`), and the shared wiring (sources, release, ``--watch``) is :func:`_show`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

import dractl.render.inventory  # noqa: F401  (registers the inventory writers)
from dractl.cli.cluster_options import (
    ConnectionFlags,
    LabelSelectorOpt,
    NodeOpt,
)
from dractl.cli.env import CliEnv
from dractl.cli.options import (
    FeatureGatesOpt,
    KubeVersionOpt,
    NoHeadersOpt,
    WorldFilesOpt,
    WorldSnapshotOpt,
    output_option,
)

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
WatchOpt = Annotated[
    bool, typer.Option("-w", "--watch", help="Re-render whenever the inputs change (Ctrl-C ends).")
]
IntervalOpt = Annotated[
    float,
    typer.Option(
        "--watch-interval",
        metavar="SECONDS",
        min=0.2,
        help="With --watch on -f/--snapshot: how often to look for changes (a live cluster is "
        "watched through the API).",
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


@dataclass(frozen=True, slots=True)
class ViewFlags:
    """The flags every view shares (the Options): where the world comes from (``-f``,
    ``--snapshot``, else the live cluster and its connection flags), the release, the output and
    ``--watch``."""

    files: tuple[str, ...] = ()
    snapshot: str | None = None
    kube_version: str | None = None
    feature_gates: str | None = None
    no_headers: bool = False
    watch: bool = False
    watch_interval: float = 2.0
    connection: ConnectionFlags = field(default_factory=ConnectionFlags)
    output: Any = None


# The shared flags: (Annotated alias, default), in --help order, after each view's own flags.
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "files": (WorldFilesOpt, None),
    "snapshot": (WorldSnapshotOpt, None),
    "kube_version": (KubeVersionOpt, None),
    "feature_gates": (FeatureGatesOpt, None),
    "no_headers": (NoHeadersOpt, False),
    "watch": (WatchOpt, False),
    "watch_interval": (IntervalOpt, 2.0),
    **ConnectionFlags.OPTIONS,
}


@dataclass(frozen=True, slots=True)
class Plan:
    """What a view asks of the wiring: ``build(world, features, context)`` makes its report;
    ``node`` and ``scope`` ((namespace, all namespaces)) narrow a live-cluster read.  Views other
    than claims read the claims of every namespace: what is allocated is cluster-wide."""

    build: Callable[[Any, Any, dict[str, Any]], Any]
    node: str | None = None
    scope: tuple[str | None, bool] = (None, True)


@dataclass(frozen=True, slots=True)
class View:
    """One view command: ``plan(flags, **its own flags)`` (its docstring is the --help text);
    ``cluster_wide`` views accept -A as kubectl users type it (they always read every namespace)."""

    name: str
    examples: str
    plan: Callable[..., Plan]
    cluster_wide: bool = True

    def command(self) -> Callable[..., None]:
        """The Typer command: the view's own flags, then :data:`SHARED_OPTIONS`, (-A), then -o."""
        own = list(inspect.signature(self.plan, eval_str=True).parameters.values())[1:]  # after ``flags``
        _, output_alias, output_default = output_option(self.name)
        shared = dict(SHARED_OPTIONS)
        if self.cluster_wide:
            shared["all_namespaces"] = (ClusterWideOpt, False)
        shared["output"] = (output_alias, output_default)
        params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
        params += [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]
        params += [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=alias, default=default)
            for name, (alias, default) in shared.items()
        ]
        names = {p.name for p in own}

        def command(ctx: typer.Context, **values: Any) -> None:
            if self.cluster_wide:
                del values["all_namespaces"]  # accepted; the view always reads every namespace
            given = {k: v for k, v in values.items() if k not in names}
            connection = ConnectionFlags(**{k: given.pop(k) for k in ConnectionFlags.OPTIONS})
            flags = ViewFlags(**{**given, "files": tuple(given["files"] or ())}, connection=connection)
            _show(ctx, self.name, self.plan(flags, **{k: values[k] for k in names}), flags)

        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__doc__ = self.plan.__doc__
        command.__name__ = self.name
        return command


def availability_plan(
    flags: ViewFlags,
    by: Annotated[
        str, typer.Option("--by", metavar="node|class", help="Rows per pool (node) or per class.")
    ] = "node",
    device_class: Annotated[
        str | None, typer.Option("--class", metavar="NAME", help="Only this DeviceClass.")
    ] = None,
    node: NodeOpt = None,
    selector: LabelSelectorOpt = None,
) -> Plan:
    """Show devices published, allocated, free, tainted and unhealthy per node, driver and pool.

    "Free" is what the allocator would give a new request now: shared counters (MIG),
    consumable capacity, taints and incomplete pools count.  Exit status: 0, 2 usage or
    input error, 3 cluster error.
    """
    from dractl.inventory.availability import AvailabilityOptions
    from dractl.inventory.availability import availability as engine

    if by not in ("node", "class"):
        _usage(f"--by {by}: one of node, class", "availability")
    sel = _selector(selector, "availability")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, AvailabilityOptions(features, by, device_class, node, sel, context))

    return Plan(build, node)


def claims_plan(
    flags: ViewFlags,
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
) -> Plan:
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
    local = bool(flags.files or flags.snapshot)
    ns = None if all_namespaces or (not local and not namespace) else (namespace or "default")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, ClaimsOptions(features, ns, sel, node, state, {**context, "namespace": ns}))

    return Plan(build, node, (namespace, all_namespaces))


def health_plan(
    flags: ViewFlags,
    unhealthy: Annotated[
        bool, typer.Option("--unhealthy", help="Only devices that are not healthy.")
    ] = False,
    node: NodeOpt = None,
    selector: LabelSelectorOpt = None,
) -> Plan:
    """Show device health from pod status, driver health taints and claim conditions.

    Lists the devices something reported on, with the claims and pods they affect.
    Exit status: 0, 2 usage or input error, 3 cluster error.
    """
    from dractl.inventory.health import HealthOptions
    from dractl.inventory.health import health as engine

    sel = _selector(selector, "health")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(
            world, HealthOptions(features, context.get("kubeVersion", ""), node, sel, unhealthy, context)
        )

    return Plan(build, node)


def taints_plan(
    flags: ViewFlags,
    effect: Annotated[
        str | None,
        typer.Option("--effect", metavar="NoSchedule|NoExecute|None", help="Only taints with this effect."),
    ] = None,
    node: NodeOpt = None,
    selector: LabelSelectorOpt = None,
) -> Plan:
    """Show device taints, the rule behind each, who tolerates them, and whom NoExecute evicts.

    Exit status: 0, 2 usage or input error, 3 cluster error.
    """
    from dractl.inventory.taints import TaintsOptions
    from dractl.inventory.taints import taints as engine

    if effect is not None and effect not in ("NoSchedule", "NoExecute", "None"):
        _usage(f"--effect {effect}: one of NoSchedule, NoExecute, None", "taints")
    sel = _selector(selector, "taints")

    def build(world: Any, features: Any, context: dict[str, Any]) -> Any:
        return engine(world, TaintsOptions(features, node, sel, effect, context))

    return Plan(build, node)


VIEWS = (
    View("availability", AVAILABILITY_EXAMPLES, availability_plan),
    View("claims", CLAIMS_EXAMPLES, claims_plan, cluster_wide=False),
    View("health", HEALTH_EXAMPLES, health_plan),
    View("taints", TAINTS_EXAMPLES, taints_plan),
)


# ----------------------------------------------------------------------------- wiring


def _usage(message: str, command: str) -> None:
    from dractl.errors import UsageError

    raise UsageError(message, command)


def _selector(text: str | None, command: str) -> Any:
    from dractl.inventory.labels import parse_selector

    return parse_selector(text, command)


def _show(ctx: typer.Context, command: str, plan: Plan, flags: ViewFlags) -> None:
    """Load the world, resolve release and gates, build the report, render it (and with
    ``--watch`` again whenever the rendered output would change)."""
    from dractl.cli import inventory_inputs as inputs
    from dractl.cli.cluster_options import progress_reporter
    from dractl.cli.process import keep_until_exit
    from dractl.render import render
    from dractl.render.inventory import table_options

    env = CliEnv.of(ctx)
    namespace, all_namespaces = plan.scope
    cluster = flags.connection.options(  # used only without -f/--snapshot
        namespace=namespace, all_namespaces=all_namespaces, node=plan.node, command=command
    )
    output = flags.output
    text_output = str(getattr(output, "value", output)) in ("table", "wide")
    with progress_reporter(env, enabled=text_output and not flags.watch) as progress:
        sources = inputs.sources(list(flags.files), flags.snapshot, command, cluster, env.warn, progress)

    def once(world: Any = None) -> Any:
        world = inputs.load(sources) if world is None else world
        version, features, overrides = inputs.release(
            world, flags.kube_version, flags.feature_gates, command, env.warn, env.kube_patch
        )
        return plan.build(world, features, inputs.context(world, version, overrides, features, sources))

    with table_options(no_headers=flags.no_headers), inputs.settled_heap():
        if flags.watch:
            inputs.watch(once, lambda r: render(r, output, env.out, command), flags.watch_interval, sources)
            return
        world = inputs.load(sources)
        keep_until_exit(world)  # the console script ends without freeing it
        with inputs.collector_paused():
            report = once(world)
            render(report, output, env.out, command)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    for view in VIEWS:
        app.command(view.name, epilog=view.examples)(view.command())
