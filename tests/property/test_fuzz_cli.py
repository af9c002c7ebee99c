"""The CI slice of scripts/fuzz.py: mutated manifests, file names and expressions through validate,
lint and selector check, against the hostile-input contract (issue 11).  The long run is
``python scripts/fuzz.py`` (3 minutes by default)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"


def test_fuzz_slice_keeps_the_contract() -> None:
    spec = importlib.util.spec_from_file_location("dractl_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tried, found = mod.fuzz(seconds=None, examples=12, seed=11, report=lambda _line: None)
    assert tried == 12
    assert found == []


def test_the_harness_catches_a_violation() -> None:
    spec = importlib.util.spec_from_file_location("dractl_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.RAW.search("ok \x1b[2J") and mod.RAW.search("\u009b") and not mod.RAW.search("ok é\n")
