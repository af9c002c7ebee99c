"""How the console script's process ends (``dractl.cli.app._end_now``): ``os._exit`` instead of
Python's teardown, with everything of that teardown that can be seen kept — the exit code, all
of stdout and stderr, ``atexit`` handlers, waiting for other threads, broken pipes, ``--debug``
tracebacks.  In-process callers of ``main(args)`` are never ended and keep nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dractl.cli import process

REPO = Path(__file__).resolve().parents[2]
DEMO = str(REPO / "examples" / "demo")
INSTALLED = Path(sys.executable).parent / "dractl"


def _script() -> list[str]:
    """The installed console script when there is one (CI installs the wheel), else what it runs."""
    if INSTALLED.exists():
        return [str(INSTALLED)]
    return [sys.executable, "-c", "from dractl.cli.app import main; main()"]


# stdout and stderr buffered as in any shell (a pipe's stdout is block-buffered): what is not
# flushed before the end would be lost
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=120, env=env or ENV)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["availability", "-f", DEMO, "-o", "json"], 0),
        (["claims", "-A", "-f", DEMO], 0),
        (["availability", "--by", "sideways", "-f", DEMO], 2),
        (["availability", "-f", "/no/such/file.yaml"], 2),
        (["--version"], 0),
    ],
    ids=["json", "table", "usage-error", "input-error", "version"],
)
def test_exit_code_and_all_output_as_in_process(run_cli: Any, args: list[str], code: int) -> None:
    result = _run([*_script(), *args], env={**ENV, "COLUMNS": "100"})
    expected = run_cli(args)
    assert (result.returncode, expected.exit_code) == (code, code), result.stderr
    assert result.stdout == expected.stdout
    assert result.stderr == expected.stderr


def _slices(path: Path, nodes: int) -> Path:
    docs = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"node-{n}-gpu"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": f"node-{n}",
                "pool": {"name": f"node-{n}", "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}}} for i in range(8)],
            },
        }
        for n in range(nodes)
    ]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    return path


def test_output_larger_than_a_pipe_comes_whole(tmp_path: Path) -> None:
    """Over 64 KiB (a pipe's buffer) through a pipe read as it comes: every byte is written
    before the process ends."""
    slices = _slices(tmp_path / "slices.json", 300)
    reader = subprocess.Popen(
        [*_script(), "availability", "-f", str(slices), "-o", "json"],
        stdout=subprocess.PIPE,
        cwd=REPO,
        env=ENV,
    )
    assert reader.stdout is not None
    data = reader.stdout.read()
    assert reader.wait(timeout=120) == 0 and len(data) > 1 << 17
    doc = json.loads(data)
    assert doc["kind"] == "AvailabilityReport" and len(doc["items"]) == 300


def _with(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-c", code + "\nfrom dractl.cli.app import main; main()", *args])


def test_atexit_handlers_run_once_before_the_end() -> None:
    result = _with(
        "import atexit, sys; atexit.register(lambda: sys.stderr.write('handler ran, no newline'))",
        "availability",
        "-f",
        DEMO,
    )
    assert result.returncode == 0 and result.stderr == "handler ran, no newline" and "POOL" in result.stdout


def test_a_running_thread_is_waited_for() -> None:
    result = _with(
        "import threading, time, sys\n"
        "threading.Thread(target=lambda: (time.sleep(0.3), sys.stdout.write('thread done\\n'))).start()",
        "--version",
    )
    assert result.returncode == 0 and result.stdout.endswith("thread done\n"), result


def test_a_reader_that_goes_away_ends_it_quietly() -> None:
    """stdout closed before dractl writes (``dractl … | true``): Rich ends the process with 1,
    without a traceback, as before."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [*_script(), "claims", "-A", "-f", DEMO, "-o", "json"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            timeout=120,
            env=ENV,
        )
    finally:
        os.close(write)
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_debug_shows_the_traceback() -> None:
    result = _run([*_script(), "--debug", "availability", "-f", "/no/such/file.yaml"])
    assert result.returncode == 2
    assert "Traceback" in result.stderr
    assert result.stderr.endswith("dractl: error: /no/such/file.yaml: no such file or directory\n")


def test_in_process_main_keeps_nothing_and_returns(run_cli: Any) -> None:
    result = run_cli(["availability", "-f", DEMO])
    assert result.exit_code == 0 and process._KEPT is None
    process.keep_until_exit(object())  # outside the console script: nothing kept
    assert process._KEPT is None
