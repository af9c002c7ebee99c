"""``--old FILE`` is an input like the others: loaded once by the command, through the loader and
its limits, and passed to the update rules (no rule reads a file)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.io import loader

CLAIM: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "default"},
    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
}


def _changed(name: str) -> dict[str, Any]:
    out = json.loads(json.dumps(CLAIM))
    out["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = name
    return out


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times the loader read each file (by base name)."""
    seen: Counter[str] = Counter()
    real = loader._read_limited

    def spy(path: str, *args: Any, **kwargs: Any) -> bytes:
        seen[Path(path).name] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(loader, "_read_limited", spy)
    return seen


def _write(path: Path, obj: dict[str, Any], padding: int = 0) -> Path:
    if padding:
        obj = {**obj, "metadata": {**obj["metadata"], "annotations": {"pad": "x" * padding}}}
    path.write_text(yaml.safe_dump(obj))
    return path


def test_old_file_over_max_input_size_is_refused(
    run_cli: Callable[..., Any], tmp_path: Path, reads: Counter[str]
) -> None:
    """Regression: the update rule re-read --old under @cache without --max-input-size, so an
    over-size old file was refused and used at the same time (UPD-RC-SPEC from a refused file)."""
    new = _write(tmp_path / "new.yaml", CLAIM)
    old = _write(tmp_path / "old.yaml", _changed("other"), padding=2000)
    r = run_cli(["claim", "validate", str(new), "--old", str(old), "--max-input-size", "1Ki", "-o", "json"])
    assert r.exit_code == 2
    errors = [line for line in r.stderr.splitlines() if line.startswith("dractl: error:")]
    assert errors == [
        f"dractl: error: {old}: input is {old.stat().st_size:,} bytes, over the 1,024 bytes limit "
        "(raise it with --max-input-size)"
    ]
    assert "Traceback" not in r.stderr
    assert json.loads(r.stdout)["items"] == []  # the refused file was not used
    assert reads["old.yaml"] == 1


def test_old_file_is_read_once_and_used(
    run_cli: Callable[..., Any], tmp_path: Path, reads: Counter[str]
) -> None:
    new = _write(tmp_path / "new.yaml", CLAIM)
    old = _write(tmp_path / "old.yaml", _changed("other"))
    r = run_cli(["claim", "validate", str(new), "--old", str(old), "-o", "json"])
    assert r.exit_code == 1, r.stderr
    assert [f["rule"] for f in json.loads(r.stdout)["items"]] == ["UPD-RC-SPEC"]
    assert reads == Counter({"new.yaml": 1, "old.yaml": 1})


def test_old_file_changed_between_runs_is_read_again(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    """No process-wide cache of --old: a long-lived process (tests, an editor) sees the file as it is."""
    new = _write(tmp_path / "new.yaml", CLAIM)
    old = _write(tmp_path / "old.yaml", _changed("other"))
    args = ["claim", "validate", str(new), "--old", str(old)]
    assert run_cli(args).exit_code == 1
    _write(old, CLAIM)
    assert run_cli(args).exit_code == 0
