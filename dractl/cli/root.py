"""The root Typer app: global options and command-group registration.

Imported only when the command tree is built (not for ``--version``).
To add a command group, write ``dractl/cli/<group>.py`` with a
``register(app)`` function and add one line to :func:`register_groups`.
"""

from __future__ import annotations

import typer

from dractl import __version__
from dractl.cli.env import CliEnv

HELP = """dractl: a toolkit for Kubernetes Dynamic Resource Allocation (DRA).

Discover devices, validate DRA manifests like the API server, try CEL selectors,
and explain why a claim is (or is not) allocated."""


def _root(ctx: typer.Context,
          debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
          version: bool = typer.Option(False, "--version", help="Print the version and exit."),
          ) -> None:
    if version:  # normally answered in main() before the tree is built
        print(f"dractl {__version__}")
        raise typer.Exit(0)
    ctx.obj = CliEnv(debug=debug)


def register_groups(app: typer.Typer) -> None:
    """Add every working command group (one line each, alphabetical)."""
    from dractl.cli import capacity, discover, explain, validate

    capacity.register(app)
    discover.register(app)
    explain.register(app)
    __import__("dractl.cli.inventory", fromlist=["register"]).register(app)  # availability, claims, health, …
    validate.register(app)
    __import__("dractl.cli.lint", fromlist=["register"]).register(app)  # lint, claim/slice/class validate
    __import__("dractl.cli.selector", fromlist=["register"]).register(app)  # selector check/eval
    __import__("dractl.cli.generate", fromlist=["register"]).register(app)  # generate claim|class|slice|…
    __import__("dractl.cli.snapshot", fromlist=["register"]).register(app)  # snapshot (live cluster)
    __import__("dractl.cli.completion", fromlist=["register"]).register(app)  # completion, __complete


def build_app() -> typer.Typer:
    """The full command tree."""
    app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False, rich_markup_mode=None,
                      context_settings={"help_option_names": ["-h", "--help"]})
    app.callback()(_root)
    register_groups(app)
    return app
