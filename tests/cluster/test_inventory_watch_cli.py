"""``dractl availability --watch`` on a live cluster: the API's watch (no polling: no list is
repeated), a new document each time the cluster changes.  Run as a separate process (the
command runs until interrupted), reading its output as it comes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from loopback_api import LoopbackApiServer

REPO = Path(__file__).resolve().parents[2]


def _next_document(stream: IO[str], deadline: float) -> dict[str, Any]:
    """The next JSON document the process writes (one per re-render)."""
    lines: list[str] = []
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            raise AssertionError("dractl --watch ended early")
        lines.append(line)
        if line.rstrip("\n") == "}":
            return json.loads("".join(lines))
    raise AssertionError("no document in time")


def test_watch_renders_again_on_a_watch_event(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", "KUBECONFIG": str(kubeconfig)}
    code = "import sys; from dractl.cli.app import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "availability", "--watch", "-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        first = _next_document(proc.stdout, deadline)
        assert first["summary"]["total"] == 28
        lists_before = [r for r in apiserver.requests if r.query.get("watch") != "1"]
        apiserver.state.delete("ResourceSlice", "", "nic-node-1-dra.net")  # a DELETED event
        second = _next_document(proc.stdout, deadline)
        assert second["summary"]["total"] == 24
        watches = [r for r in apiserver.requests if r.query.get("watch") == "1"]
        assert any(r.path.endswith("/resourceslices") for r in watches)
        lists_after = [r for r in apiserver.requests if r.query.get("watch") != "1"]
        assert len(lists_after) == len(lists_before)  # re-rendered from the event: nothing re-listed
    finally:
        proc.terminate()
        proc.wait(timeout=30)
