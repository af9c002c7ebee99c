"""``dractl generate claim|template|class|slice|taint-rule``: manifests that pass ``dractl lint``.

Each command builds documents with the pure :mod:`dractl.generate` engine, lints them with
the validation engine at the chosen ``--kube-version`` (the same checks as ``dractl lint``)
and writes them only when there is no finding at all; otherwise it is a one-line usage error
naming the flag or the finding.  ``--interactive`` lives in :mod:`dractl.cli.generate_interactive`.
"""

from __future__ import annotations

import io
from dataclasses import replace
from enum import Enum
from typing import Annotated, Any

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import FeatureGatesOpt, kube_version_callback
from dractl.errors import UsageError


class GenFormat(str, Enum):
    yaml = "yaml"
    json = "json"


OutOpt = Annotated[
    GenFormat, typer.Option("-o", "--output", help="Output format: yaml, json.", case_sensitive=False)
]
KubeOpt = Annotated[  # parsed like every --kube-version (1.35, v1.35, 1.35.2); the command gets the minor
    str,
    typer.Option(
        "--kube-version",
        metavar="1.34|…|1.37",
        callback=kube_version_callback,
        is_eager=True,
        help="Kubernetes release the manifest must be valid for.",
    ),
]
Multi = list[str] | None


def _opt(*names: str, metavar: str, help: str) -> Any:
    return typer.Option(None, *names, metavar=metavar, help=help, show_default=False)


def _features(kube_version: str, gates: str | None, command: str, env: CliEnv) -> Any:
    from dractl.io.release import resolve_release

    return resolve_release(kube_version, gates, command=command, warn=env.warn).features


# Cross-object findings about the rest of the cluster: without a context (-f/--snapshot) they
# only say "not in the inputs"; with one, they count like every other finding.
NEEDS_CONTEXT = frozenset(
    {
        "ADV-CLASS-EXISTS",
        "LINT-SELECTOR-UNKNOWN-ATTRIBUTE",
        "LINT-SELECTOR-NO-MATCH",
        "LINT-REQUEST-EXCEEDS-NODE",
        "RC-ADMIN-NS",
        "RCT-ADMIN",
    }
)


def lint_findings(
    text: str, kube_version: str, features: Any, context: Any = None, runtime: Any = None
) -> list[Any]:
    """Every finding ``dractl lint`` (``--snapshot`` = ``context``, a LoadResult) reports for ``text``;
    without a context, the findings that only say another object is missing are left out."""
    from dractl.io.loader import load_paths
    from dractl.validate.engine import validate_docs
    from dractl.validate.lint import lint, settle_offline_warnings
    from dractl.validate.options import ValidateOptions

    loaded = load_paths(["-"], stdin=io.BytesIO(text.encode()))
    if loaded.errors:
        raise loaded.errors[0]
    opts = ValidateOptions(kube_version=kube_version, features=features)
    if runtime is not None:
        opts = replace(opts, runtime=runtime)
    report = validate_docs(loaded.docs, opts, files=loaded.files)
    ctx_docs = context.docs if context is not None else []
    found = [
        *settle_offline_warnings(report.findings, loaded.docs, ctx_docs),
        *lint(loaded.docs, opts, context_docs=ctx_docs),
    ]
    return found if context is not None else [f for f in found if f.rule not in NEEDS_CONTEXT]


def load_context(files: list[str] | None, snapshot: str | None) -> Any:
    """The cluster objects of ``-f``/``--snapshot`` (a LoadResult), None when neither is given;
    an unreadable input is an InputError."""
    from dractl.io.loader import load_paths

    paths = [*(files or []), *([snapshot] if snapshot else [])]
    if not paths:
        return None
    loaded = load_paths(paths)
    if loaded.errors:
        raise loaded.errors[0]
    return loaded


def emit(
    ctx: typer.Context,
    docs: list[dict[str, Any]],
    output: GenFormat,
    kube_version: str,
    features: Any,
    command: str,
    context: Any = None,
    runtime: Any = None,
) -> None:
    """Lint ``docs``; write them when clean, else raise a UsageError with the first finding."""
    from dractl.generate import dump

    text = dump(docs, output.value)
    found = lint_findings(
        text if output is GenFormat.yaml else dump(docs, "yaml"), kube_version, features, context, runtime
    )
    if found:
        f = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UsageError(
            f"the generated {f.kind or 'object'} would not pass dractl lint for Kubernetes "
            f"{kube_version}: {f.rule}: {f.path + ': ' if f.path else ''}{f.message}{more}",
            command,
        )
    CliEnv.of(ctx).write(text)


