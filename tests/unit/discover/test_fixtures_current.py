"""The committed fixture trees are exactly what make_fixtures.py generates (no hand edits drift)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from discover_support import FIXTURES


def _snapshot(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_text()
            else:
                out[rel] = "<dir>"
    return out


def test_committed_fixtures_match_the_generator(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(tmp_path)
    for name in ("h100-8gpu", "connectx-sriov", "cpu-2socket"):
        assert _snapshot(tmp_path / name) == _snapshot(FIXTURES / name), name
