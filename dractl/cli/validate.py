"""``dractl validate``: check DRA manifests as the API server would decode and accept them."""

from __future__ import annotations

import typer

from dractl.cli.checks import ALL_FLAGS, CLUSTER_FLAGS, CheckCommand, register_command

EXAMPLES = """\b
Examples:
  # Validate every manifest under a directory against Kubernetes 1.37
  dractl validate manifests/

\b
  # Validate a file for a 1.35 cluster, failing on warnings too
  dractl validate claim.yaml --kube-version 1.35 --strict

\b
  # Validate what kubectl would apply, as GitHub annotations
  kustomize build overlays/prod | dractl validate - -o github

\b
  # Explain a rule id seen in a report
  dractl validate --explain SCHEMA-UNKNOWN-FIELD
"""

DOC = """Validate DRA manifests like the API server: API versions, schema, duplicate keys, rules.

    Exit status: 0 no errors (warnings allowed), 1 error findings (or any warning with
    --strict), 2 an input could not be read or a usage error.
    """

SPEC = CheckCommand(
    "validate",
    DOC,
    EXAMPLES,
    flags=ALL_FLAGS - {"snapshot", "old", "classes_from"} - CLUSTER_FLAGS,
    cross="never",
)


def register(app: typer.Typer) -> None:
    register_command(app, SPEC)
