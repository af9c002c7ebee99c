"""Paths in errors are the paths the user gave (issue 11, security basics): run from a working
directory with relative inputs, no output names a file by its absolute path (which would leak the
runner's directory layout into CI logs and reports), in any format, for findings and input errors
alike — directory walks included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

BROKEN = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: Bad_Name}\nspec: {}\n"
UNREADABLE = "key: [unclosed\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "manifests" / "sub").mkdir(parents=True)
    (tmp_path / "manifests" / "claim.yaml").write_text(BROKEN)
    (tmp_path / "manifests" / "sub" / "broken.yaml").write_text(UNREADABLE)
    (tmp_path / "manifests" / "sub" / "link.yaml").symlink_to("nowhere.yaml")
    return tmp_path


@pytest.mark.parametrize("fmt", ["table", "json", "sarif", "junit", "github"])
@pytest.mark.parametrize("command", ["validate", "lint"])
def test_relative_inputs_stay_relative(run_cli: Any, tree: Path, command: str, fmt: str) -> None:
    result = run_cli([command, "-o", fmt, "manifests", "missing.yaml"], cwd=tree)
    assert result.exit_code == 2
    out = result.stdout + result.stderr
    assert str(tree) not in out and str(tree.resolve()) not in out
    for name in (
        "manifests/claim.yaml",
        "manifests/sub/broken.yaml",
        "manifests/sub/link.yaml",
        "missing.yaml",
    ):
        assert name in out, (name, out)
    if fmt == "json":
        files = {item["file"] for item in json.loads(result.stdout)["items"]}
        assert files == {"manifests/claim.yaml"}


@pytest.mark.parametrize(
    "args",
    [
        ["explain-allocation", "--claim", "x", "-f", "manifests"],
        ["availability", "-f", "manifests/sub/broken.yaml"],
        ["selector", "eval", "true", "-f", "manifests/sub"],
        ["claims", "--snapshot", "manifests/sub/broken.yaml"],
    ],
)
def test_other_readers_keep_paths_relative(run_cli: Any, tree: Path, args: list[str]) -> None:
    result = run_cli(args, cwd=tree)
    assert result.exit_code == 2, result.stderr
    assert "manifests/" in result.stderr and str(tree) not in result.stdout + result.stderr
