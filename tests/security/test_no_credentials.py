"""No kubeconfig credential in any output (issue 11, security basics): every command that reads
a live cluster, in its default and JSON formats, when it works and when the cluster fails with
``--debug`` (the traceback path), prints neither the bearer token nor a piece of it, nor the
client key; a snapshot holds nothing of the kubeconfig.  The loopback server also checks that
only GETs were sent (read-only), in its fixture."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from loopback_api import LoopbackApiServer

from dractl.cluster import transport

VIEWS = [
    ["availability"],
    ["claims", "-A", "-o", "json"],
    ["health", "-o", "wide"],
    ["taints", "-o", "json"],
    ["explain-allocation", "--claim", "two-h100"],
    ["capacity", "--claim", "single-gpu", "-o", "json"],
    ["snapshot", "-A"],
]
SECRET_KEY = "c2VjcmV0LWtleS1uZXZlci1wcmludGVk"  # a fake client-key-data that must never be shown


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


def _with_unused_key(kubeconfig: Path) -> None:
    """Another user in the kubeconfig holding a key and a password (never used, never shown)."""
    doc = json.loads(kubeconfig.read_text())
    doc["users"].append(
        {"name": "other", "user": {"client-key-data": SECRET_KEY, "username": "u", "password": "pa55-w0rd-x"}}
    )
    kubeconfig.write_text(json.dumps(doc))


def _leaks(text: str, token: str) -> list[str]:
    pieces = [
        token,
        token[4:12],
        token[-8:],
        SECRET_KEY,
        base64.b64decode(SECRET_KEY).decode(),
        "pa55-w0rd-x",
    ]
    return [p for p in pieces if p in text]


@pytest.mark.parametrize("how", ["ok", "server-error", "dropped"])
@pytest.mark.parametrize("view", VIEWS, ids=lambda v: "-".join(v[:2]))
def test_no_credential_in_any_output(
    run_cli: Any,
    kubeconfig: Path,
    token: str,
    apiserver: LoopbackApiServer,
    tmp_path: Path,
    view: list[str],
    how: str,
) -> None:
    _with_unused_key(kubeconfig)
    debug = [] if how == "ok" else ["--debug"]
    if how == "server-error":
        apiserver.fail(r"/resourceslices$", 500, times=100)
    elif how == "dropped":
        apiserver.fail(r"/resourceslices$", drop=True, times=100)
    args = [*debug, *view, "--request-timeout", "5s"]
    snap = tmp_path / "snap.yaml"
    if view[0] == "snapshot":
        args += ["--file", str(snap)]
    result = run_cli(args)
    if how == "ok":
        assert result.exit_code in (0, 1), result.stderr
    else:
        assert result.exit_code == 3, result.stderr
    written = snap.read_text() if snap.exists() else ""
    for text in (result.stdout, result.stderr, written):
        assert _leaks(text, token) == []
    assert apiserver.url not in written


def test_debug_really_shows_a_traceback(run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    """The failing runs above go through --debug's traceback (so the check covers it)."""
    apiserver.fail(r"/resourceslices$", drop=True, times=100)
    result = run_cli(["--debug", "availability", "--request-timeout", "5s"])
    assert result.exit_code == 3 and "Traceback" in result.stderr
