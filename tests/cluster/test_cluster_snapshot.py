"""``dractl snapshot`` against the loopback server: the file every command reads back with
``--snapshot``; Pods reduced, opaque parameters only on request, no credentials anywhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from cluster_helpers import comparable
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster import transport
from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.io.sources import SnapshotSource


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


def _docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d is not None]


def _secretive_objects(server: LoopbackApiServer) -> None:
    """A running pod with env, args and annotations; a claim with opaque parameters."""
    pod = server.state.objects["Pod"][("default", "trainer-0")]
    pod["metadata"]["annotations"] = {"team.example.com/pager": "secret-annotation"}
    pod["spec"]["containers"][0].update(
        {"env": [{"name": "API_KEY", "value": "secret-env"}], "args": ["--password=secret-arg"]}
    )
    pod["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    claim = server.state.objects["ResourceClaim"][("default", "training-gpus")]
    claim["spec"]["devices"]["config"] = [
        {
            "requests": ["gpus"],
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "gpu.nvidia.com/v1",
                    "kind": "GpuConfig",
                    "sharing": {"strategy": "secret-opaque"},
                },
            },
        }
    ]
    claim["metadata"]["managedFields"] = [{"manager": "kube-scheduler"}]


def test_snapshot_reads_back_as_the_live_world(run_cli: Any, kubeconfig: Path, tmp_path: Path) -> None:
    result = run_cli(["snapshot", "-A", "--file", str(tmp_path / "snap.yaml")])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    from_snapshot = SnapshotSource(str(tmp_path / "snap.yaml")).load()
    live = ClusterSource(ClusterOptions(all_namespaces=True)).load()
    assert comparable(from_snapshot) == comparable(live)
    assert from_snapshot.kube_version == "1.37" and from_snapshot.feature_gates == live.feature_gates


def test_a_json_file_is_the_same_snapshot_one_document_per_line(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    _secretive_objects(apiserver)
    pod = apiserver.state.objects["Pod"][("default", "trainer-0")]
    pod["metadata"]["labels"] = {"owner": "zoë\u202e\x1b[31m"}  # non-ASCII, bidi, a control
    for name in ("snap.yaml", "snap.json"):
        result = run_cli(["snapshot", "-A", "--file", str(tmp_path / name)])
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    text = (tmp_path / "snap.json").read_text()
    assert text.isascii()  # every non-ASCII or control character escaped
    lines = text.splitlines()
    docs = [json.loads(line) for line in lines]
    assert docs[0]["kind"] == "Snapshot" and len(docs) > 3
    yaml_docs = _docs((tmp_path / "snap.yaml").read_text())
    for doc in (docs[0], yaml_docs[0]):
        doc.pop("time")  # taken a moment apart
    assert docs == yaml_docs  # the same documents, Pods reduced and parameters left out alike
    assert "secret-env" not in text and "secret-opaque" not in text
    from_json = SnapshotSource(str(tmp_path / "snap.json")).load()
    assert comparable(from_json) == comparable(SnapshotSource(str(tmp_path / "snap.yaml")).load())
    views = [
        run_cli(["availability", "--snapshot", str(tmp_path / name), "-o", "json"]).stdout
        for name in ("snap.yaml", "snap.json")
    ]
    assert views[0] == views[1].replace("snap.json", "snap.yaml")  # the source's name aside
    assert '"AvailabilityReport"' in views[0]


def test_snapshot_to_stdout_has_the_header_first_and_kinds_in_order(run_cli: Any, kubeconfig: Path) -> None:
    result = run_cli(["snapshot", "-A"])
    assert result.exit_code == 0
    docs = _docs(result.stdout)
    assert (
        docs[0]["kind"] == "Snapshot" and docs[0]["serverVersion"] == "v1.37.1" and "missing" not in docs[0]
    )
    kinds = [d["kind"] for d in docs[1:]]
    order = [
        "DeviceClass",
        "ResourceSlice",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "DeviceTaintRule",
        "Node",
        "Pod",
    ]
    assert kinds == sorted(kinds, key=order.index)
    assert all(d["apiVersion"] for d in docs[1:])


def test_pods_are_reduced_and_opaque_parameters_left_out(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    _secretive_objects(apiserver)
    result = run_cli(["snapshot", "-A"])
    assert result.exit_code == 0
    assert "secret" not in result.stdout and "managedFields" not in result.stdout
    claim = next(d for d in _docs(result.stdout)[1:] if d["metadata"]["name"] == "training-gpus")
    assert claim["spec"]["devices"]["config"] == [
        {"requests": ["gpus"], "opaque": {"driver": "gpu.nvidia.com"}}
    ]
    pod = next(d for d in _docs(result.stdout)[1:] if d["metadata"]["name"] == "trainer-0")
    assert pod["spec"]["containers"] == [{"name": "trainer", "resources": {"claims": [{"name": "gpus"}]}}]


def test_include_config_keeps_opaque_parameters_but_pods_stay_reduced(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    _secretive_objects(apiserver)
    result = run_cli(["snapshot", "-A", "--include-config"])
    assert result.exit_code == 0
    assert "secret-opaque" in result.stdout
    assert "secret-env" not in result.stdout and "secret-arg" not in result.stdout
    assert "secret-annotation" not in result.stdout


def test_namespace_scope_and_node(run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    result = run_cli(["snapshot", "-n", "default", "--node", "gpu-node-1"])
    assert result.exit_code == 0
    docs = _docs(result.stdout)
    assert {d["metadata"]["name"] for d in docs if d["kind"] == "Node"} == {"gpu-node-1"}
    assert {d["metadata"]["name"] for d in docs if d["kind"] == "Pod"} == {"inference-0"}
    assert all(r.query.get("fieldSelector") for r in apiserver.requests if r.path.endswith("/pods"))


def test_partial_snapshot_names_what_is_missing(
    run_cli: Any,
    kubeconfig: Path,
    apiserver: LoopbackApiServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    apiserver.fail(r"/devicetaintrules$", 500, times=100)
    result = run_cli(["snapshot", "-A", "--partial"])
    assert result.exit_code == 0
    assert _docs(result.stdout)[0]["missing"] == [
        "devicetaintrules.resource.k8s.io at the cluster scope: injected 500 (InternalError, HTTP 500); "
        "gave up after 6 attempts"
    ]
    assert result.stderr.startswith("Warning: could not read devicetaintrules.resource.k8s.io")


def test_without_partial_a_failed_read_writes_nothing(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    apiserver.fail(r"/devicetaintrules$", 500, times=100)
    out = tmp_path / "snap.yaml"
    result = run_cli(["snapshot", "-A", "--file", str(out)])
    assert result.exit_code == 3 and result.stdout == "" and not out.exists()
    assert result.stderr.startswith(
        "dractl: error: list devicetaintrules.resource.k8s.io at the cluster scope"
    )
    assert len(result.stderr.splitlines()) == 1


def test_unwritable_file_is_exit_2(run_cli: Any, kubeconfig: Path, tmp_path: Path) -> None:
    result = run_cli(["snapshot", "--file", str(tmp_path / "no" / "such" / "dir" / "s.yaml")])
    assert result.exit_code == 2
    assert "cannot write the snapshot" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("flags", [["--chunk-size", "-1"], ["--request-timeout", "soon"], ["--context", ""]])
def test_bad_flags_are_usage_errors(run_cli: Any, kubeconfig: Path, flags: list[str]) -> None:
    result = run_cli(["snapshot", *flags])
    assert result.exit_code == 2 and "See 'dractl snapshot --help'." in result.stderr


def _break(how: str, server: LoopbackApiServer, kubeconfig: Path, tmp_path: Path) -> list[str]:
    """Args for a run that fails in the given way (the kubeconfig always holds the token)."""
    if how == "unauthorized":
        server.tokens.clear()
    elif how == "forbidden":
        server.tokens = {k: Policy.namespace_only("elsewhere") for k in server.tokens}
        return ["-A"]
    elif how == "server-error":
        server.fail(r"/resourceslices$", 500, times=100)
    elif how == "no-context":
        return ["--context", "nope"]
    elif how == "untrusted":
        doc = json.loads(kubeconfig.read_text())
        del doc["clusters"][0]["cluster"]["certificate-authority"]
        kubeconfig.write_text(json.dumps(doc))
    elif how == "dropped":
        server.fail(r"/version$", drop=True, times=100)
    return []


@pytest.mark.parametrize(
    "how", ["unauthorized", "forbidden", "server-error", "no-context", "untrusted", "dropped", "ok"]
)
def test_the_token_never_appears_in_any_output(
    run_cli: Any, kubeconfig: Path, token: str, how: str, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    args = _break(how, apiserver, kubeconfig, tmp_path)
    for debug in ([], ["--debug"]):
        out = tmp_path / f"snap{len(debug)}.yaml"
        result = run_cli([*debug, "snapshot", *args, "--file", str(out), "--request-timeout", "5s"])
        assert result.exit_code == (0 if how == "ok" else 3), result.stderr
        written = out.read_text() if out.exists() else ""
        for text in (result.stdout, result.stderr, written):
            assert token not in text
            assert token[4:12] not in text
        assert apiserver.url not in written  # nothing of the kubeconfig in a snapshot
