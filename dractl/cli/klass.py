"""``dractl class validate``: the API server's checks for DeviceClasses (``class`` is a Python keyword)."""

from __future__ import annotations

import typer

from dractl.cli.lint import kind_group

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


def register(root: typer.Typer) -> None:
    app = kind_group("class validate", frozenset({"DeviceClass"}), "DeviceClasses.", DOC, EXAMPLES,
                     always_cross=False)
    root.add_typer(app, name="class")
