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


def _fresh_pages(items: list[dict[str, Any]], remaining: int | None = None) -> Any:
    """A body for every page: the same items, a continue token never sent before."""

    def body(n: int) -> bytes:
        meta: dict[str, Any] = {"continue": f"page-{n + 1}", "resourceVersion": "7"}
        if remaining is not None:
            meta["remainingItemCount"] = remaining
        return json.dumps({"kind": "List", "metadata": meta, "items": items}).encode()

    return body


def _one_error(result: Any) -> str:
    assert result.exit_code == 3, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("dractl: error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


VIEWS = [["snapshot", "-A"], ["availability"], ["claims", "-A"]]


def _path(view: list[str]) -> str:
    return r"/resourceclaims$" if view[0] == "claims" else r"/resourceslices$"


def _extra(view: list[str], tmp_path: Path) -> list[str]:
    return ["--file", str(tmp_path / "s.yaml")] if view[0] == "snapshot" else []


@pytest.mark.parametrize("view", VIEWS)
def test_a_list_that_sends_more_items_than_it_announced_ends(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, view: list[str], tmp_path: Path
) -> None:
    """A fresh continue token on every page, each page saying one item remains: a list is read
    from one snapshot, so more items than the first page announced (here 2) is a server that
    never ends; refused on the third page, not after a thousand."""
    item = {"metadata": {"name": "x"}, "spec": {}}
    apiserver.faults.append(Fault(_path(view), times=1000, body=_fresh_pages([item], remaining=1)))
    result = run_cli([*view, *_extra(view, tmp_path), "--request-timeout", "5s"])
    error = _one_error(result)
    assert "never ends" in error and "announcing 2" in error, error
    assert apiserver.faults[0].served == 3


@pytest.mark.parametrize("view", VIEWS)
def test_a_list_of_empty_pages_that_go_on_ends(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, view: list[str], tmp_path: Path
) -> None:
    """kube-apiserver fills every page but the last; a server sending empty pages with fresh
    continue tokens (no memory grows: it would be a silent hang) is refused after
    MAX_EMPTY_PAGES of them."""
    from dractl.cluster.lists import MAX_EMPTY_PAGES

    apiserver.faults.append(Fault(_path(view), times=100_000, body=_fresh_pages([])))
    result = run_cli([*view, *_extra(view, tmp_path), "--request-timeout", "5s"])
    error = _one_error(result)
    assert "never ends" in error and f"{MAX_EMPTY_PAGES} pages in a row" in error, error
    assert apiserver.faults[0].served == MAX_EMPTY_PAGES


@pytest.mark.parametrize("view", VIEWS)
def test_a_list_with_fresh_tokens_forever_ends_at_the_byte_bound(
    run_cli: Any,
    kubeconfig: Path,
    apiserver: LoopbackApiServer,
    view: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Full pages, a fresh token each time, no remainingItemCount (as with a field selector):
    nothing in the pages says when the list ends, so the byte bound does (lowered here from
    MAX_LIST_BYTES, the size of a default etcd, to 64 KiB: the same code path)."""
    from dractl.cluster import lists

    monkeypatch.setattr(lists, "MAX_LIST_BYTES", 64 << 10)
    item = {"metadata": {"name": "x" * 1000}, "spec": {}}
    pages = _fresh_pages([item])
    apiserver.faults.append(Fault(_path(view), times=100_000, body=pages))
    result = run_cli([*view, *_extra(view, tmp_path), "--request-timeout", "5s"])
    error = _one_error(result)
    assert "larger than 64 KiB" in error, error
    # stopped by the page that crosses the bound (pages 1…99 differ in length by a byte)
    assert apiserver.faults[0].served == pytest.approx((64 << 10) / len(pages(50)), abs=1.5)


def test_a_response_longer_than_the_bound_is_not_read_further(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One body over the bound (a server streaming a list without end) is cut off while it is
    read: refused, never read whole into memory."""
    from dractl.cluster import lists

    monkeypatch.setattr(lists, "MAX_LIST_BYTES", 1 << 20)
    item = {"metadata": {"name": "x" * 1000}, "spec": {}}
    body = json.dumps({"kind": "List", "metadata": {}, "items": [item] * 3000}).encode()
    apiserver.faults.append(Fault(r"/resourceslices$", times=10, body=body))
    error = _one_error(run_cli(["availability", "--request-timeout", "5s"]))
    assert "list is larger than 1 MiB" in error and "resourceslices" in error, error
    assert apiserver.faults[0].served == 1  # refused, not retried


def test_a_body_that_drips_forever_ends_with_the_request_timeout(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    """A server that sends a few bytes every 50 ms never trips a socket's read timeout; the
    --request-timeout bounds reading the body too."""
    apiserver.faults.append(Fault(r"/resourceslices$", times=100, drip=0.05))
    error = _one_error(run_cli(["availability", "--request-timeout", "1s"]))
    assert "resourceslices" in error and "timed out" in error, error


def test_an_object_larger_than_an_object_can_be_is_refused(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GET of one object or discovery document (here /version) is bounded by
    MAX_OBJECT_BYTES (lowered to 1 KiB here), far below a list's bound."""
    from dractl.cluster import transport

    monkeypatch.setattr(transport, "MAX_OBJECT_BYTES", 1 << 10)
    body = json.dumps({"major": "1", "minor": "37", "gitVersion": "v1.37.0", "pad": "x" * 4096}).encode()
    apiserver.faults.append(Fault(r"/version$", times=10, body=body))
    error = _one_error(run_cli(["availability", "--request-timeout", "5s"]))
    assert "/version" in error and "response is larger than 1 KiB" in error, error
