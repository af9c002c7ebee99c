"""kubectl-style sanity checks over the whole Typer command tree."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer.main
from typer._click import Command

from dractl.cli.root import build_app

KEBAB = re.compile(r"^--[a-z0-9]+(-[a-z0-9]+)*$")
# Commands that write something other than a report (scaffolding, shell integration, snapshots).
NOT_REPORTS = frozenset({"completion", "generate", "snapshot"})


def _commands(cmd: Command, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Command]]:
    subcommands = getattr(cmd, "commands", None)  # a group
    if isinstance(subcommands, dict):
        for name, sub in sorted(subcommands.items()):
            if not sub.hidden:  # hidden: plumbing for the completion scripts (dractl __complete)
                yield from _commands(sub, (*path, name))
    else:
        yield path, cmd


COMMANDS = list(_commands(typer.main.get_command(build_app())))


def test_there_are_commands() -> None:
    assert any(path == ("validate",) for path, _ in COMMANDS)


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_command_conventions(path: tuple[str, ...], cmd: Command) -> None:
    assert (cmd.help or "").strip(), f"{' '.join(path)}: no docstring"
    assert "Examples:" in (cmd.epilog or ""), f"{' '.join(path)}: no Examples epilog"
    for param in cmd.params:
        for opt in [*param.opts, *param.secondary_opts]:
            if opt.startswith("--"):
                assert KEBAB.match(opt), f"{' '.join(path)}: {opt} is not kebab-case"
    if path[0] not in NOT_REPORTS:
        names = {o for p in cmd.params for o in p.opts}
        assert {"-o", "--output"} <= names, f"{' '.join(path)}: report commands offer -o/--output"


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_renders(path: tuple[str, ...], run_cli) -> None:
    result = run_cli([*path, "--help"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Usage: dractl ")
    assert "Examples:" in result.stdout
