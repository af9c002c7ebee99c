"""``dractl capacity`` runs with the cyclic collector off (a big, cycle-free heap), and leaves
it as it found it; only a big run is frozen before the collector is back on."""

from __future__ import annotations

import gc

import pytest

from dractl.cli import capacity as cmd
from dractl.cli.app import main


def test_the_collector_is_off_inside_and_back_on_after() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with cmd._bulk_heap():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen  # a small run freezes nothing


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with cmd._bulk_heap():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_big_run_is_frozen_before_the_collector_is_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cmd, "_FREEZE_ABOVE", -1)
    try:
        with cmd._bulk_heap():
            built = [[i] for i in range(1000)]
        assert gc.get_freeze_count() >= len(built) and gc.isenabled()
    finally:
        gc.unfreeze()


def test_an_error_inside_the_command_restores_the_collector(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["capacity", "--claim", "x", "--order", "sideways", "-f", "examples/demo/"])
    assert code == 2 and gc.isenabled()
    assert "--order sideways" in capsys.readouterr().err
