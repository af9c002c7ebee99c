"""Shell completion: the scripts load in their shells, bash completes names from a snapshot
through the real script (COMP_WORDS + compgen), and the completions/ files are current."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"


@pytest.fixture
def shim_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a ``dractl`` running this tree (as the installed script would)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "dractl"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m dractl.cli.app "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    return env


def _bash_complete(env: dict[str, str], line: str) -> list[str]:
    """COMPREPLY after pressing TAB at the end of ``line`` (bash splits the words)."""
    script = subprocess.run(
        [sys.executable, "-m", "dractl.cli.app", "completion", "bash"],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(REPO)},
        check=True,
    ).stdout
    words = line.split(" ")
    program = (
        f"{script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; COMP_LINE={line!r}\n"
        "__dractl_complete\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return [w for w in result.stdout.splitlines() if w]


def test_bash_script_sources_cleanly(shim_path: dict[str, str]) -> None:
    script = subprocess.run(
        [sys.executable, "-m", "dractl.cli.app", "completion", "bash"],
        capture_output=True,
        text=True,
        env={**shim_path, "PYTHONPATH": str(REPO)},
        check=True,
    ).stdout
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"set -eu\n{script}\ncomplete -p dractl"],
        capture_output=True,
        text=True,
        env=shim_path,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert "-F __dractl_complete dractl" in result.stdout


def test_bash_completes_claims_from_a_snapshot(shim_path: dict[str, str]) -> None:
    got = _bash_complete(shim_path, "dractl explain-allocation -f examples/demo/ --claim ")
    assert {"two-h100", "single-gpu", "default/two-h100"} <= set(got)
    assert _bash_complete(shim_path, "dractl explain-allocation -f examples/demo/ --claim two") == [
        "two-h100"
    ]


def test_bash_completes_commands_options_choices_and_files(shim_path: dict[str, str]) -> None:
    assert "explain-allocation" in _bash_complete(shim_path, "dractl ex")
    assert "__complete" not in _bash_complete(shim_path, "dractl __")  # hidden
    assert _bash_complete(shim_path, "dractl explain-allocation -o ya") == ["yaml"]
    assert "--ignore-taints" in _bash_complete(shim_path, "dractl explain-allocation --ignore-t")
    assert _bash_complete(shim_path, "dractl lint examples/demo/claims-p") == [
        "examples/demo/claims-pending.yaml"
    ]
    assert set(_bash_complete(shim_path, "dractl generate claim x -f examples/demo/ --class ")) == {
        "gpu.nvidia.com",
        "mig.nvidia.com",
        "dra.net",
    }
    assert _bash_complete(shim_path, "dractl explain-allocation -f examples/demo/ --node gpu-node-") == [
        "gpu-node-1",
        "gpu-node-2",
    ]


def test_names_are_cached_by_file_identity(shim_path: dict[str, str], tmp_path: Path) -> None:
    from dractl.cli.completion import _cache_file, _cached_names

    snap = tmp_path / "snap.yaml"
    snap.write_text((DEMO / "deviceclasses.yaml").read_text())
    os.environ["XDG_CACHE_HOME"] = shim_path["XDG_CACHE_HOME"]
    try:
        first = _cached_names({"paths": [str(snap)]})
        assert first["classes"] == ["dra.net", "gpu.nvidia.com", "mig.nvidia.com"]
        assert Path(_cache_file({"paths": [str(snap)]})[0]).exists()
        time.sleep(0.01)
        snap.write_text(
            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: only}\nspec: {}\n"
        )
        assert _cached_names({"paths": [str(snap)]})["classes"] == ["only"]  # changed file: re-read
    finally:
        del os.environ["XDG_CACHE_HOME"]


def test_a_slow_source_does_not_block(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Past the timeout, completion answers with what the cache had (here: nothing) at once."""
    from dractl.cli import completion

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(completion.TIMEOUT_ENV, "0.2")
    monkeypatch.setattr(completion, "_load_names", lambda inputs: time.sleep(5) or {"claims": ["late"]})
    start = time.monotonic()
    assert completion._cached_names({"cluster": {"kubeconfig": None, "context": "slow"}}) == {}
    assert time.monotonic() - start < 2


def test_no_cluster_means_no_names(run_cli) -> None:
    result = run_cli(["__complete", "--", "explain-allocation", "--claim", ""])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["none"]


@pytest.mark.parametrize("shell, check", [("zsh", ["zsh", "-n"]), ("fish", ["fish", "-n"])])
def test_zsh_and_fish_scripts_parse(shell: str, check: list[str], tmp_path: Path, run_cli) -> None:
    if shutil.which(check[0]) is None:
        pytest.skip(f"{check[0]} is not installed (apt-get install {check[0]})")
    result = run_cli(["completion", shell])
    assert result.exit_code == 0
    path = tmp_path / f"dractl.{shell}"
    path.write_text(result.stdout)
    checked = subprocess.run([*check, str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_zsh_completes_through_the_script(shim_path: dict[str, str], run_cli) -> None:
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed")
    script = run_cli(["completion", "zsh"]).stdout
    # _describe needs the completion system; stand in for it and record what it would offer
    program = (
        f"autoload -Uz compinit; compinit -u -D\n{script}\n"
        '_describe() { print -l -- "${(@P)${@[-1]}}"; }\n'
        "words=(dractl explain-allocation -f examples/demo/ --claim two); CURRENT=6\n"
        "__dractl_complete\n"
    )
    result = subprocess.run(
        ["zsh", "-f", "-c", program], capture_output=True, text=True, env=shim_path, cwd=REPO, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["two-h100"]


def test_completions_dir_is_current() -> None:
    """completions/ holds what 'dractl completion SHELL' prints (regenerate: python scripts/gen_completions.py)."""
    from dractl.cli.completion import script

    for shell, name in (("bash", "dractl.bash"), ("zsh", "_dractl"), ("fish", "dractl.fish")):
        path = REPO / "completions" / name
        assert path.exists(), f"{path} missing: run python scripts/gen_completions.py"
        assert path.read_text() == script(shell), f"{path} is stale: run python scripts/gen_completions.py"
