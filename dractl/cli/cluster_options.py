"""kubectl's connection and scope flags, shared by every command that reads a live cluster.

Commands declare the aliases they need and build one :class:`ClusterOptions` with
:func:`cluster_options`; :func:`world_source` then picks where the world comes from
(``--snapshot``, ``-f`` files — :data:`dractl.cli.options.WorldSnapshotOpt` and
:data:`~dractl.cli.options.WorldFilesOpt` — else the live cluster).  Nothing here imports ``kubernetes``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer

from dractl.cli.env import CliEnv
from dractl.cluster.options import DEFAULT_CHUNK_SIZE, ClusterOptions, parse_timeout

if TYPE_CHECKING:
    from dractl.io.sources import WorldSource

Progress = Callable[[str, int, "int | None"], None]

KubeconfigOpt = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        metavar="FILE",
        show_default=False,
        help="Path to the kubeconfig file [default: $KUBECONFIG, else ~/.kube/config, else in-cluster].",
    ),
]
ContextOpt = Annotated[
    str | None,
    typer.Option("--context", metavar="NAME", show_default=False, help="The kubeconfig context to use."),
]
NamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "-n",
        "--namespace",
        metavar="NAME",
        show_default=False,
        help="Namespace [default: the context's, else default].",
    ),
]
AllNamespacesOpt = Annotated[bool, typer.Option("-A", "--all-namespaces", help="Read every namespace.")]
RequestTimeoutOpt = Annotated[
    str | None,
    typer.Option(
        "--request-timeout",
        metavar="DURATION",
        show_default=False,
        help="Give up on a request (retries included) after this long, e.g. 30s, 1m [default: no limit].",
    ),
]
ChunkSizeOpt = Annotated[
    int, typer.Option("--chunk-size", metavar="N", help="Read lists in pages of N objects (0: one request).")
]
PartialOpt = Annotated[
    bool,
    typer.Option(
        "--partial",
        help="When some objects cannot be read, show the rest under a warning naming what is missing.",
    ),
]
NodeOpt = Annotated[
    str | None, typer.Option("--node", metavar="NAME", show_default=False, help="Only this node.")
]
LabelSelectorOpt = Annotated[
    str | None,
    typer.Option(
        "-l",
        "--selector",
        metavar="SELECTOR",
        show_default=False,
        help="Only nodes with these labels (kubectl syntax: a=b,c!=d).",
    ),
]


@dataclass(frozen=True, slots=True)
class ConnectionFlags:
    """kubectl's connection flags, one flag group (:func:`dractl.cli.options.with_flag_groups`):
    a command takes ``connection: ConnectionFlags`` and gets ``--kubeconfig``, ``--context``,
    ``--request-timeout``, ``--chunk-size`` and ``--partial`` in its place."""

    OPTIONS: ClassVar[Mapping[str, tuple[Any, Any]]] = {
        "kubeconfig": (KubeconfigOpt, None),
        "context": (ContextOpt, None),
        "request_timeout": (RequestTimeoutOpt, None),
        "chunk_size": (ChunkSizeOpt, DEFAULT_CHUNK_SIZE),
        "partial": (PartialOpt, False),
    }
    kubeconfig: str | None = None
    context: str | None = None
    request_timeout: str | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    partial: bool = False

    def options(
        self,
        *,
        namespace: str | None = None,
        all_namespaces: bool = False,
        node: str | None = None,
        command: str | None = None,
    ) -> ClusterOptions:
        """These flags with the command's scope as one validated :class:`ClusterOptions`."""
        return cluster_options(
            kubeconfig=self.kubeconfig,
            context=self.context,
            namespace=namespace,
            all_namespaces=all_namespaces,
            request_timeout=self.request_timeout,
            chunk_size=self.chunk_size,
            partial=self.partial,
            node=node,
            command=command,
        )


@contextlib.contextmanager
def progress_reporter(env: CliEnv, *, enabled: bool = True) -> Iterator[Progress | None]:
    """A progress callback for long cluster reads: a Rich status line on stderr, only when
    stderr is a terminal and ``enabled`` (pass False for ``-o json|yaml``); else None.  The
    line is transient: nothing of it stays in the terminal or reaches a pipe."""
    console = env.err
    if not enabled or not console.is_terminal:
        yield None
        return
    with console.status("reading the cluster…") as status:

        def update(what: str, done: int, total: int | None) -> None:
            status.update(f"reading {what}: {done}" + (f" of {total}" if total else ""))

        yield update


def cluster_options(
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    namespace: str | None = None,
    all_namespaces: bool = False,
    request_timeout: str | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    partial: bool = False,
    node: str | None = None,
    label_selector: str | None = None,
    command: str | None = None,
) -> ClusterOptions:
    """The flags as one validated :class:`ClusterOptions` (UsageError for bad values)."""
    return ClusterOptions(
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        all_namespaces=all_namespaces,
        request_timeout=parse_timeout(request_timeout, command),
        chunk_size=chunk_size,
        partial=partial,
        node=node,
        label_selector=label_selector,
    ).validated(command)


def world_source(
    *,
    snapshot: str | None,
    files: Sequence[str],
    cluster: ClusterOptions,
    kinds: Sequence[str] | None = None,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
    pods: Sequence[tuple[str, str]] = (),
    lean: bool = False,
) -> WorldSource:
    """``--snapshot`` → SnapshotSource, ``-f`` → FileSource, neither → the live cluster
    (a ClusterSource over ``kinds``, default all; ``lean``: see ClusterSource)."""
    from dractl.io.sources import FileSource, SnapshotSource

    if snapshot:
        return SnapshotSource(snapshot)
    if files:
        return FileSource(tuple(files))
    from dractl.cluster.source import ClusterSource
    from dractl.io.world import WORLD_KINDS

    return ClusterSource(
        cluster, kinds=tuple(kinds or WORLD_KINDS), warn=warn, progress=progress, pods=pods, lean=lean
    )


def with_missing(report: Any, source: Any, field: str) -> Any:
    """The report with one line in ``field`` (warnings, notes) per read a live cluster left out
    (``--partial``, a namespace-only user): never a partial answer that looks complete."""
    from dataclasses import replace

    missing = list(getattr(source, "missing", None) or ())
    if not missing:
        return report
    lines = [f"incomplete: could not read {m}; the answer does not include them" for m in missing]
    return replace(report, **{field: (*getattr(report, field), *lines)})