def _usage(command: str) -> Any:
    """Run a builder, pointing its UsageErrors at ``dractl generate <command> --help``."""

    def wrap(fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UsageError as e:
            raise UsageError(e.message, command) from None

    return wrap


CLAIM_EXAMPLES = """\b
Examples:
  # Two GPUs on one PCIe root, each with at least 40Gi of memory
  dractl generate claim gpu-pair --class gpu.nvidia.com --count 2 --min-capacity memory=40Gi \\
      --match-attribute resource.kubernetes.io/pcieRoot

\b
  # One 80Gi GPU, else two 40Gi GPUs (a prioritized list)
  dractl generate claim big-or-two --class gpu.nvidia.com \\
      --first-available 'count=1,min-capacity=memory=80Gi' \\
      --first-available 'count=2,min-capacity=memory=40Gi'

\b
  # An A100 by product name that tolerates the XID taint, checked against the demo cluster
  dractl generate claim a100 --class gpu.nvidia.com --attr "productName~='A100'" \\
      --toleration gpu.nvidia.com/xid:Exists:NoSchedule -f examples/demo/

\b
  # Walk through it, with the classes and attributes of the demo cluster
  dractl generate claim --interactive -f examples/demo/
"""


def _claim_spec(
    name: str | None,
    namespace: str | None,
    device_class: str | None,
    request: str | None,
    count: int | None,
    all_devices: bool,
    attr: Multi,
    min_capacity: Multi,
    cel: Multi,
    match_attribute: Multi,
    toleration: Multi,
    admin_access: bool,
    capacity_request: Multi,
    first_available: Multi,
    driver: str | None,
    features: Any,
) -> Any:
    from dractl.generate import ClaimSpec, RequestSpec, parse_first_available

    if not name:
        raise UsageError("missing NAME (or use --interactive)")
    req = RequestSpec(
        name=request or "",
        device_class=device_class or "",
        count=count,
        all=all_devices,
        attrs=tuple(attr or ()),
        min_capacity=tuple(min_capacity or ()),
        cel=tuple(cel or ()),
        tolerations=tuple(toleration or ()),
        admin_access=admin_access,
        capacity_requests=tuple(capacity_request or ()),
    )
    return ClaimSpec(
        name=name,
        namespace=namespace,
        request=req,
        first_available=tuple(parse_first_available(t) for t in first_available or ()),
        match_attributes=tuple(match_attribute or ()),
        driver=driver,
        features=features,
    )


def _claim_command(kind: str, command: str) -> Any:
    def generate_claim(
        ctx: typer.Context,
        name: Annotated[
            str | None, typer.Argument(metavar="NAME", help="Name of the claim.", show_default=False)
        ] = None,
        namespace: str | None = _opt(
            "-n", "--namespace", metavar="NAMESPACE", help="Namespace of the claim."
        ),
        device_class: str | None = _opt("--class", metavar="NAME", help="DeviceClass to request devices of."),
        request: str | None = _opt(
            "--request", metavar="NAME", help="Name of the request [default: the class's first DNS label]."
        ),
        count: int | None = _opt("--count", metavar="N", help="Number of devices [default: 1]."),
        all_devices: bool = typer.Option(False, "--all", help="All matching devices (allocationMode All)."),
        attr: Multi = _opt(
            "--attr",
            metavar="NAME OP VALUE",
            help="Attribute condition: =, !=, <, <=, >, >=, ~= (regex); 'x' strings, 1.2.3 "
            "versions (repeatable).",
        ),
        min_capacity: Multi = _opt(
            "--min-capacity",
            metavar="NAME=QUANTITY",
            help="At least this much capacity, e.g. memory=40Gi (repeatable).",
        ),
        cel: Multi = _opt("--cel", metavar="EXPRESSION", help="A CEL selector, as is (repeatable)."),
        match_attribute: Multi = _opt(
            "--match-attribute", metavar="NAME", help="All devices share this attribute's value (repeatable)."
        ),
        toleration: Multi = _opt(
            "--toleration",
            metavar="KEY[=VALUE][:OPERATOR][:EFFECT]",
            help="Tolerate a device taint (repeatable).",
        ),
        admin_access: bool = typer.Option(
            False, "--admin-access", help="Admin access (monitoring, no exclusivity)."
        ),
        capacity_request: Multi = _opt(
            "--capacity-request",
            metavar="NAME=QUANTITY",
            help="Consume part of a shared device's capacity (repeatable).",
        ),
        first_available: Multi = _opt(
            "--first-available",
            metavar="KEY=VALUE,...",
            help="An alternative, tried in order: count=, class=, min-capacity=, attr=, "
            "cel=, all, name= (repeatable).",
        ),
        driver: str | None = _opt(
            "--driver",
            metavar="NAME",
            help="Domain of unqualified attribute names [default: the class name].",
        ),
        interactive: bool = typer.Option(
            False, "--interactive", "-i", help="Ask for each field (Rich prompts)."
        ),
        files: Multi = _opt(
            "-f",
            "--filename",
            metavar="PATH",
            help="Cluster objects to lint against (and, with --interactive, to offer from).",
        ),
        snapshot: str | None = _opt("--snapshot", metavar="FILE", help="A dractl snapshot, as -f."),
        kube_version: KubeOpt = "1.37",
        feature_gates: FeatureGatesOpt = None,
        output: OutOpt = GenFormat.yaml,
    ) -> None:
        env = CliEnv.of(ctx)
        features = _features(kube_version, feature_gates, command, env)
        context = load_context(files, snapshot)
        if interactive:
            from dractl.cli.generate_interactive import interactive_claim

            docs = interactive_claim(
                env, kind, context, files or [], snapshot, name, namespace, kube_version, features
            )
        else:
            from dractl.generate import claim_doc

            wrap = _usage(command)
            spec = wrap(
                _claim_spec,
                name,
                namespace,
                device_class,
                request,
                count,
                all_devices,
                attr,
                min_capacity,
                cel,
                match_attribute,
                toleration,
                admin_access,
                capacity_request,
                first_available,
                driver,
                features,
            )
            docs = [wrap(claim_doc, spec, kind)]
        emit(ctx, docs, output, kube_version, features, command, context)

    generate_claim.__doc__ = (
        f"Generate a {'ResourceClaimTemplate' if 'Template' in kind else 'ResourceClaim'}"
        " whose selectors are correct CEL, checked by dractl lint.\n\n"
        "    Quantities compare with compareTo(quantity()), versions with semver(), and "
        "every attribute is\n    guarded with has().  Exit status: 0 written, 2 usage "
        "error or a lint finding.\n    "
    )
    return generate_claim


CLASS_EXAMPLES = """\b
Examples:
  # A class for every GPU of a driver that also backs the extended resource nvidia.com/gpu
  dractl generate class gpu.example.com --driver gpu.example.com --attr "type='gpu'" \\
      --extended-resource-name example.com/gpu

\b
  # DeviceClasses and a matching claim from what dractl discover found on this node
  dractl generate class --from-discover slices.yaml
"""


def generate_class(
    ctx: typer.Context,
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="Name of the class.", show_default=False)
    ] = None,
    driver: str | None = _opt("--driver", metavar="NAME", help="Only devices of this driver."),
    attr: Multi = _opt("--attr", metavar="NAME OP VALUE", help="Attribute condition, as in generate claim."),
    cel: Multi = _opt("--cel", metavar="EXPRESSION", help="A CEL selector, as is (repeatable)."),
    extended_resource_name: str | None = _opt(
        "--extended-resource-name",
        metavar="NAME",
        help="Extended resource backed by this class, e.g. nvidia.com/gpu.",
    ),
    from_discover: str | None = _opt(
        "--from-discover",
        metavar="FILE",
        help="dractl discover -o yaml output: a class per driver/type and claims.",
    ),
    namespace: str | None = _opt(
        "-n", "--namespace", metavar="NAMESPACE", help="With --from-discover: namespace of the claims."
    ),
    kube_version: KubeOpt = "1.37",
    feature_gates: FeatureGatesOpt = None,
    output: OutOpt = GenFormat.yaml,
) -> None:
    """Generate a DeviceClass (or classes and claims from dractl discover output).

    Exit status: 0 written, 2 usage error, unreadable input or a lint finding.
    """
    from dractl import generate as gen

    env, wrap = CliEnv.of(ctx), _usage("generate class")
    features = _features(kube_version, feature_gates, "generate class", env)
    if from_discover:
        if name or driver or attr or cel or extended_resource_name:
            raise UsageError(
                "--from-discover takes no NAME, --driver, --attr, --cel or --extended-resource-name",
                "generate class",
            )
        docs = wrap(gen.from_discover, _read_docs(from_discover), features, namespace)
    else:
        if not name:
            raise UsageError("missing NAME (or use --from-discover FILE)", "generate class")
        docs = [
            wrap(
                gen.class_doc,
                gen.ClassSpec(
                    name, driver, tuple(attr or ()), tuple(cel or ()), extended_resource_name, features
                ),
            )
        ]
    emit(ctx, docs, output, kube_version, features, "generate class")


