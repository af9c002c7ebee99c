"""``dractl snapshot``: save what dractl needs to know about a live cluster in one file.

Every command that reads a cluster reads the file back with ``--snapshot``.  Pods and Nodes
are reduced to the fields dractl reads, opaque driver parameters are left out unless
``--include-config``, and nothing of the kubeconfig (server address, credentials) is written.
"""

from __future__ import annotations

import typer

from dractl.cli.cluster_options import (
    AllNamespacesOpt,
    ConnectionFlags,
    NamespaceOpt,
    NodeOpt,
    progress_reporter,
)
from dractl.cli.env import CliEnv
from dractl.cli.options import with_flag_groups

COMMAND = "snapshot"
EXAMPLES = """\b
Examples:
  # Everything dractl reads, from every namespace, into a file
  dractl snapshot -A --file cluster.yaml

\b
  # With opaque driver parameters, through another context, whatever can be read
  dractl snapshot -A --include-config --context prod --partial --file prod.yaml

\b
  # One node and the claims of one namespace, to stdout
  dractl snapshot -n team-a --node gpu-node-7
"""


def snapshot(
    ctx: typer.Context,
    file: str | None = typer.Option(
        None,
        "--file",
        metavar="FILE",
        help="Write here instead of stdout (FILE.json: one JSON document per line, the same "
        "snapshot, read back faster).",
    ),
    include_config: bool = typer.Option(
        False,
        "--include-config",
        help="Keep opaque driver parameters of device configs (left out by default).",
    ),
    namespace: NamespaceOpt = None,
    all_namespaces: AllNamespacesOpt = False,
    node: NodeOpt = None,
    connection: ConnectionFlags = ConnectionFlags(),
) -> None:
    """Save the cluster's DRA objects, Nodes and the Pods that use claims as a snapshot.

    Exit status: 0 written, 2 bad usage or an unwritable file, 3 cluster errors.
    """
    from dractl.cluster.snapshot import take_snapshot
    from dractl.io.snapshot import save_snapshot, snapshot_format

    env = CliEnv.of(ctx)
    opts = connection.options(namespace=namespace, all_namespaces=all_namespaces, node=node, command=COMMAND)
    with progress_reporter(env) as progress:
        text = take_snapshot(
            opts, include_config=include_config, warn=env.warn, progress=progress, fmt=snapshot_format(file)
        )
    if file:
        save_snapshot(file, text)
    else:
        env.write(text)


def register(app: typer.Typer) -> None:
    app.command(COMMAND, epilog=EXAMPLES)(with_flag_groups(snapshot))
