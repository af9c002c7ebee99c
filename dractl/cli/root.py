"""The root Typer app: global options and command registration.

Imported only when the command tree is built (not for ``--version``).

How to add a command
====================

1. Engine: a pure function returning a report dataclass with ``report_type`` (a ClassVar),
   ``to_dict()`` (the ``dractl/v1alpha1`` envelope: ``apiVersion``, ``kind``, ``items``,
   ``summary``) and an ``exit_code`` property.  Publish its JSON schema in
   ``schemas/output/<report-type>.schema.json``.
2. Renderers: ``register(REPORT_TYPE, Format.TABLE, "dractl.render.mine:write_table")`` for each
   format in a module under ``dractl/render/``, and add that module to
   ``dractl.render.registry.PROVIDERS`` (or reuse ``register_findings_report``).  Tables go
   through :func:`dractl.render.table.write_rows` and so pipe cleanly, honour
   ``--no-headers`` and have a ``wide`` variant for free.
3. Command: ``dractl/cli/<name>.py`` with a thin function and a ``register(app)``::

       _, OutputOpt, DEFAULT_OUTPUT = output_option("taints")

       def taints(ctx: typer.Context, snapshot: SnapshotOpt = None,
                  kube_version: KubeVersionOpt = None, feature_gates: FeatureGatesOpt = None,
                  output: OutputOpt = DEFAULT_OUTPUT) -> None:
           \"\"\"Show device and node taints, and which claims tolerate them.\"\"\"  # --help
           env = CliEnv.of(ctx)
           release = env.release(kube_version, feature_gates, header)   # one resolver
           report = inventory.taints(objects, release.features, warn=env.warn)
           env.render(report, output)              # one renderer call; -o errors are the registry's
           raise typer.Exit(report.exit_code)

       def register(app: typer.Typer) -> None:
           app.command("taints", epilog=EXAMPLES)(taints)

   Every flag comes from :mod:`dractl.cli.options` (one definition each: ``--kube-version``,
   ``--feature-gates``, ``-o`` via ``output_option``, ``--snapshot``, ``--no-headers``, …).
   Flags that travel together are flag groups: declare ``connection: ConnectionFlags =
   ConnectionFlags()`` (the live cluster's connection flags; likewise ``WhatIfFlags``,
   ``TargetFlags``) and register ``with_flag_groups(fn)``, which puts the group's flags there.
   Commands never print, never catch exceptions, and import engines inside the function.
4. Register it in :func:`register_groups` (the module's name in its import and its tuple).
5. Golden cases under ``tests/golden/<command>/<case>/``; the command-tree test checks the
   docstring, the Examples epilog, kebab-case flags, ``-o`` and the JSON schema.
"""

from __future__ import annotations

import typer

from dractl import __version__
from dractl.cli.env import CliEnv

HELP = """dractl: a toolkit for Kubernetes Dynamic Resource Allocation (DRA).

Discover devices, validate DRA manifests like the API server, try CEL selectors,
and explain why a claim is (or is not) allocated."""


def _root(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
) -> None:
    if version:  # normally answered in main() before the tree is built
        print(f"dractl {__version__}")
        raise typer.Exit(0)
    ctx.obj = CliEnv(debug=debug)


def register_groups(app: typer.Typer, only: str | None = None) -> None:
    """Add every command module: its name in the import and in the tuple (alphabetical).  Plain
    imports, so import-linter and the import-cycle test see every command module.  ``only``:
    just that module (see :data:`MODULE_OF`), the others not even imported (importing them all
    is ~0.1 s of every start)."""
    if only is not None:
        import importlib

        importlib.import_module(f"dractl.cli.{only}").register(app)
        return
    from dractl.cli import (
        capacity,
        claim,
        completion,
        discover,
        explain,
        generate,
        inventory,
        klass,
        lint,
        selector,
        slice,
        snapshot,
        validate,
    )

    for module in (
        capacity,
        claim,
        completion,
        discover,
        explain,
        generate,
        inventory,
        klass,
        lint,
        selector,
        slice,
        snapshot,
        validate,
    ):
        module.register(app)


# The module that registers each top-level command (a test holds this equal to the tree).  A run
# of one of these builds only that module's commands: the other modules, their imports and
# Typer's reading of their parameters are a tenth of a second of every command's start.
# ``completion`` is not here: completing walks the whole tree.
MODULE_OF = {
    "capacity": "capacity",
    "claim": "claim",
    "discover": "discover",
    "explain-allocation": "explain",
    "generate": "generate",
    "availability": "inventory",
    "claims": "inventory",
    "health": "inventory",
    "taints": "inventory",
    "class": "klass",
    "lint": "lint",
    "selector": "selector",
    "slice": "slice",
    "snapshot": "snapshot",
    "validate": "validate",
}


def build_app(command: str | None = None) -> typer.Typer:
    """The full command tree; with ``command`` (a top-level command name of :data:`MODULE_OF`),
    the tree with only the commands of its module (the same command, help and errors)."""
    app = typer.Typer(
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
    register_groups(app, MODULE_OF.get(command) if command is not None else None)
    __import__("dractl.cli.metavars", fromlist=["install"]).install()  # no Python type names in --help
    return app
