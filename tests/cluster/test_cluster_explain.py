"""explain-allocation on a live cluster: the same answer as on the cluster's objects as files
or as a snapshot of it; pending pods read by name; a namespace-only user still gets one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO
from loopback_api import LoopbackApiServer, Policy


@pytest.mark.parametrize(
    "target",
    [
        ["--claim", "two-h100"],
        ["--claim", "default/single-gpu"],
        ["--pod", "default/notebook"],
        ["--claim", "two-h100", "-o", "json"],
        ["--pod", "legacy-cuda", "--node", "gpu-node-1"],
    ],
)
def test_live_equals_files_and_snapshot(
    run_cli: Any, kubeconfig: Path, tmp_path: Path, target: list[str]
) -> None:
    live = run_cli(["explain-allocation", *target])
    files = run_cli(["explain-allocation", *target, "-f", str(DEMO)])
    assert run_cli(["snapshot", "-A", "--file", str(tmp_path / "s.yaml")]).exit_code == 0
    snap = run_cli(["explain-allocation", *target, "--snapshot", str(tmp_path / "s.yaml")])
    assert live.exit_code == files.exit_code == snap.exit_code
    assert live.stderr == snap.stderr == ""

    def norm(text: str) -> str:  # the report names its source; the rest must agree
        return "\n".join(
            line
            for line in text.splitlines()
            if "cluster:" not in line
            and "files:" not in line
            and "snapshot:" not in line
            and '"source' not in line
        )

    assert norm(live.stdout) == norm(files.stdout) == norm(snap.stdout)


def test_live_explain_never_lists_every_pod(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    result = run_cli(["explain-allocation", "--pod", "notebook"])
    assert result.exit_code in (0, 1), result.stderr
    pod_lists = [r for r in apiserver.requests if r.path.endswith("/pods")]
    assert pod_lists and all(r.query.get("fieldSelector") == "spec.nodeName=" for r in pod_lists)


def test_namespace_user_gets_an_answer_and_a_warning(
    run_cli: Any, apiserver: LoopbackApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster_reads = frozenset({"deviceclasses", "resourceslices", "devicetaintrules", "nodes"})
    apiserver.add_token(
        "team-a",
        Policy(
            "alice",
            [
                (frozenset({"get", "list", "watch"}), cluster_reads, frozenset({""})),
                (frozenset({"get", "list", "watch"}), frozenset({"*"}), frozenset({"team-a"})),
            ],
        ),
    )
    apiserver.state.add(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "one-gpu", "namespace": "team-a"},
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}
            },
        }
    )
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", "team-a")))
    result = run_cli(["explain-allocation", "--claim", "team-a/one-gpu"])
    assert result.exit_code == 0, result.stderr
    warnings = result.stderr.splitlines()
    assert (
        "Warning: could not read resourceclaims.resource.k8s.io at the cluster scope: forbidden "
        "(only namespace team-a was read); the result does not include them"
    ) in warnings
    assert all(w.startswith("Warning: could not read ") for w in warnings) and len(warnings) == 3
    assert "gpu-node-1" in result.stdout


def test_live_explain_cluster_errors_exit_3(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.tokens.clear()
    result = run_cli(["explain-allocation", "--claim", "two-h100"])
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("dractl: error: cannot get the server version (/version): unauthorized")
