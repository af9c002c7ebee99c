"""The live cluster as context for ``dractl lint`` and ``claim validate`` (``--cluster``,
``--context``): the cross-object checks see the cluster's objects and the API versions it
serves; a plain run never touches the network; denied reads are reported, not fatal, unless
nothing at all could be read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import demo_objects
from loopback_api import LoopbackApiServer, Policy
from loopback_tls import Certs

from dractl.cluster import transport
from dractl.cluster.context import context_docs
from dractl.cluster.options import ClusterOptions
from dractl.io.loader import load_paths
from dractl.model.features import Features
from dractl.validate.lint import lint
from dractl.validate.options import ValidateOptions

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].productName == 'B200'"}}]
"""
BETA_CLASS = """apiVersion: resource.k8s.io/v1beta2
kind: DeviceClass
metadata: {name: beta-gpu}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com'"}}]
"""


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


@pytest.fixture
def claim_file(tmp_path: Path) -> Path:
    path = tmp_path / "claim.yaml"
    path.write_text(CLAIM)
    return path


def _rules(stdout: str) -> list[str]:
    return [i["rule"] for i in json.loads(stdout)["items"]]


def test_cluster_objects_are_lint_context(kubeconfig: Path, claim_file: Path) -> None:
    ctx = context_docs(ClusterOptions(all_namespaces=True))
    assert ctx.description.startswith("cluster: context loopback") and ctx.server_version == "v1.37.1"
    assert ctx.header["servedVersions"] == ["resource.k8s.io/v1"] and ctx.missing == []
    assert {d.kind for d in ctx.docs} >= {"DeviceClass", "ResourceSlice", "Node"}
    assert all(d.origin.file == "cluster:loopback" for d in ctx.docs)
    inputs = load_paths([str(claim_file)]).docs
    opts = ValidateOptions(kube_version="1.37", features=Features.for_version("1.37"))
    with_cluster = lint(inputs, opts, context_docs=ctx.docs)
    without = lint(inputs, opts)
    assert [f.rule for f in without] == ["ADV-CLASS-EXISTS"]  # no context: the class is unknown
    assert [(f.rule, f.message) for f in with_cluster] == [
        (
            "LINT-SELECTOR-NO-MATCH",
            "request 'gpu' matches 0 of the 6 devices of class 'gpu.nvidia.com' in the cluster context",
        )
    ]


