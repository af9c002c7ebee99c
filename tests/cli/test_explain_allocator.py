"""``explain-allocation --allocator``: which allocator implementation answers, in text and JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DEMO = str(REPO / "examples" / "demo")
BASE = ["explain-allocation", "--claim", "single-gpu", "-f", DEMO]


def test_auto_names_the_implementation_kubernetes_picks(run_cli: Callable[..., Any]) -> None:
    default = run_cli([*BASE, "-o", "json"])
    assert default.exit_code == 0, default.stderr
    assert json.loads(default.stdout)["context"]["allocator"] == {
        "requested": "auto",
        "implementation": "incubating",
    }
    old = run_cli([*BASE, "--kube-version", "1.34", "-o", "json"])
    assert json.loads(old.stdout)["context"]["allocator"]["implementation"] == "stable"
    text = run_cli([*BASE, "--kube-version", "1.34"])
    assert "(allocator: stable)" in text.stdout.splitlines()[0]
    assert "(allocator:" not in run_cli(BASE).stdout.splitlines()[0]  # 1.37's usual incubating


def test_forced_implementation_is_used_and_shown(run_cli: Callable[..., Any]) -> None:
    forced = run_cli([*BASE, "--allocator", "experimental"])
    assert forced.exit_code == 0, forced.stderr
    assert "(allocator: experimental)" in forced.stdout.splitlines()[0]
    data = json.loads(run_cli([*BASE, "--allocator", "experimental", "-o", "json"]).stdout)
    assert data["context"]["allocator"] == {"requested": "experimental", "implementation": "experimental"}


def test_unsupported_or_unknown_implementation_is_a_usage_error(run_cli: Callable[..., Any]) -> None:
    bad = run_cli([*BASE, "--allocator", "stable"])  # 1.37 enables beta features stable lacks
    assert bad.exit_code == 2 and bad.stdout == ""
    first = bad.stderr.splitlines()[0]
    assert first.startswith("dractl: error: --allocator: allocator implementation 'stable' does not support")
    assert "DRAConsumableCapacity" in first and "implementations that do: incubating, experimental" in first
    unknown = run_cli([*BASE, "--allocator", "newest"])
    assert unknown.exit_code == 2
    assert (
        "unknown allocator implementation 'newest'; one of: auto, stable, incubating, experimental"
        in unknown.stderr
    )
    assert "Traceback" not in bad.stderr + unknown.stderr
