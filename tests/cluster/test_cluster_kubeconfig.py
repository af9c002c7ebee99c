"""kubeconfig resolution with kubectl's precedence and merge rules, the in-cluster service
account, exec credential plugins, and the errors for each way it can go wrong."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster import kubeconfig as kc
from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.errors import EXIT_CLUSTER, EXIT_INPUT, ClusterError, InputError


def _config(
    path: Path, current: str | None, contexts: dict[str, str | None], server: str = "https://127.0.0.1:1"
) -> Path:
    doc: dict = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "t0k3n-never-printed"}}],
        "contexts": [
            {"name": n, "context": {"cluster": "c", "user": "u", **({"namespace": ns} if ns else {})}}
            for n, ns in contexts.items()
        ],
    }
    if current:
        doc["current-context"] = current
    path.write_text(json.dumps(doc))
    return path


def test_kubeconfig_list_first_current_context_and_first_definition_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = _config(tmp_path / "a", "prod", {"prod": "team-a"})
    b = _config(tmp_path / "b", "dev", {"dev": "team-dev", "prod": "ignored"})
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(tmp_path / "missing"), str(a), str(b)]))
    conn = kc.connect(ClusterOptions())
    assert (conn.context, conn.namespace) == ("prod", "team-a")
    conn = kc.connect(ClusterOptions(context="dev"))
    assert (conn.context, conn.namespace) == ("dev", "team-dev")


def test_namespace_flag_beats_the_contexts_and_default_is_default(tmp_path: Path) -> None:
    path = _config(tmp_path / "a", "x", {"x": "team-x", "y": None})
    assert kc.connect(ClusterOptions(kubeconfig=str(path), namespace="n1")).namespace == "n1"
    assert kc.connect(ClusterOptions(kubeconfig=str(path), context="y")).namespace == "default"


def test_kubeconfig_flag_is_the_only_file_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(_config(tmp_path / "env", "env", {"env": None})))
    flag = _config(tmp_path / "flag", "flag", {"flag": None})
    assert kc.connect(ClusterOptions(kubeconfig=str(flag))).context == "flag"


def test_home_kubeconfig_without_kubeconfig_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECONFIG")
    (Path.home() / ".kube").mkdir()
    _config(Path.home() / ".kube" / "config", "home", {"home": None})
    assert kc.connect(ClusterOptions()).context == "home"


def test_unknown_context_lists_the_known_ones(tmp_path: Path) -> None:
    path = _config(tmp_path / "a", "x", {"x": None, "y": None})
    with pytest.raises(ClusterError) as err:
        kc.connect(ClusterOptions(kubeconfig=str(path), context="prod"))
    assert err.value.exit_code == EXIT_CLUSTER
    assert (
        err.value.message
        == "choose context: context 'prod' does not exist in the kubeconfig (contexts: x, y)"
    )


def test_no_current_context(tmp_path: Path) -> None:
    path = _config(tmp_path / "a", None, {"x": None})
    with pytest.raises(ClusterError, match="sets no current-context; give --context"):
        kc.connect(ClusterOptions(kubeconfig=str(path)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("clusters: [\n  - {name: x\n", "not a valid kubeconfig (YAML error)"),
        ("- just\n- a list\n", "not a valid kubeconfig (expected a mapping)"),
    ],
)
def test_malformed_kubeconfig_is_an_input_error(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        kc.connect(ClusterOptions(kubeconfig=str(path)))
    assert err.value.exit_code == EXIT_INPUT and expected in err.value.one_line()
    assert str(path) in err.value.one_line()


def test_missing_kubeconfig_flag_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        kc.connect(ClusterOptions(kubeconfig=str(tmp_path / "nope")))


def test_nothing_to_connect_with(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(
        ClusterError,
        match=r"no kubeconfig \(\$KUBECONFIG names no file that exists\) and not running in a pod",
    ):
        kc.connect(ClusterOptions())


def test_in_cluster_service_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, apiserver: LoopbackApiServer, token: str, certs: object
) -> None:
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text(token)
    (sa / "ca.crt").write_bytes(Path(certs.ca_cert).read_bytes())  # type: ignore[attr-defined]
    (sa / "namespace").write_text("team-pod\n")
    monkeypatch.setattr(kc, "SA_DIR", sa)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", apiserver.url.rsplit(":", 1)[1])
    src = ClusterSource(ClusterOptions(all_namespaces=True))
    world = src.load()
    assert src.connection is not None and src.connection.context is None
    assert src.connection.namespace == "team-pod"
    assert src.describe().startswith("cluster: in-cluster service account (https://127.0.0.1:")
    assert len(world.slices) == 4


def test_exec_credential_plugin(tmp_path: Path, apiserver: LoopbackApiServer) -> None:
    apiserver.add_token("from-exec-plugin", Policy.admin())
    plugin = tmp_path / "plugin.py"
    plugin.write_text(
        "import json\nprint(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', "
        "'kind': 'ExecCredential', 'status': {'token': 'from-exec-plugin'}}))\n"
    )
    path = apiserver.kubeconfig(tmp_path / "kc", "unused")
    doc = json.loads(path.read_text())
    doc["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [str(plugin)],
            "interactiveMode": "Never",
        }
    }
    path.write_text(json.dumps(doc))
    before = path.read_text()
    world = ClusterSource(ClusterOptions(kubeconfig=str(path))).load()
    assert len(world.slices) == 4
    assert {r.user for r in apiserver.requests} == {"admin"}
    assert path.read_text() == before  # never written back


def test_failing_exec_plugin_is_a_cluster_error(
    tmp_path: Path, apiserver: LoopbackApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = apiserver.kubeconfig(tmp_path / "kc", "unused")
    doc = json.loads(path.read_text())
    doc["users"][0]["user"] = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "/nonexistent/credential-helper"}
    }
    path.write_text(json.dumps(doc))
    with pytest.raises(ClusterError) as err:
        ClusterSource(ClusterOptions(kubeconfig=str(path))).load()
    assert err.value.exit_code == EXIT_CLUSTER
    assert err.value.message.startswith("authenticate with context loopback: the credential plugin failed: ")
    assert "/nonexistent/credential-helper" in err.value.message
    assert capsys.readouterr().err == ""  # the client's log line does not leak to stderr
    assert not apiserver.requests  # no request went out without credentials
