"""``-A`` is accepted by every inventory view (kubectl habit); the views other than ``claims``
always read the claims of every namespace, so it changes nothing there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "demo")


@pytest.mark.parametrize("view", ["availability", "health", "taints"])
def test_all_namespaces_is_accepted_and_changes_nothing(run_cli: Any, view: str) -> None:
    plain = run_cli([view, "-f", DEMO, "-o", "json"])
    wide = run_cli([view, "-A", "-f", DEMO, "-o", "json"])
    assert plain.exit_code == wide.exit_code == 0, wide.stderr
    assert wide.stdout == plain.stdout