@pytest.mark.parametrize("flag", [["--cluster"], ["--context", "loopback"]])
def test_lint_with_the_cluster_as_context(
    run_cli: Any,
    kubeconfig: Path,
    apiserver: LoopbackApiServer,
    token: str,
    claim_file: Path,
    flag: list[str],
) -> None:
    result = run_cli(["lint", str(claim_file), *flag, "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert _rules(result.stdout) == ["LINT-SELECTOR-NO-MATCH"]
    assert token not in result.stdout + result.stderr
    reads = {r.path for r in apiserver.requests}
    assert "/apis/resource.k8s.io/v1/deviceclasses" in reads and "/api/v1/pods" not in reads


def test_claim_validate_runs_the_cross_checks_with_the_cluster(
    run_cli: Any, kubeconfig: Path, claim_file: Path
) -> None:
    plain = run_cli(["claim", "validate", str(claim_file), "-o", "json"])
    live = run_cli(["claim", "validate", str(claim_file), "--cluster", "-o", "json"])
    assert plain.exit_code == live.exit_code == 0, live.stderr
    assert _rules(plain.stdout) == [] and _rules(live.stdout) == ["LINT-SELECTOR-NO-MATCH"]


def test_a_plain_run_never_touches_the_network(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, claim_file: Path
) -> None:
    result = run_cli(["lint", str(claim_file), "-o", "json"])
    assert result.exit_code == 0 and _rules(result.stdout) == ["ADV-CLASS-EXISTS"]
    assert apiserver.requests == []


def test_denied_cluster_scoped_reads_are_reported_not_fatal(
    run_cli: Any,
    apiserver: LoopbackApiServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    claim_file: Path,
) -> None:
    apiserver.add_token("team-token", Policy.namespace_only("default"))
    kc = apiserver.kubeconfig(tmp_path / "kc", "team-token", namespace="default")
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli(["lint", str(claim_file), "--cluster", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert _rules(result.stdout) == ["ADV-CLASS-EXISTS"]  # the classes could not be seen
    assert (
        "Warning: lint: cluster context: could not read deviceclasses.resource.k8s.io at the cluster "
        "scope: forbidden" in result.stderr
    )
    assert "team-token" not in result.stdout + result.stderr


def test_nothing_readable_is_a_cluster_error(
    run_cli: Any,
    apiserver: LoopbackApiServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    claim_file: Path,
) -> None:
    apiserver.add_token("nobody", Policy("nobody", []))
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", "nobody")))
    result = run_cli(["lint", str(claim_file), "--cluster"])
    assert result.exit_code == 3
    assert result.stderr.splitlines()[-1].startswith(
        "dractl: error: read the cluster context: nothing could be read ("
    )
    assert result.stdout == ""


def test_cluster_flags_conflict_with_a_snapshot(run_cli: Any, claim_file: Path, tmp_path: Path) -> None:
    both = run_cli(["lint", str(claim_file), "--cluster", "--snapshot", str(claim_file)])
    assert both.exit_code == 2 and "--snapshot and --cluster" in both.stderr
    alone = run_cli(["lint", str(claim_file), "--request-timeout", "5s"])
    assert alone.exit_code == 2 and "--request-timeout needs --cluster" in alone.stderr
    assert not re.search(r"^\s+--cluster\s", run_cli(["validate", "--help"]).stdout, re.M)  # no context there


@pytest.fixture
def beta_server(
    certs: Certs, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LoopbackApiServer]:
    """A 1.37 cluster started with --runtime-config resource.k8s.io/v1beta2=true."""
    server = LoopbackApiServer(certs, dra_versions=("v1", "v1beta2"))
    server.state.load(demo_objects())
    server.add_token(token, Policy.admin())
    server.start()
    monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / "kc", token)))
    try:
        yield server
    finally:
        server.stop()


def test_served_versions_come_from_discovery(
    run_cli: Any, beta_server: LoopbackApiServer, tmp_path: Path
) -> None:
    path = tmp_path / "class.yaml"
    path.write_text(BETA_CLASS)
    offline = _rules(run_cli(["lint", str(path), "-o", "json"]).stdout)
    live = _rules(run_cli(["lint", str(path), "--cluster", "-o", "json"]).stdout)
    assert "API-VERSION-NOT-ENABLED" in offline  # kube-apiserver's defaults serve v1 only
    assert "API-VERSION-NOT-ENABLED" not in live and "API-VERSION-DEPRECATED" in live


def test_snapshot_header_records_served_versions_round_trip(
    run_cli: Any, beta_server: LoopbackApiServer, tmp_path: Path
) -> None:
    snap = tmp_path / "snap.yaml"
    assert run_cli(["snapshot", "-A", "--file", str(snap)]).exit_code == 0
    header = next(yaml.safe_load_all(snap.read_text()))
    assert header["servedVersions"] == ["resource.k8s.io/v1", "resource.k8s.io/v1beta2"]
    path = tmp_path / "class.yaml"
    path.write_text(BETA_CLASS)
    from_snapshot = run_cli(["lint", str(path), "--snapshot", str(snap), "-o", "json"])
    live = run_cli(["lint", str(path), "--cluster", "-o", "json"])
    assert json.loads(from_snapshot.stdout)["items"] == json.loads(live.stdout)["items"]
    assert "API-VERSION-NOT-ENABLED" not in _rules(from_snapshot.stdout)


@pytest.mark.parametrize("git_version, free", [("v1.37.0", 0), ("v1.37.1", 18)])
def test_a_live_clusters_patch_release_decides_rules_without_selector(
    run_cli: Any,
    certs: Certs,
    token: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    git_version: str,
    free: int,
) -> None:
    """kubernetes PR #141648 (v1.37.1): a DeviceTaintRule without selector matches no device."""
    server = LoopbackApiServer(certs, git_version=git_version)
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "no-selector"},
        "spec": {"taint": {"key": "maintenance", "effect": "NoSchedule"}},
    }
    server.state.load([*demo_objects(), rule])
    server.add_token(token, Policy.admin())
    server.start()
    try:
        monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / "kc", token)))
        result = run_cli(["availability", "-o", "json"])
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["summary"]["free"] == free
    finally:
        server.stop()


