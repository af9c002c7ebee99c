"""The validation commands' one pipeline: ``validate``, ``lint``, ``claim|slice|class validate``.

kubectl's Options → Complete → Validate → Run, once for all five commands:

* :class:`ValidationFlags` holds every flag of a validation command (the Options);
* :func:`check_command` builds a command from a :class:`CheckCommand` spec (its name, which
  kinds it checks, which flags it offers, when it runs the cross-object checks), declaring
  each flag from the one definition in :mod:`dractl.cli.options`;
* :func:`run` validates the flags, loads every input once (Complete: the paths, the snapshot and
  the ``--old`` files, with the input limits), resolves the release
  (:meth:`CliEnv.release`), makes the one engine call :func:`dractl.validate.engine.check`,
  renders the report and exits with its exit code.

To give one of these commands a new flag: add a field to :class:`ValidationFlags`, its alias
to :data:`FLAG_OPTIONS`, and the flag's name to the specs that offer it.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal

import typer

from dractl.cli.cluster_options import ContextOpt, KubeconfigOpt, RequestTimeoutOpt
from dractl.cli.env import CliEnv
from dractl.cli.options import (
    DEFAULT_MAX_INPUT_SIZE,
    CiFlags,
    ClassesFromOpt,
    ConfigOpt,
    ExplainOpt,
    FeatureGatesOpt,
    KubeVersionOpt,
    LenientOpt,
    MaxInputSizeOpt,
    NoHeadersOpt,
    OldOpt,
    OnlyOpt,
    PathsArg,
    RuntimeConfigOpt,
    SkipOpt,
    SnapshotOpt,
    StatusOpt,
    StrictOpt,
    output_option,
    parse_size,
)
from dractl.errors import UsageError

_, ValidationOutputOpt, DEFAULT_OUTPUT = output_option("validation")
ClusterContextOpt = Annotated[
    bool,
    typer.Option(
        "--cluster",
        help="Also check against the live cluster of the kubeconfig (read-only; implied by --context "
        "or --kubeconfig).  Without it nothing is read from the network.",
    ),
]

ContextNamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "-n",
        "--namespace",
        metavar="NAME",
        show_default=False,
        help="With the cluster as context: read its claims and templates in this namespace only "
        "[default: every namespace, else the context's namespace where listing all is denied].",
    ),
]

# Every flag of a validation command: (Annotated alias, default), in --help order.
FLAG_OPTIONS: Mapping[str, tuple[Any, Any]] = {
    "paths": (PathsArg, None),
    "snapshot": (SnapshotOpt, None),
    "cluster": (ClusterContextOpt, False),
    "kubeconfig": (KubeconfigOpt, None),
    "kube_context": (ContextOpt, None),
    "namespace": (ContextNamespaceOpt, None),
    "request_timeout": (RequestTimeoutOpt, None),
    "kube_version": (KubeVersionOpt, None),
    "feature_gates": (FeatureGatesOpt, None),
    "strict": (StrictOpt, False),
    "lenient": (LenientOpt, False),
    "status": (StatusOpt, False),
    "old": (OldOpt, None),
    "runtime_config": (RuntimeConfigOpt, None),
    "skip": (SkipOpt, None),
    "only": (OnlyOpt, None),
    "config": (ConfigOpt, None),
    "classes_from": (ClassesFromOpt, None),
    "max_input_size": (MaxInputSizeOpt, DEFAULT_MAX_INPUT_SIZE),
    "explain": (ExplainOpt, None),
    "no_headers": (NoHeadersOpt, False),
    "output": (ValidationOutputOpt, DEFAULT_OUTPUT),
}
ALL_FLAGS = frozenset(FLAG_OPTIONS)
# The live cluster as context (like --snapshot); opt-in, so that a plain run never reads the network.
CLUSTER_FLAGS = frozenset({"cluster", "kubeconfig", "kube_context", "namespace", "request_timeout"})
# Formats read by a person at a terminal: only these show the progress line of a cluster read.
TEXT_OUTPUTS = frozenset({"table", "wide"})
MISSING_PATH = "missing PATH (a file, a directory, or '-' for stdin)"


@dataclass(frozen=True, slots=True)
class ValidationFlags:
    """The flags of a validation command (None/empty: not given).  ``snapshot`` is cluster
    context for the cross-object checks; ``old`` the previous versions of the objects; the CI
    flags (``runtime_config``, ``skip``, ``only``, ``config``, ``classes_from``) as
    :class:`dractl.cli.options.CiFlags` describes them."""

    paths: tuple[str, ...] = ()
    snapshot: str | None = None
    cluster: bool = False
    kubeconfig: str | None = None
    kube_context: str | None = None
    namespace: str | None = None
    request_timeout: str | None = None
    kube_version: str | None = None
    feature_gates: str | None = None
    strict: bool = False
    lenient: bool = False
    status: bool = False
    old: tuple[str, ...] = ()
    runtime_config: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    config: str | None = None
    classes_from: tuple[str, ...] = ()
    max_input_size: str = DEFAULT_MAX_INPUT_SIZE
    explain: str | None = None
    no_headers: bool = False
    output: str = DEFAULT_OUTPUT

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> ValidationFlags:
        """From the parsed command line (lists become tuples, None lists empty ones)."""
        known = {f.name for f in fields(cls)}
        lists = ("paths", "old", "runtime_config", "skip", "only", "classes_from")
        given: dict[str, Any] = {
            k: (tuple(v or ()) if k in lists else v) for k, v in values.items() if k in known
        }
        return cls(**given)

    def uses_cluster(self) -> bool:
        """``--cluster``, or a flag that names a cluster (``--context``, ``--kubeconfig``)."""
        return self.cluster or self.kube_context is not None or self.kubeconfig is not None

    def ci(self) -> CiFlags:
        return CiFlags(self.runtime_config, self.skip, self.only, self.config, self.classes_from)

    def max_input_bytes(self, command: str) -> int:
        """``--max-input-size`` in bytes (UsageError when it is not a size)."""
        return parse_size(self.max_input_size, command)


@dataclass(frozen=True, slots=True)
class CheckCommand:
    """What makes one validation command differ from another.

    ``kinds``: the kinds it checks (None: all); ``flags``: the names of the
    :class:`ValidationFlags` it offers; ``cross``: when it adds the cross-object checks
    (``always``, only with a ``snapshot``, or ``never``)."""

    name: str
    doc: str
    examples: str
    kinds: frozenset[str] | None = None
    flags: frozenset[str] = ALL_FLAGS
    cross: Literal["always", "snapshot", "never"] = "always"

    def cross_checks(self, flags: ValidationFlags) -> bool:
        context = flags.snapshot is not None or flags.uses_cluster()
        return self.cross == "always" or (self.cross == "snapshot" and context)


def check_command(spec: CheckCommand) -> Callable[..., None]:
    """A Typer command function for ``spec``: its parameters are the flags ``spec`` offers,
    each declared from :data:`FLAG_OPTIONS`; its docstring (``--help``) is ``spec.doc``."""
    unknown = spec.flags - ALL_FLAGS
    if unknown:
        raise ValueError(f"{spec.name}: unknown flags {sorted(unknown)}")

    def command(ctx: typer.Context, **values: Any) -> None:
        run(ctx, spec, ValidationFlags.of(values))

    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    params += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=alias, default=default)
        for name, (alias, default) in FLAG_OPTIONS.items()
        if name in spec.flags
    ]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = spec.doc
    command.__name__ = spec.name.replace(" ", "_")
    return command


def register_command(app: typer.Typer, spec: CheckCommand, name: str | None = None) -> None:
    """Add ``spec``'s command to ``app`` as ``name`` (default: the last word of its name)."""
    app.command(name or spec.name.rsplit(" ", 1)[-1], epilog=spec.examples)(check_command(spec))


