"""``.pre-commit-hooks.yaml``: every hook runs a real dractl command on YAML/JSON files."""

from __future__ import annotations

from pathlib import Path

import typer.main
import yaml

from dractl.cli.root import build_app

HOOKS = Path(__file__).resolve().parents[3] / ".pre-commit-hooks.yaml"


def test_hooks_name_existing_commands() -> None:
    hooks = yaml.safe_load(HOOKS.read_text())
    assert {h["id"] for h in hooks} == {"dractl-lint", "dractl-validate"}
    commands = typer.main.get_command(build_app()).commands  # type: ignore[attr-defined]
    for hook in hooks:
        program, command, *_ = hook["entry"].split()
        assert program == "dractl" and command in commands
        assert hook["language"] == "python" and set(hook["types_or"]) == {"yaml", "json"}