POD_B = """apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: team-b}
spec:
  containers: [{name: c, image: busybox, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimName: shared-gpu}]
"""


def _claim_in(namespace: str, name: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}"},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}
        },
    }


@pytest.fixture
def pod_b(tmp_path: Path, apiserver: LoopbackApiServer) -> Path:
    apiserver.state.add(_claim_in("team-b", "shared-gpu"))
    path = tmp_path / "pod.yaml"
    path.write_text(POD_B)
    return path


def test_claims_of_every_namespace_are_context_by_default(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, pod_b: Path
) -> None:
    # The pod's claim exists in its own namespace (team-b), not in the kubeconfig context's
    # (default): reading only the context's namespace would report it missing.
    result = run_cli(["lint", str(pod_b), "--cluster", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert "ADV-CLAIM-EXISTS" not in _rules(result.stdout)
    reads = {r.path for r in apiserver.requests}
    assert "/apis/resource.k8s.io/v1/resourceclaims" in reads


def test_namespace_limits_the_context_claims(
    run_cli: Any, kubeconfig: Path, apiserver: LoopbackApiServer, pod_b: Path
) -> None:
    other = run_cli(["lint", str(pod_b), "--cluster", "-n", "default", "-o", "json"])
    assert other.exit_code == 0, other.stderr
    assert "ADV-CLAIM-EXISTS" in _rules(other.stdout)
    reads = {r.path for r in apiserver.requests}
    assert "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims" in reads
    assert "/apis/resource.k8s.io/v1/resourceclaims" not in reads
    apiserver.requests.clear()
    own = run_cli(["lint", str(pod_b), "--cluster", "--namespace", "team-b", "-o", "json"])
    assert own.exit_code == 0 and "ADV-CLAIM-EXISTS" not in _rules(own.stdout)
    assert "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims" in {r.path for r in apiserver.requests}


def test_a_namespace_user_falls_back_to_the_contexts_namespace(
    run_cli: Any, apiserver: LoopbackApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pod_b: Path
) -> None:
    apiserver.add_token("team-b-token", Policy.namespace_only("team-b"))
    kc = apiserver.kubeconfig(tmp_path / "kc", "team-b-token", namespace="team-b")
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli(["lint", str(pod_b), "--cluster", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert "ADV-CLAIM-EXISTS" not in _rules(result.stdout)  # team-b's claims were still read
    assert (
        "could not read resourceclaims.resource.k8s.io at the cluster scope: forbidden "
        "(only namespace team-b was read)" in result.stderr
    )


def test_namespace_needs_the_cluster(run_cli: Any, claim_file: Path) -> None:
    result = run_cli(["lint", str(claim_file), "-n", "team-b"])
    assert result.exit_code == 2
    assert "--namespace needs --cluster (or --context/--kubeconfig)" in result.stderr


def test_the_context_read_reports_progress(kubeconfig: Path) -> None:
    seen: list[tuple[str, int, int | None]] = []
    context_docs(ClusterOptions(all_namespaces=True), progress=lambda *a: seen.append(a))
    assert {what for what, _, _ in seen} >= {"deviceclasses", "resourceslices", "resourceclaims"}
    assert all(done >= 0 and (total is None or total >= done) for _, done, total in seen)


def test_progress_line_only_on_a_terminal_and_for_text_output() -> None:
    import io

    from rich.console import Console

    from dractl.cli.cluster_options import progress_reporter

    class Env:
        def __init__(self, terminal: bool) -> None:
            self.buffer = io.StringIO()
            self.err = Console(file=self.buffer, force_terminal=terminal, width=80)

    tty = Env(terminal=True)
    with progress_reporter(tty) as progress:  # type: ignore[arg-type]
        assert progress is not None
        progress("resourceclaims", 500, 2000)
    with progress_reporter(tty, enabled=False) as off:  # type: ignore[arg-type]
        assert off is None
    pipe = Env(terminal=False)
    with progress_reporter(pipe) as none:  # type: ignore[arg-type]
        assert none is None
    assert pipe.buffer.getvalue() == ""