def kind_group(spec: CheckCommand, group_help: str) -> typer.Typer:
    """A ``<kind>`` group holding ``spec``'s ``validate`` command."""
    group = typer.Typer(help=group_help, no_args_is_help=True)
    register_command(group, spec)
    return group


def run(ctx: typer.Context, spec: CheckCommand, flags: ValidationFlags) -> None:
    """Validate the flags → load every input once → resolve the release → check → render → exit."""
    env = CliEnv.of(ctx)
    if flags.explain is not None:
        explain_rule(env, flags.explain, spec.name)
        return
    if not flags.paths:
        raise UsageError(MISSING_PATH, spec.name)
    from dractl.cli.options import ci_finish, ci_setup
    from dractl.io.loader import DocStream, load_paths
    from dractl.io.snapshot_header import SnapshotHeader
    from dractl.validate.options import ValidateOptions
    from dractl.validate.stream import StreamCheck

    limit = flags.max_input_bytes(spec.name)
    # Streamed (issue 11): each object is checked as it is read and then dropped.
    context = DocStream([flags.snapshot], max_input_size=limit) if flags.snapshot else None
    loaded = DocStream(list(flags.paths), max_input_size=limit)
    live = cluster_context(env, spec.name, flags)
    raw_header = live.header if live else context.header() if context else loaded.header()
    ci = ci_setup(flags.ci(), raw_header, limit, spec.name)  # config file, --skip/--only, served versions
    release = env.release(
        flags.kube_version or ci.config.kube_version,
        flags.feature_gates or ci.config.feature_gates,
        SnapshotHeader.from_raw(raw_header),
    )
    old = None
    old_errors: list[Any] = []
    if flags.old:  # loaded once, with the input limits; an unreadable file is an input error
        from dractl.validate.rules.update import old_objects

        previous = load_paths(list(flags.old), max_input_size=limit)
        old_errors = previous.errors
        old = old_objects(doc.raw for doc in previous.docs)
    opts = ValidateOptions(
        kube_version=release.kube_version,
        features=release.features,
        strict=flags.strict,
        lenient=flags.lenient,
        status=flags.status,
        old=old,
        runtime=ci.runtime,
        kube_patch=release.patch,
    )
    checker = StreamCheck(
        opts,
        kinds=spec.kinds,
        cross=spec.cross_checks(flags) or bool(ci.classes),
        warn=lambda message: env.warn(f"{spec.name}: {message}"),
    )
    checker.add_all(loaded, itertools.chain(context or (), live.docs if live else (), ci.classes))
    errors = [
        *loaded.result.errors,
        *(context.result.errors if context else ()),
        *ci.class_errors,
        *old_errors,
    ]
    report = checker.report(input_errors=errors, files=loaded.result.files)
    report = ci_finish(report, checker.annotated, ci)  # suppressions: counted, never dropped
    env.render(report, flags.output, no_headers=flags.no_headers)
    raise typer.Exit(report.exit_code)


