"""Hostile API responses (issue 11): a body the decoder cannot take (nested too deeply for it, not
JSON, a list that is not a list) is a one-line cluster error (exit 3), never an internal error."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("view", [["snapshot", "-A"], ["availability", "-o", "json"], ["health"]])
def test_an_item_cannot_say_it_is_another_kind(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, view: list[str], tmp_path: Path
) -> None:
    """Found by the fuzz campaign: an item carrying its own kind (here with a U+2028) made the
    snapshot writer raise (exit 70).  The resource listed decides what its items are."""
    body = json.dumps(
        {
            "kind": "ResourceSliceList",
            "items": [{"metadata": {"name": "x"}, "kind": "Evil\u2028", "apiVersion": "v0"}],
        }
    ).encode()
    apiserver.faults.append(Fault(r"/resourceslices$", times=100, body=body))
    out = tmp_path / "s.yaml"
    extra = ["--file", str(out)] if view[0] == "snapshot" else []
    result = run_cli([*view, *extra, "--request-timeout", "5s"])
    assert result.exit_code in (0, 1, 3), result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    if view[0] == "snapshot":
        assert result.exit_code == 0 and "Evil" not in out.read_text()


@pytest.mark.parametrize("view", [["snapshot", "-A"], ["availability"], ["claims", "-A"]])
def test_a_list_whose_continue_token_repeats_ends(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, view: list[str], tmp_path: Path
) -> None:
    """Found by the fuzz harness's memory check: a server that answers every page with the same
    continue token (here ``5``) was read page after page, each page's items kept, until the
    server stopped (106 MB for 1,000 pages of 100 KB).  The second time a token comes, the list
    is a cluster error, after two requests."""
    item = {"metadata": {"name": "x" * 100}, "spec": {}}
    body = json.dumps({"kind": "List", "metadata": {"continue": 5}, "items": [item]}).encode()
    path = r"/resourceslices$" if view[0] != "claims" else r"/resourceclaims$"
    apiserver.faults.append(Fault(path, times=1000, body=body))
    extra = ["--file", str(tmp_path / "s.yaml")] if view[0] == "snapshot" else []
    result = run_cli([*view, *extra, "--request-timeout", "5s"])
    assert result.exit_code == 3, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("dractl: error:")]
    assert len(errors) == 1 and "never ends" in errors[0], result.stderr
    assert apiserver.faults[0].times == 998  # two pages read, not a thousand
