"""Heavy or optional libraries stay out of ``sys.modules`` for the fast paths (real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from dractl.cli.app import main
code = main(sys.argv[1:])
sys.stdout.flush()
mods = sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'pynvml', 'celexpr', 'cel_expr_python')
              or m == 'dractl.cel' or m.startswith('dractl.cel.'))
sys.stderr.write('\\nMODULES=' + json.dumps(mods) + '\\n')
"""


def loaded_modules(*args: str, cwd: Path | None = None) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, check=False, timeout=60
    )
    marker = proc.stderr.rsplit("MODULES=", 1)
    assert len(marker) == 2, proc.stderr
    return json.loads(marker[1])


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["validate", "--help"]])
def test_fast_paths_import_nothing_heavy(args: list[str]) -> None:
    assert loaded_modules(*args) == []


def test_validate_imports_neither_kubernetes_nor_pynvml(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
        "spec:\n  selectors:\n  - cel: {expression: 'device.driver == \"g\"'}\n"
    )
    mods = loaded_modules("validate", "c.yaml", cwd=tmp_path)
    assert not [m for m in mods if m.split(".")[0] in ("kubernetes", "pynvml")], mods