def _read_docs(path: str) -> list[dict[str, Any]]:
    from dractl.io.loader import load_paths

    loaded = load_paths([path])
    if loaded.errors:
        raise loaded.errors[0]
    return [d.raw for d in loaded.docs]


SLICE_EXAMPLES = """\b
Examples:
  # Copy gpu-node-1's pool of the demo cluster onto 100 fake nodes (KWOK, kind)
  dractl generate slice --like examples/demo/slices-gpu-node-1.yaml --nodes node-{0..99}

\b
  # Four GPUs per node, counter sets split into their own slice as 1.35+ requires
  dractl generate slice --like examples/demo/slices-gpu-node-1.yaml --count 4 --nodes kwok-{0..9}

\b
  # From a compact device list (YAML, or CSV with name, attribute and capacity.X columns)
  dractl generate slice --from-file devices.csv --driver gpu.example.com --nodes node-a,node-b
"""


def generate_slice(
    ctx: typer.Context,
    more_nodes: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[NODE]...",
            help="More nodes (what a shell makes of --nodes node-{0..99}).",
            show_default=False,
        ),
    ] = None,
    from_file: str | None = _opt(
        "--from-file",
        metavar="FILE",
        help="Compact device list: YAML (devices: name, attributes, capacity, consumes; counterSets) or CSV.",
    ),
    like: str | None = _opt("--like", metavar="FILE", help="ResourceSlices of one node to copy."),
    nodes: Multi = _opt("--nodes", metavar="NAMES", help="Nodes, e.g. node-{0..99} or a,b,c (repeatable)."),
    count: int | None = _opt("--count", metavar="N", help="With --like: physical devices per node."),
    driver: str | None = _opt("--driver", metavar="NAME", help="With --from-file: the driver name."),
    pool: str | None = _opt(
        "--pool", metavar="NAME", help="With --from-file: pool name [default: the node]."
    ),
    kube_version: KubeOpt = "1.37",
    feature_gates: FeatureGatesOpt = None,
    output: OutOpt = GenFormat.yaml,
) -> None:
    """Generate ResourceSlices for test clusters, from a device list or by copying a node's pool.

    Exit status: 0 written, 2 usage error, unreadable input or a lint finding.
    """
    from dractl import generate as gen

    env, wrap, command = CliEnv.of(ctx), _usage("generate slice"), "generate slice"
    features = _features(kube_version, feature_gates, command, env)
    names = wrap(gen.expand_nodes, [*(nodes or []), *(more_nodes or [])])
    if (from_file is None) == (like is None):
        raise UsageError("give exactly one of --from-file FILE and --like FILE", command)
    if like is not None:
        docs = wrap(gen.like_docs, _read_docs(like), like, gen.LikeSpec(names, count, kube_version))
    else:
        if count is not None:
            raise UsageError("--count goes with --like", command)
        text = _read_text(str(from_file))
        docs = wrap(gen.slice_docs, text, from_file, gen.SliceSpec(driver or "", names, pool, kube_version))
    emit(ctx, docs, output, kube_version, features, command)


