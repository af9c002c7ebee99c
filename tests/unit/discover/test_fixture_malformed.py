"""QA regression: a corrupt or hand-edited ``--nvml-fixture`` is an input error (exit 2), never exit 70.

Every recorded answer replaced by a value of another type (or a huge count, which used to make
discovery loop "forever") must end in one line naming the fixture and, where it is known, the call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from discover_support import H100, h100_nvml_data

ODD = [None, "str", -1, 2**70, [], {}, {"x": 1}, True, 1.5, [1, 2, 3], {"error": "GPU_IS_LOST"}]
CALLS = sorted(h100_nvml_data()["calls"])


def _first_key(table: Any) -> str:
    return next(iter(table)) if isinstance(table, dict) and table else ""


@pytest.mark.parametrize("call", CALLS)
def test_any_recorded_answer_of_the_wrong_type_is_an_input_error(run_cli: Callable[..., Any], tmp_path: Path,
                                                                  call: str) -> None:
    for i, odd in enumerate(ODD):
        data = h100_nvml_data()
        data["calls"][call][_first_key(data["calls"][call])] = odd
        path = tmp_path / f"nvml-{i}.json"
        path.write_text(json.dumps(data))
        r = run_cli(["discover", "--sysfs-root", str(H100 / "sys"), "--nvml-fixture", str(path), "--only", "gpu",
                     "--node", "n1", "-o", "yaml", "--mig-mode", "partitionable"])
        assert r.exit_code in (0, 2), (call, odd, r.stderr)
        assert "internal error" not in r.stderr
        if r.exit_code == 2:
            assert r.stderr.startswith(f"dractl: error: {path}: calls"), r.stderr
            assert len(r.stderr.strip().splitlines()) == 1


def test_errors_name_the_call(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    data = h100_nvml_data()
    data["calls"]["nvmlDeviceGetMinorNumber"]["gpu0"] = "two"
    data["calls"]["nvmlDeviceGetCount"][""] = 2**70
    path = tmp_path / "nvml.json"
    path.write_text(json.dumps(data))
    r = run_cli(["discover", "--sysfs-root", str(H100 / "sys"), "--nvml-fixture", str(path), "--only", "gpu"])
    assert r.exit_code == 2
    assert r.stderr == (f"dractl: error: {path}: calls.nvmlDeviceGetCount[]: recorded NVML answer "
                        "1180591620717411303424 is not a count from 0 to 1024\n")
    data["calls"]["nvmlDeviceGetCount"][""] = 8
    path.write_text(json.dumps(data))
    r = run_cli(["discover", "--sysfs-root", str(H100 / "sys"), "--nvml-fixture", str(path), "--only", "gpu"])
    assert r.exit_code == 2
    assert "calls.nvmlDeviceGetMinorNumber[gpu0]: recorded NVML answer 'two' is not an integer" in r.stderr
