"""``dractl class validate``: the API server's checks for DeviceClasses (``class`` is a Python keyword)."""

from __future__ import annotations

import typer

from dractl.cli.checks import ALL_FLAGS, CheckCommand, kind_group

EXAMPLES = """\b
Examples:
  # Validate the DeviceClasses of a driver's deployment
  dractl class validate deployments/deviceclass.yaml

\b
  # Also check which attributes the selectors use against published slices
  dractl class validate deviceclass.yaml --snapshot cluster.yaml
"""

DOC = """Validate DeviceClasses like the API server (CEL selectors, config, extended resource name).

    Objects of other kinds are ignored.  Exit status as dractl validate.
    """

SPEC = CheckCommand(
    "class validate",
    DOC,
    EXAMPLES,
    kinds=frozenset({"DeviceClass"}),
    flags=ALL_FLAGS - {"status"},
    cross="snapshot",
)


def register(root: typer.Typer) -> None:
    root.add_typer(kind_group(SPEC, "DeviceClasses."), name="class")
