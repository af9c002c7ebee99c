"""``dractl lint``: validate every input like the API server, then check them together.

Output, exit codes and ``--explain`` as ``dractl validate`` (the same pipeline,
:mod:`dractl.cli.checks`).
"""

from __future__ import annotations

import typer

from dractl.cli.checks import CheckCommand, register_command

EXAMPLES = """\b
Examples:
  # Lint a directory of manifests for Kubernetes 1.37 (validate + cross-object checks)
  dractl lint deploy/

\b
  # Check claims against what a cluster publishes (saved with dractl snapshot)
  dractl lint claims/ --snapshot cluster.yaml

\b
  # The same against the live cluster of kubeconfig context prod (read-only; opt-in)
  dractl lint claims/ --context prod

\b
  # Pods of team-a against that namespace's claims and templates only
  dractl lint team-a/ --cluster -n team-a

\b
  # CI: fail on warnings too, annotate the pull request
  dractl lint --strict -o github deploy/

\b
  # What does a rule mean?
  dractl lint --explain ADV-POOL-CONSISTENT
"""

DOC = """Validate DRA manifests and check them together (classes, pools, counters, selectors, taints).

    With --snapshot, or --cluster/--context (the live cluster, read-only), the checks also see the
    cluster's classes, slices, taint rules and nodes, and the API versions it serves; without them
    dractl never reads the network.

    Exit status: 0 no errors (warnings allowed), 1 error findings (or any warning with
    --strict), 2 an input could not be read or a usage error, 3 the cluster could not be read.
    """

SPEC = CheckCommand("lint", DOC, EXAMPLES, cross="always")


def register(app: typer.Typer) -> None:
    register_command(app, SPEC)
