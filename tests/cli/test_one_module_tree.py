"""A run of one command builds only its module's commands (dractl.cli.root.MODULE_OF): the map
names every top-level command's module, and such a run says what the whole tree says."""

from __future__ import annotations

from typing import Any

import pytest
import typer
import typer.main

from dractl.cli import root


def _top_level(app: typer.Typer) -> set[str]:
    cmd = typer.main.get_command(app)
    return {name for name, sub in cmd.commands.items() if not sub.hidden}  # type: ignore[attr-defined]


def test_every_top_level_command_is_mapped_to_the_module_that_registers_it() -> None:
    every = _top_level(root.build_app())
    assert set(root.MODULE_OF) == every - {"completion"}
    for name, module in root.MODULE_OF.items():
        assert name in _top_level(root.build_app(name)), (name, module)
    assert _top_level(root.build_app("availability")) == {"availability", "claims", "health", "taints"}
    assert _top_level(root.build_app("no-such-command")) == every  # unknown: the whole tree


@pytest.mark.parametrize(
    "args",
    [
        ["availability", "--help"],
        ["claim", "validate", "--help"],
        ["availability", "--bogus"],
        ["--debug", "selector", "check"],
        ["--help", "availability"],
        ["availabilty"],
        ["completion", "bash"],
    ],
)
def test_a_one_module_run_says_what_the_whole_tree_says(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    one = run_cli(args)
    full_tree = root.build_app
    monkeypatch.setattr(root, "build_app", lambda command=None: full_tree())
    whole = run_cli(args)
    assert (one.exit_code, one.stdout, one.stderr) == (whole.exit_code, whole.stdout, whole.stderr)
