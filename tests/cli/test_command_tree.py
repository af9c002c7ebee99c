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


# Python type names Typer would print as a metavar (kubectl prints FILE, NAME, [NS/]NAME, N …)
PYTHON_TYPES = re.compile(r"<(str|int|float|bool|text|path|file|list\[[^\]]*\]|dict\[[^\]]*\]|tuple[^>]*)>")


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_metavars_read_like_kubectl(path: tuple[str, ...], cmd: Command) -> None:
    from typer._click import Context

    ctx = Context(cmd, info_name="dractl " + " ".join(path))
    for param in cmd.get_params(ctx):
        record = param.get_help_record(ctx)
        if record:
            assert not PYTHON_TYPES.search(record[0]), f"{' '.join(path)}: {record[0]!r} shows a Python type"
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    assert not PYTHON_TYPES.search(usage), f"{' '.join(path)}: usage {usage!r}"


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_flag_names_keep_kubectl_meanings(path: tuple[str, ...], cmd: Command) -> None:
    """-l/--selector is always a label selector (CEL goes in --cel); -o is the output format;
    -n the namespace; -f files (kubectl's --filename)."""
    where = " ".join(path)
    for param in cmd.params:
        opts = set(param.opts) | set(param.secondary_opts)
        text = (getattr(param, "help", "") or "").lower()
        if opts & {"-l", "--selector"}:
            assert {"-l", "--selector"} <= opts and "label" in text, (
                f"{where}: -l/--selector is a label selector"
            )
        if "-o" in opts:
            assert "--output" in opts, f"{where}: -o is --output"
        if "-n" in opts:
            assert "--namespace" in opts, f"{where}: -n is --namespace"
        if "-f" in opts:
            assert "--filename" in opts, f"{where}: -f is --filename"
        if "cel" in text and "expression" in text and param.param_type_name == "option":
            assert "--cel" in opts or "--explain" in opts, f"{where}: CEL expressions go in --cel"
