"""``dractl claim validate``: the API server's checks for ResourceClaims and ResourceClaimTemplates."""

from __future__ import annotations

import typer

from dractl.cli.checks import CheckCommand, kind_group

EXAMPLES = """\b
Examples:
  # Validate the claims and templates of a chart's rendered output
  helm template ./chart | dractl claim validate -

\b
  # Also check classes, selectors and counts against a cluster snapshot
  dractl claim validate claim.yaml --snapshot cluster.yaml

\b
  # The same against the live cluster of the current kubeconfig context (read-only)
  dractl claim validate claim.yaml --cluster

\b
  # Validate a claim's status as the scheduler would write it
  dractl claim validate --status claim-with-status.yaml
"""

DOC = """Validate ResourceClaims and templates like the API server (with --snapshot or --cluster:
    also against the cluster).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """

SPEC = CheckCommand(
    "claim validate",
    DOC,
    EXAMPLES,
    kinds=frozenset({"ResourceClaim", "ResourceClaimTemplate"}),
    cross="snapshot",
)


def register(root: typer.Typer) -> None:
    root.add_typer(kind_group(SPEC, "ResourceClaims and ResourceClaimTemplates."), name="claim")
