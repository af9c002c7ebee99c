"""QA regression: a corrupt or hand-edited ``--nvml-fixture`` is an input error, never a crash.

Engine-level (discovery and the slice builder, as ``dractl discover`` runs them; the CLI's
one-line wording of an InputError is tested once in test_cli.py).  Every recorded answer is
replaced by values of other types, a huge count (which used to make discovery loop "forever")
and an NVML-error-like dict.  Where the recording holds a plain answer, a value of another JSON
type must be an InputError naming the fixture and the call; a value of the same type is either
used or an InputError (a range check); nothing else may escape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from discover_support import H100, h100_nvml_data

from dractl.discover import BuildOptions, DiscoverOptions, build, discover
from dractl.errors import InputError

ODD = [None, "str", -1, 2**70, [], {}, {"x": 1}, True, 1.5, [1, 2, 3], {"error": "GPU_IS_LOST"}]
CALLS = sorted(h100_nvml_data()["calls"])
GPU = frozenset({"gpu"})


def _first_key(table: Any) -> str:
    return next(iter(table)) if isinstance(table, dict) and table else ""


def _json_type(value: Any) -> str:
    return (
        "bool"
        if isinstance(value, bool)
        else "number"
        if isinstance(value, int | float)
        else type(value).__name__
    )


def _plain(recorded: Any) -> bool:
    """A real answer, not "no answer", an opaque handle or a recorded NVML error."""
    return recorded is not None and not (
        isinstance(recorded, dict) and ({"$handle", "$error"} & set(recorded))
    )


def _run(fixture: Path) -> InputError | None:
    try:
        session = discover(
            DiscoverOptions(node="n1", kinds=GPU, sysfs_root=H100 / "sys", nvml_fixture=fixture)
        )
        build(session.inventory, BuildOptions(node="n1", mig_mode="partitionable", kinds=GPU))
    except InputError as err:
        return err
    return None


@pytest.mark.parametrize("call", CALLS)
def test_any_recorded_answer_of_the_wrong_type_is_an_input_error(tmp_path: Path, call: str) -> None:
    recorded_table = h100_nvml_data()["calls"][call]
    key = _first_key(recorded_table)
    recorded = recorded_table.get(key) if isinstance(recorded_table, dict) else None
    for i, odd in enumerate(ODD):
        data = h100_nvml_data()
        data["calls"][call][key] = odd
        path = tmp_path / f"nvml-{i}.json"
        path.write_text(json.dumps(data))
        err = _run(path)
        if _plain(recorded) and odd is not None and _json_type(odd) != _json_type(recorded):
            assert err is not None, (call, odd, "a wrong-typed answer was used")
        if err is not None:
            assert err.one_line().startswith(f"{path}: calls"), err.one_line()
            assert "\n" not in err.one_line()


def test_errors_name_the_call(run_cli: Any, tmp_path: Path) -> None:
    data = h100_nvml_data()
    data["calls"]["nvmlDeviceGetMinorNumber"]["gpu0"] = "two"
    data["calls"]["nvmlDeviceGetCount"][""] = 2**70
    path = tmp_path / "nvml.json"
    path.write_text(json.dumps(data))
    r = run_cli(["discover", "--sysfs-root", str(H100 / "sys"), "--nvml-fixture", str(path), "--only", "gpu"])
    assert r.exit_code == 2
    assert r.stderr == (
        f"dractl: error: {path}: calls.nvmlDeviceGetCount[]: recorded NVML answer "
        "1180591620717411303424 is not a count from 0 to 1024\n"
    )
    data["calls"]["nvmlDeviceGetCount"][""] = 8
    path.write_text(json.dumps(data))
    err = _run(path)
    assert err is not None
    assert (
        "calls.nvmlDeviceGetMinorNumber[gpu0]: recorded NVML answer 'two' is not an integer" in err.one_line()
    )
