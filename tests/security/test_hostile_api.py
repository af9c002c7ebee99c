"""Hostile API responses (issue 11): a body the decoder cannot take (nested too deeply for it, not
JSON, a list that is not a list) is a one-line cluster error (exit 3), never an internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from loopback_api import Fault, LoopbackApiServer

from dractl.cluster import transport


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"items": ' + b"[" * 50_000, b"\xff\xfe", b'"a list"', b"[1, 2]"],
    ids=["deep", "deep-truncated", "not-utf8", "string", "array"],
)
@pytest.mark.parametrize("view", [["availability"], ["claims", "-A", "-o", "json"], ["snapshot", "-A"]])
def test_undecodable_list_is_a_cluster_error(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, body: bytes, view: list[str], tmp_path: Path
) -> None:
    apiserver.faults.append(Fault(r"/resourceslices$", times=100, body=body))
    extra = ["--file", str(tmp_path / "s.yaml")] if view[0] == "snapshot" else []
    result = run_cli([*view, *extra, "--request-timeout", "5s"])
    assert result.exit_code == 3, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("dractl: error:")]
    assert len(errors) == 1 and "resourceslices" in errors[0] and "internal error" not in result.stderr
