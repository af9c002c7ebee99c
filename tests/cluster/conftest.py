"""Fixtures for the cluster tests: a throw-away CA (once per session), a loopback API server
holding the demo cluster, and a kubeconfig with a random bearer token pointing at it."""

from __future__ import annotations

import copy
import functools
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from loopback_api import LoopbackApiServer, Policy
from loopback_tls import Certs, make_certs

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"


def demo_objects() -> list[dict[str, Any]]:
    """The demo cluster's objects (fresh copies: callers may change them)."""
    return copy.deepcopy(_demo())


@functools.cache
def _demo() -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for path in sorted(DEMO.glob("*.yaml")):
        objs.extend(d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict))
    return objs


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("ca"))


@pytest.fixture
def token() -> str:
    return "lbk-" + secrets.token_urlsafe(24)


@pytest.fixture
def apiserver(certs: Certs, token: str) -> Iterator[LoopbackApiServer]:
    server = LoopbackApiServer(certs)
    server.state.load(demo_objects())
    server.add_token(token, Policy.admin())
    server.start()
    try:
        yield server
    finally:
        server.stop()
    # dractl is read-only: the server saw nothing but GETs (tests/cluster/test_cluster_read_only.py)
    assert {r.method for r in server.requests} <= {"GET"}


@pytest.fixture
def kubeconfig(
    apiserver: LoopbackApiServer, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A kubeconfig for the admin token, also set as $KUBECONFIG."""
    path = apiserver.kubeconfig(tmp_path / "kubeconfig", token)
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path
