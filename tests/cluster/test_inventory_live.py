"""The inventory views on a live cluster (the loopback API server holding the demo): the same
tables as on the same objects given as files, read-only, no token in any output, claims scoped
to the namespace asked for, cluster errors exit 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster import transport

REPO = Path(__file__).resolve().parents[2]
DEMO = str(REPO / "examples" / "demo")


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


@pytest.mark.parametrize(
    "view",
    [
        ["availability"],
        ["availability", "--by", "class", "-o", "wide"],
        ["claims", "-A", "-o", "wide"],
        ["health", "-o", "wide"],
        ["taints"],
        ["availability", "--node", "gpu-node-2"],
    ],
)
def test_live_view_equals_the_view_of_the_same_objects_as_files(
    run_cli: Any, kubeconfig: Path, token: str, apiserver: LoopbackApiServer, view: list[str]
) -> None:
    live = run_cli(view)
    files = run_cli([*view, "-f", DEMO])
    assert live.exit_code == files.exit_code == 0, live.stderr
    assert live.stdout == files.stdout  # (-o wide taints differ: the server stamps creationTimestamp)
    assert token not in live.stdout + live.stderr
    assert {r.method for r in apiserver.requests} == {"GET"}


def test_json_context_names_the_cluster(run_cli: Any, kubeconfig: Path) -> None:
    doc = json.loads(run_cli(["taints", "-o", "json"]).stdout)
    assert doc["context"]["sources"][0].startswith("cluster: context loopback")
    assert doc["summary"]["podsToEvict"] == 1


def test_claims_of_the_contexts_namespace_only(
    run_cli: Any, apiserver: LoopbackApiServer, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", token, namespace="team-a")))
    result = run_cli(["claims", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["items"] == []
    claim_reads = [r.path for r in apiserver.requests if r.path.endswith("/resourceclaims")]
    assert claim_reads and all("/namespaces/team-a/" in p for p in claim_reads)


def test_forbidden_is_exit_3_and_prints_no_table(
    run_cli: Any, apiserver: LoopbackApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apiserver.add_token(
        "no-slices",
        Policy.reads_all_but("resourceslices"),
    )
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", "no-slices")))
    result = run_cli(["availability"])
    assert result.exit_code == 3 and result.stdout == ""
    assert "cannot list resourceslices.resource.k8s.io at the cluster scope: forbidden" in result.stderr
    partial = run_cli(["availability", "--partial"])
    assert partial.exit_code == 0 and "Warning: could not read resourceslices" in partial.stderr
