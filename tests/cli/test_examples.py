"""The examples users copy: every ``dractl …`` line of a command's ``--help`` Examples must
parse with that command's real options, and every ``$ dractl …`` block of README.md must
print what the README shows (run from the repository root)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer.main

from dractl.cli.root import build_app

REPO = Path(__file__).resolve().parents[2]
ROOT_COMMAND = typer.main.get_command(build_app())
_SHELL_OPERATORS = frozenset({">", ">>", "<", "|", "&&", "||", ";", "2>", "2>&1"})


def _help_examples() -> list[tuple[str, list[str]]]:
    out = []
    stack = [((), ROOT_COMMAND)]
    while stack:
        path, cmd = stack.pop()
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            stack.extend(((*path, n), c) for n, c in subs.items())
            continue
        # a line ending in a backslash continues on the next one (as in a shell)
        for line in (cmd.epilog or "").replace("\\\n", " ").splitlines():
            match = re.search(r"(?:^|\|\s*)dractl\s+(.*)$", line.strip())
            if match and not line.strip().startswith("#"):
                words = shlex.split(match.group(1))
                # the command ends where the shell takes over (a redirection, pipe or list)
                end = next((i for i, w in enumerate(words) if w in _SHELL_OPERATORS), len(words))
                out.append((" ".join(path), words[:end]))
    return sorted(out)


EXAMPLES = _help_examples()


@pytest.mark.parametrize("command, argv", EXAMPLES, ids=[" ".join(a) for _, a in EXAMPLES])
def test_help_examples_parse(command: str, argv: list[str]) -> None:
    words = command.split()
    assert argv[: len(words)] == words, f"an example of '{command}' runs another command: {argv}"
    cmd = ROOT_COMMAND
    for word in words:
        cmd = cmd.commands[word]  # type: ignore[attr-defined]
    # Parsing converts and checks every value (choices, types) without running the command.
    ctx = cmd.make_context(f"dractl {command}", list(argv[len(words) :]))
    assert ctx.command is cmd


def _readme_blocks() -> list[tuple[str, str]]:
    readme = REPO / "README.md"
    if not readme.exists():
        return []
    cases = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", readme.read_text(), flags=re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("$ dractl ") and "|" not in line:
                output = []
                for nxt in lines[i + 1 :]:
                    if nxt.startswith("$ "):
                        break
                    output.append(nxt)
                cases.append((line[2:], "\n".join(output).strip()))
    return cases


README = _readme_blocks()


@pytest.mark.skipif(not README, reason="README.md shows no '$ dractl …' examples yet")
@pytest.mark.parametrize("command, shown", README or [("", "")], ids=[c for c, _ in README] or ["none"])
def test_readme_examples_print_what_the_readme_shows(command: str, shown: str, run_cli) -> None:
    result = run_cli(shlex.split(command)[1:], cwd=REPO)
    assert result.exit_code in (0, 1), result.stderr
    if shown:
        actual = "\n".join(line.rstrip() for line in result.stdout.strip().splitlines())
        assert actual == "\n".join(line.rstrip() for line in shown.splitlines())
