"""The CI slice of scripts/fuzz.py, one per family of targets, against the hostile-input contract
(issue 11): mutated manifests, file names and expressions through validate, lint and selector
check; mutated worlds and snapshots through explain-allocation, capacity and the inventory views;
mutated objects and hostile response bodies from the loopback API server through the live views.
The long run is ``python scripts/fuzz.py`` (3 minutes by default; ``--atheris`` for the
coverage-guided one)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dractl_fuzz", FUZZ)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(
    ("family", "examples", "seed"), [("manifests", 12, 11), ("worlds", 2, 5), ("api", 8, 3)]
)
def test_fuzz_slice_keeps_the_contract(family: str, examples: int, seed: int) -> None:
    tried, found = _harness().fuzz(
        seconds=None, examples=examples, seed=seed, report=lambda _line: None, families=(family,)
    )
    assert tried == examples
    assert found == []


def test_the_harness_catches_a_violation() -> None:
    mod = _harness()
    assert mod.RAW.search("ok \x1b[2J") and mod.RAW.search("\u009b") and not mod.RAW.search("ok é\n")


def test_hostile_bodies_are_hostile() -> None:
    import json
    import random

    mod = _harness()
    rng = random.Random(0)
    pool = mod.seeds()
    bodies = [mod.hostile_body(rng, pool) for _ in range(60)]
    not_json = 0
    for body in bodies:
        try:
            json.loads(body)
        except (ValueError, RecursionError):
            not_json += 1
    assert 0 < not_json < len(bodies)  # both malformed and well-formed-but-wrong bodies


def test_the_harness_measures_each_run_in_a_child(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run is a forked child: its peak memory above its start, its CPU time, a hang and a
    second run's different output are each a violation."""
    import os
    import time

    mod = _harness()

    def fake(args: list[str]) -> tuple[int, str, str]:
        what = args[0]
        if what == "big":
            block = bytearray(120 * 2**20)  # touched: resident
            block[::4096] = b"x" * len(block[::4096])
        elif what == "spin":
            end = time.process_time() + 0.5
            while time.process_time() < end:
                pass
        elif what == "hang":
            time.sleep(30)
        elif what == "crash":
            os._exit(9)
        return 0, f"{what} {os.getpid() if what == 'random' else ''}", ""  # a child's own pid

    monkeypatch.setattr(mod, "run_cli", fake)
    monkeypatch.setattr(mod, "CPU_LIMIT", 0.3)
    monkeypatch.setattr(mod, "HANG_LIMIT", 2.0)
    assert mod.violations(["quiet"], "x", size=10) == []
    assert any(v.startswith("memory: ") for v in mod.violations(["big"], "x", size=10, repeat=False))
    assert mod.violations(["big"], "x", size=30 * 2**20, repeat=False) == []  # 5x input allowed
    assert any(v.startswith("slow: ") for v in mod.violations(["spin"], "x", repeat=False))
    assert any(v.startswith("hung: ") for v in mod.violations(["hang"], "x"))
    assert any("child died" in v for v in mod.violations(["crash"], "x", repeat=False))
    assert any(v.startswith("non-deterministic") for v in mod.violations(["random"], "x"))
