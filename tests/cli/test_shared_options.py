"""Each flag is declared once (issue 10, duplicate option wiring): the world and target flags of
explain-allocation, capacity and the inventory views, the connection flags of every command that
reads a live cluster, and the what-if flags come from one definition each, and reach the command."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click
import pytest
import typer
import typer.main
from typer.testing import CliRunner

from dractl.cli.cluster_options import ConnectionFlags
from dractl.cli.options import TargetFlags, WhatIfFlags, with_flag_groups
from dractl.cli.root import build_app

WORLD = ("explain-allocation", "capacity", "availability", "claims", "health", "taints")
LIVE = (*WORLD, "snapshot")


def _params(command: str) -> dict[str, click.Parameter]:
    group = typer.main.get_command(build_app())
    ctx = click.Context(group)
    found = group.get_command(ctx, command)  # type: ignore[attr-defined]
    assert found is not None, command
    return {p.name or "": p for p in found.params}


def _same(name: str, commands: tuple[str, ...]) -> None:
    seen = {c: _params(c)[name] for c in commands}
    first = next(iter(seen.values()))
    for command, p in seen.items():
        assert (p.opts, getattr(p, "help", None), p.metavar, p.multiple) == (
            first.opts,
            getattr(first, "help", None),
            first.metavar,
            first.multiple,
        ), (name, command)


@pytest.mark.parametrize("name", ["files", "snapshot", "kube_version", "feature_gates"])
def test_world_flags_are_one_definition(name: str) -> None:
    _same(name, WORLD)


@pytest.mark.parametrize("name", list(ConnectionFlags.OPTIONS))
def test_connection_flags_are_one_definition(name: str) -> None:
    _same(name, LIVE)


@pytest.mark.parametrize("name", [*TargetFlags.OPTIONS, *WhatIfFlags.OPTIONS, "allocator"])
def test_target_and_whatif_flags_are_one_definition(name: str) -> None:
    _same(name, ("explain-allocation", "capacity"))


@pytest.mark.parametrize("command", LIVE)
def test_connection_flags_reach_the_cluster_options(run_cli: Callable[..., Any], command: str) -> None:
    r = run_cli([command, "--request-timeout", "soon"])
    assert r.exit_code == 2
    assert "--request-timeout: invalid duration 'soon'" in r.stderr


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("capacity", "count copies of one pod at a time"),
        ("explain-allocation", "explain one pod at a time"),
    ],
)
def test_pod_given_twice_is_a_usage_error(run_cli: Callable[..., Any], command: str, why: str) -> None:
    """Regression: capacity took the last of two --pod flags silently."""
    r = run_cli([command, "--pod", "a", "--pod", "b", "-f", "examples/demo/"])
    assert r.exit_code == 2
    assert f"--pod given 2 times: {why}" in r.stderr


@pytest.mark.parametrize("command", ["capacity", "explain-allocation"])
def test_whatif_flags_reach_the_engine(run_cli: Callable[..., Any], command: str) -> None:
    args = [command, "--claim", "single-gpu", "-f", "examples/demo/", "-o", "json"]
    r = run_cli([*args, "--ignore-taints", "--without-node", "gpu-node-2", "--without-node", "gpu-node-1"])
    assert r.exit_code in (0, 1), r.stderr
    assert json.loads(r.stdout)["context"]["whatIf"] == {
        "ignoreAllocations": False,
        "ignoreTaints": True,
        "withoutNodes": ["gpu-node-2", "gpu-node-1"],
    }


def test_with_flag_groups_puts_the_group_in_place() -> None:
    got: dict[str, Any] = {}

    def cmd(
        name: str = typer.Option("x", "--name"),
        connection: ConnectionFlags = ConnectionFlags(),
        last: bool = typer.Option(False, "--last"),
    ) -> None:
        """A test command."""
        got.update(name=name, connection=connection, last=last)

    app = typer.Typer()
    app.command()(with_flag_groups(cmd))
    app.command("other")(lambda: None)  # two commands: the test names its command
    result = CliRunner().invoke(app, ["cmd", "--kubeconfig", "k", "--chunk-size", "7", "--last"])
    assert result.exit_code == 0, result.output
    assert got == {
        "name": "x",
        "connection": ConnectionFlags(kubeconfig="k", chunk_size=7),
        "last": True,
    }
    params = [p.name for p in typer.main.get_command(app).commands["cmd"].params]  # type: ignore[attr-defined]
    assert params == ["name", *ConnectionFlags.OPTIONS, "last"]  # in the group's place
