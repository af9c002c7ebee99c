"""Shared test set-up: an isolated environment for every test, ``--update-golden``, and
``run_cli`` (dractl's real entry point, ``main()``, inside CliRunner's stream isolation)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"

# Test data, not tests: the discover fixtures hold copies of sysfs whose symlinks form cycles,
# which pytest would follow forever; golden cases are collected by tests/test_golden.py.
collect_ignore = ["fixtures", "golden"]


def pytest_configure(config: pytest.Config) -> None:
    """The suite needs ../shared (corpus, conformance tables, docs): without it, tests that
    read it would be skipped and a green run would mean little, so fail at once.  In CI
    (``CI=true``), hypothesis runs derandomised: the same examples every run, so a red CI run
    is reproducible and a green one is not luck."""
    if not SHARED.is_dir():
        raise pytest.UsageError(
            f"{SHARED.resolve()} is missing: the tests need the shared test data "
            "checked out beside the repository (../shared)"
        )
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        settings.load_profile("ci")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/**/stdout.*, stderr.txt and exit_code from the current output",
    )


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No colour, a fixed width, UTC, and a HOME/KUBECONFIG that point nowhere real."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("KUBECONFIG", str(home / "kubeconfig"))
    for var in ("FORCE_COLOR", "TERM_PROGRAM", "GITHUB_ACTIONS"):
        monkeypatch.delenv(var, raising=False)


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli() -> Callable[..., CliResult]:
    """Run ``dractl ARGS`` through ``dractl.cli.app.main`` (the error boundary included), with
    stdin ``input`` and working directory ``cwd``; returns exit code, stdout and stderr."""
    from dractl.cli.app import main

    def run(args: Sequence[str], input: str | bytes | None = None, cwd: Path | None = None) -> CliResult:
        runner = CliRunner()
        old = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            with runner.isolation(input=input) as (out, err, _):
                code = main(list(args))
                import sys

                sys.stdout.flush()
                sys.stderr.flush()
                return CliResult(code, out.getvalue().decode(), err.getvalue().decode())
        finally:
            os.chdir(old)

    return run