def cluster_context(env: CliEnv, command: str, flags: ValidationFlags) -> Any:
    """The live cluster's objects as context (:func:`dractl.cluster.context.context_docs`), or None
    without ``--cluster``/``--context``/``--kubeconfig``.  UsageError with ``--snapshot`` (one
    context at a time) or ``--request-timeout`` alone; ClusterError (exit 3) as context_docs."""
    if not flags.uses_cluster():
        for flag, value in (("--request-timeout", flags.request_timeout), ("--namespace", flags.namespace)):
            if value is not None:
                raise UsageError(f"{flag} needs --cluster (or --context/--kubeconfig)", command)
        return None
    if flags.snapshot is not None:
        raise UsageError("--snapshot and --cluster/--context/--kubeconfig exclude each other", command)
    from dractl.cli.cluster_options import cluster_options, progress_reporter
    from dractl.cluster.context import context_docs

    opts = cluster_options(
        kubeconfig=flags.kubeconfig,
        context=flags.kube_context,
        namespace=flags.namespace,
        all_namespaces=flags.namespace is None,
        request_timeout=flags.request_timeout,
        command=command,
    )
    with progress_reporter(env, enabled=flags.output in TEXT_OUTPUTS) as progress:
        return context_docs(
            opts, warn=lambda message: env.warn(f"{command}: cluster context: {message}"), progress=progress
        )


def explain_rule(env: CliEnv, rule: str, command: str) -> None:
    """``--explain RULE``: the rule's text on stdout; UsageError (with did-you-mean) when unknown."""
    from dractl.validate.catalog import explain, suggest

    text = explain(rule)
    if text is None:
        hint = suggest(rule)
        raise UsageError(
            f"unknown rule {rule!r}" + (f"; did you mean {', '.join(hint)}?" if hint else ""), command
        )
    env.write(text)
