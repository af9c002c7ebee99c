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
  # CI: fail on warnings too, annotate the pull request
  dractl lint --strict -o github deploy/

\b
  # What does a rule mean?
  dractl lint --explain ADV-POOL-CONSISTENT
"""

DOC = """Validate DRA manifests and check them together (classes, pools, counters, selectors, taints).

    Exit status: 0 no errors (warnings allowed), 1 error findings (or any warning with
    --strict), 2 an input could not be read or a usage error.
    """

SPEC = CheckCommand("lint", DOC, EXAMPLES, cross="always")


def register(app: typer.Typer) -> None:
    register_command(app, SPEC)
