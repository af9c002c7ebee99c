"""The suite's own set-up: it fails (not skips) without ../shared, and CI runs hypothesis
derandomised."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"


def _suite(tmp_path: Path, with_shared: bool, ci: bool = False) -> subprocess.CompletedProcess[str]:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    shutil.copy(CONFTEST, repo / "tests" / "conftest.py")
    (repo / "tests" / "test_profile.py").write_text(
        "from hypothesis import settings\n\n"
        "def test_profile():\n    print('derandomize', settings.default.derandomize)\n"
    )
    if with_shared:
        (tmp_path / "shared").mkdir()
    return subprocess.run(
        [sys.executable, "-m", "pytest", "tests", "-q", "-s", "-p", "no:cacheprovider"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env={**{k: v for k, v in os.environ.items() if k != "CI"}, **({"CI": "true"} if ci else {})},
    )


def test_a_missing_shared_checkout_fails_the_run(tmp_path: Path) -> None:
    proc = _suite(tmp_path, with_shared=False)
    assert proc.returncode == 4, proc.stdout + proc.stderr  # pytest's usage error
    assert "shared is missing: the tests need the shared test data" in proc.stderr


def test_ci_runs_hypothesis_derandomised(tmp_path: Path) -> None:
    assert "derandomize True" in _suite(tmp_path, with_shared=True, ci=True).stdout
    assert "derandomize False" in _suite(tmp_path / "local", with_shared=True).stdout
