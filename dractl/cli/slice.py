"""``dractl slice validate``: the API server's checks for ResourceSlices, plus pool consistency."""

from __future__ import annotations

import typer

from dractl.cli.checks import ALL_FLAGS, CheckCommand, kind_group

EXAMPLES = """\b
Examples:
  # Validate the slices a driver publishes (e.g. from dractl discover)
  dractl slice validate slices.yaml

\b
  # Validate for a 1.35 cluster with partitionable devices enabled
  dractl slice validate slices.yaml --kube-version 1.35 --feature-gates DRAPartitionableDevices=true

\b
  # Check that an updated slice keeps its identity
  dractl slice validate new.yaml --old published.yaml
"""

DOC = """Validate ResourceSlices like the API server, then pools across them (generations, counts, counters).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """

SPEC = CheckCommand(
    "slice validate",
    DOC,
    EXAMPLES,
    kinds=frozenset({"ResourceSlice"}),
    flags=ALL_FLAGS - {"status"},
    cross="always",
)


def register(root: typer.Typer) -> None:
    root.add_typer(kind_group(SPEC, "ResourceSlices."), name="slice")