def _read_text(path: str) -> str:
    from dractl.errors import InputError, SourcePos

    try:
        with open(path, "rb") as fh:
            data = fh.read(64 * 2**20 + 1)
    except OSError as e:
        raise InputError(e.strerror or str(e), SourcePos(path)) from None
    if len(data) > 64 * 2**20:
        raise InputError("larger than 64Mi", SourcePos(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 (byte {e.start})", SourcePos(path)) from None


TAINT_EXAMPLES = """\b
Examples:
  # Keep new pods off GPU 3 of gpu-node-2 after an XID 79 (running pods stay)
  dractl generate taint-rule --device gpu.nvidia.com/gpu-node-2/gpu-3 --key gpu.nvidia.com/xid --value 79

\b
  # Evict everything from a whole pool before maintenance
  dractl generate taint-rule --device gpu.nvidia.com/gpu-node-1 --key example.com/maintenance \\
      --effect NoExecute
"""


def generate_taint_rule(
    ctx: typer.Context,
    device: str = typer.Option(
        ..., "--device", metavar="DRIVER[/POOL[/DEVICE]]", help="Devices to taint.", show_default=False
    ),
    key: str = typer.Option(
        ..., "--key", metavar="KEY", help="Taint key, e.g. gpu.nvidia.com/xid.", show_default=False
    ),
    value: str | None = _opt("--value", metavar="VALUE", help="Taint value."),
    effect: str = typer.Option(
        "NoSchedule",
        "--effect",
        metavar="NoSchedule|NoExecute|None",
        help="NoExecute also evicts running pods.",
    ),
    name: str | None = _opt(
        "--name", metavar="NAME", help="Name of the rule [default: from device and key]."
    ),
    runtime_config: str | None = _opt(
        "--runtime-config",
        metavar="KEY=BOOL,...",
        help="API versions the cluster enables, as kube-apiserver's flag (resource.k8s.io/v1beta2=true).",
    ),
    kube_version: KubeOpt = "1.37",
    feature_gates: FeatureGatesOpt = None,
    output: OutOpt = GenFormat.yaml,
) -> None:
    """Generate a DeviceTaintRule that taints one device, a pool or all devices of a driver.

    Exit status: 0 written, 2 usage error or a lint finding.
    """
    from dractl import generate as gen

    env, wrap = CliEnv.of(ctx), _usage("generate taint-rule")
    features = _features(kube_version, feature_gates, "generate taint-rule", env)
    runtime = _runtime(runtime_config, "generate taint-rule")
    doc = wrap(
        gen.taint_rule_doc,
        gen.TaintRuleSpec(device, key, effect, value, name),
        kube_version,
        lambda v: _serves(v, "DeviceTaintRule", kube_version, runtime),
    )
    emit(ctx, [doc], output, kube_version, features, "generate taint-rule", runtime=runtime)


def _runtime(spec: str | None, command: str) -> Any:
    from dractl.validate.versions import DEFAULT_RUNTIME, RuntimeConfig

    if not spec:
        return DEFAULT_RUNTIME
    try:
        return RuntimeConfig.parse(spec)
    except ValueError as e:
        raise UsageError(f"--runtime-config: {e}", command) from None


def _serves(version: str, kind: str, kube_version: str, runtime: Any) -> bool:
    from dractl.validate.versions import Availability, check

    return check(version, kind, kube_version, runtime).availability in (
        Availability.SERVED,
        Availability.DEPRECATED,
    )


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Generate DRA manifests that pass dractl lint.", no_args_is_help=True)
    group.command("claim", epilog=CLAIM_EXAMPLES)(_claim_command("ResourceClaim", "generate claim"))
    group.command("template", epilog=CLAIM_EXAMPLES.replace("generate claim", "generate template"))(
        _claim_command("ResourceClaimTemplate", "generate template")
    )
    group.command("class", epilog=CLASS_EXAMPLES)(generate_class)
    group.command("slice", epilog=SLICE_EXAMPLES)(generate_slice)
    group.command("taint-rule", epilog=TAINT_EXAMPLES)(generate_taint_rule)
    app.add_typer(group, name="generate")
