"""benchmarks/run.py: discovery, target checks, the table, and error rows for broken modules."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run_under_test", ROOT / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(
    ("value", "unit", "target", "ok"),
    [
        (0.7, "s", "< 2 s", True),
        (2.5, "s", "< 2 s", False),
        (30.0, "ms", "< 150 ms", True),
        (0.2, "s", "< 150 ms", False),  # converted between units
        (900.0, "µs", "<= 1 ms", True),
        (3.0, "x", "> 2 x", True),
        (3.0, "MB", "< 2 s", None),  # incomparable units
        (1.0, "s", "", None),
        (math.nan, "s", "< 2 s", None),
    ],
)
def test_target_check(runner: ModuleType, value: float, unit: str, target: str, ok: bool | None) -> None:
    assert runner.meets({"value": value, "unit": unit, "target": target}) is ok


def test_table_is_aligned_and_flags_missed_targets(runner: ModuleType) -> None:
    rows = [
        {"name": "fast thing", "value": 0.123, "unit": "s", "target": "< 2 s", "note": "n"},
        {"name": "slow", "value": 1234.5, "unit": "ms", "target": "< 150 ms", "note": ""},
    ]
    lines = runner.format_table(rows).splitlines()
    assert lines[0].split() == ["name", "value", "unit", "target", "ok", "note"]
    assert "yes" in lines[2] and "NO" in lines[3]
    assert lines[3].index("1,234") + len("1,234") == lines[2].index("0.123") + len("0.123")  # right-aligned


def test_a_broken_module_becomes_an_error_row(runner: ModuleType, tmp_path: Path) -> None:
    bad = tmp_path / "bench_broken.py"
    bad.write_text("def run():\n    raise RuntimeError('boom')\n")
    good = tmp_path / "bench_good.py"
    good.write_text(
        "def run():\n    return [{'name': 'x', 'value': 1.0, 'unit': 'ms', 'target': '', 'note': ''}]\n"
    )
    (err,) = runner.run_module(bad)
    assert err["name"] == "bench_broken: ERROR" and "RuntimeError: boom" in err["note"]
    (row,) = runner.run_module(good)
    assert row["module"] == "bench_good" and row["value"] == 1.0


def test_modules_are_sorted_and_filtered(runner: ModuleType) -> None:
    all_mods = runner.modules()
    assert all_mods == sorted(all_mods)
    assert any(m.stem == "bench_load" for m in all_mods)
    assert [m.stem for m in runner.modules("load")] == [m.stem for m in all_mods if "load" in m.stem]
