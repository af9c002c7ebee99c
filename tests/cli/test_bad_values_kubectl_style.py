"""A bad flag value is one kubectl-style line everywhere, never Typer's or pydantic's wording
("Value error,", "Input should be"): the test walks every command of the tree and gives each
option that takes a choice, an enum or a number a value it must refuse."""

from __future__ import annotations

from enum import Enum
from typing import Any

import pytest
import typer.main

from dractl.cli.root import build_app
from dractl.cli.usage_messages import reason

ROOT = typer.main.get_command(build_app())
LIBRARY_WORDING = ("Value error", "Input should", "valid integer", "unable to parse", "Invalid value for")


def _options() -> list[tuple[list[str], str, str]]:
    """(command words, option, bad value) for every option with a checked value type."""
    out: list[tuple[list[str], str, str]] = []
    stack: list[tuple[list[str], Any]] = [([], ROOT)]
    while stack:
        path, cmd = stack.pop()
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            stack.extend(([*path, n], c) for n, c in subs.items() if not c.hidden)
            continue
        for param in cmd.params:
            opts = [o for o in param.opts if o.startswith("--")]
            if not opts or getattr(param, "is_flag", False) or getattr(param, "count", False):
                continue
            if opts[0] in ("--output",):
                out.append((path, opts[0], "html"))
                continue
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            if (isinstance(annotation, type) and issubclass(annotation, Enum)) or "Literal" in str(
                annotation
            ):
                out.append((path, opts[0], "no-such-value"))
            elif annotation in (int, float):
                out.append((path, opts[0], "abc"))
    return sorted(out, key=lambda t: (t[0], t[1]))


OPTIONS = _options()


def test_the_walk_finds_the_options_it_must() -> None:
    found = {(" ".join(p), o) for p, o, _ in OPTIONS}
    assert ("generate claim", "--output") in found and ("availability", "--output") in found
    assert ("explain-allocation", "--best-fit-limit") in found  # an int option
    assert len(OPTIONS) >= 30


@pytest.mark.parametrize("path, option, value", OPTIONS, ids=[f"{' '.join(p)} {o}" for p, o, _ in OPTIONS])
def test_a_bad_value_is_one_kubectl_style_line(
    run_cli: Any, path: list[str], option: str, value: str
) -> None:
    result = run_cli([*path, option, value])
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith("dractl: error: "), result.stderr
    assert not any(w in result.stderr for w in LIBRARY_WORDING), result.stderr
    if "invalid argument" in first:  # the value check itself answered (not a missing argument first)
        assert f'invalid argument "{value}" for "' in first and option in first


def test_generate_claim_bad_output_exact(run_cli: Any) -> None:
    result = run_cli(["generate", "claim", "-o", "html"])
    assert result.stderr == (
        "dractl: error: invalid argument \"html\" for \"-o, --output\" flag: expected one of 'yaml', 'json'\n"
        "See 'dractl generate claim --help'.\n"
    )


@pytest.mark.parametrize(
    "message, expected",
    [
        ("Value error, 'x' is not one of 'a', 'b'.", "expected one of 'a', 'b'"),
        ("Input should be a valid integer, unable to parse string as an integer", "expected an integer"),
        ("Input should be greater than or equal to 0.2", "must be at least 0.2"),
        ("Input should be 'node' or 'class'", "expected 'node' or 'class'"),
        ("Value error, something else", "something else"),
        ("a message of our own", "a message of our own"),
    ],
)
def test_reasons(message: str, expected: str) -> None:
    assert reason(message) == expected
