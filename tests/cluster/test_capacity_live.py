"""``dractl capacity`` on a live cluster (the loopback API server holding the demo): the same
answer as on the same objects given as files, the pod read by name in the context's
namespace, read-only, no token in any output, and cluster errors exit 3."""

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


def _summary(stdout: str) -> tuple[int, dict[str, int]]:
    doc = json.loads(stdout)
    return doc["summary"]["copies"], {n["name"]: n["copies"] for n in doc["nodes"]}


@pytest.mark.parametrize(
    "target", [["--claim", "single-gpu"], ["--pod", "notebook"], ["--pod", "default/legacy-cuda"]]
)
def test_live_answer_equals_the_files_answer(
    run_cli: Any, kubeconfig: Path, token: str, target: list[str]
) -> None:
    live = run_cli(["capacity", *target, "-o", "json"])
    files = run_cli(["capacity", *target, "-f", DEMO, "-o", "json"])
    assert live.exit_code == files.exit_code, live.stderr
    assert _summary(live.stdout) == _summary(files.stdout)
    assert token not in live.stdout + live.stderr


def test_pod_is_read_by_name_in_the_contexts_namespace(
    run_cli: Any, apiserver: LoopbackApiServer, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = apiserver.kubeconfig(tmp_path / "kc", token, namespace="default")
    monkeypatch.setenv("KUBECONFIG", str(path))
    result = run_cli(["capacity", "--pod", "notebook", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["target"] == "pod default/notebook"
    pod_reads = [r.path for r in apiserver.requests if "/pods" in r.path]
    assert any(p.endswith("/namespaces/default/pods/notebook") for p in pod_reads)
    assert not any(
        r.path.rstrip("/").endswith("/pods")
        and "namespaces" not in r.path
        and not r.query.get("fieldSelector")
        for r in apiserver.requests
    )  # never all pods (the unscheduled ones, by field selector, are read)
    assert {r.method for r in apiserver.requests} == {"GET"}


def test_forbidden_cluster_is_exit_3_with_the_denied_call(
    run_cli: Any, apiserver: LoopbackApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apiserver.add_token("nobody", Policy("nobody", []))
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", "nobody")))
    result = run_cli(["capacity", "--claim", "single-gpu"])
    assert result.exit_code == 3
    assert "forbidden" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""
