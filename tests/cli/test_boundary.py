"""The one error boundary in ``dractl.cli.app.main``: usage errors, Ctrl-C, broken pipes,
input errors and internal errors, each with its exit code and a one-line message."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.errors import InputError, SourcePos

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec: {}
"""


@pytest.fixture
def claim(tmp_path: Path) -> Path:
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM)
    return path


def _raise(exc: BaseException):
    def boom(*args: object, **kwargs: object) -> None:
        raise exc

    return boom


def test_usage_error_names_the_command_help(run_cli) -> None:
    result = run_cli(["validate", "--no-such-flag", "x.yaml"])
    assert result.exit_code == 2
    assert result.stderr == "dractl: error: No such option: --no-such-flag\nSee 'dractl validate --help'.\n"
    assert result.stdout == ""


def test_unknown_command(run_cli) -> None:
    result = run_cli(["no-such-command"])
    assert result.exit_code == 2
    assert result.stderr.startswith("dractl: error: No such command 'no-such-command'.")
    assert result.stderr.endswith("See 'dractl --help'.\n")


def test_bad_option_value(run_cli) -> None:
    result = run_cli(["validate", "--kube-version", "1.20", "x.yaml"])
    assert result.exit_code == 2
    assert result.stderr.startswith('dractl: error: invalid argument "1.20" for "--kube-version" flag: ')


def test_dractl_usage_error_from_a_command(run_cli, claim: Path) -> None:
    result = run_cli(["validate", str(claim), "--feature-gates", "NoSuchGate=true"])
    assert result.exit_code == 2
    assert result.stderr.startswith("dractl: error: --feature-gates: unknown DRA feature gate 'NoSuchGate'")
    assert result.stderr.endswith("See 'dractl validate --help'.\n")


def test_keyboard_interrupt_exits_130(run_cli, claim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dractl.validate.engine.check_doc", _raise(KeyboardInterrupt()))
    result = run_cli(["validate", str(claim)])
    assert result.exit_code == 130
    assert "Traceback" not in result.stderr


def test_broken_pipe_is_quiet(run_cli, claim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dractl.validate.engine.check_doc", _raise(BrokenPipeError()))
    result = run_cli(["validate", str(claim)])
    assert result.exit_code == 0
    assert result.stderr == ""


def test_internal_error_exits_70(run_cli, claim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dractl.validate.engine.check_doc", _raise(RuntimeError("boom")))
    result = run_cli(["validate", str(claim)])
    assert result.exit_code == 70
    assert result.stderr == "dractl: internal error: RuntimeError: boom (rerun with --debug)\n"


def test_debug_shows_the_traceback(run_cli, claim: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dractl.validate.engine.check_doc", _raise(RuntimeError("boom")))
    result = run_cli(["--debug", "validate", str(claim)])
    assert result.exit_code == 70
    assert "Traceback" in result.stderr and "RuntimeError" in result.stderr


def test_input_error_raised_by_an_engine_is_one_line(
    run_cli, claim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    err = InputError("must be a mapping", SourcePos("claim.yaml", 0, 3, 5), "spec")
    monkeypatch.setattr("dractl.validate.engine.check_doc", _raise(err))
    result = run_cli(["validate", str(claim)])
    assert result.exit_code == 2
    assert result.stderr == "dractl: error: claim.yaml:3:5: spec: must be a mapping\n"


def test_version_and_help(run_cli) -> None:
    from dractl import __version__

    assert run_cli(["--version"]).stdout == f"dractl {__version__}\n"
    result = run_cli(["--help"])
    assert result.exit_code == 0 and "validate" in result.stdout


def test_missing_option_value_names_the_subcommand_help(run_cli) -> None:
    result = run_cli(["lint", "--explain"])
    assert result.exit_code == 2
    assert result.stderr == (
        "dractl: error: Option '--explain' requires an argument.\nSee 'dractl lint --help'.\n"
    )
