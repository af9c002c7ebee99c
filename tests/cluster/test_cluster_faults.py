"""Every failure of a read, against the loopback server: expired continue tokens, throttling,
server errors, dropped and truncated responses, slow servers, denied and unauthenticated
calls.  Nothing partial is returned as if complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster import transport
from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.errors import EXIT_CLUSTER, ClusterError

SLICES = r"/resourceslices$"


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


def _load(kubeconfig: Path, warnings: list[str] | None = None, **kw: object):  # type: ignore[no-untyped-def]
    opts = ClusterOptions(kubeconfig=str(kubeconfig), **kw)  # type: ignore[arg-type]
    src = ClusterSource(opts, warn=(warnings.append if warnings is not None else None))
    return src, src.load()


def test_expired_continue_token_restarts_the_list_once(
    kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.fail(SLICES, 410, query_has=("continue",), message="The provided continue parameter is too old")
    _, world = _load(kubeconfig, chunk_size=1)
    assert len(world.slices) == 4
    slice_reqs = [r for r in apiserver.requests if r.path.endswith("/resourceslices")]
    assert [r.status for r in slice_reqs][:3] == [200, 410, 200]
    assert "continue" not in slice_reqs[2].query  # started over


def test_a_second_expiry_fails(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    apiserver.fail(SLICES, 410, query_has=("continue",), times=2)
    with pytest.raises(ClusterError) as err:
        _load(kubeconfig, chunk_size=1)
    assert err.value.code == 410 and "expired twice" in err.value.message


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_statuses_are_retried(kubeconfig: Path, apiserver: LoopbackApiServer, status: int) -> None:
    apiserver.fail(SLICES, status, times=2, retry_after=0 if status == 429 else None)
    _, world = _load(kubeconfig)
    assert len(world.slices) == 4
    assert [r.status for r in apiserver.requests if r.path.endswith("/resourceslices")] == [
        status,
        status,
        200,
    ]


@pytest.mark.parametrize("fault", [{"drop": True}, {"truncate": True}])
def test_dropped_and_truncated_responses_are_retried(
    kubeconfig: Path, apiserver: LoopbackApiServer, fault: dict[str, bool]
) -> None:
    apiserver.fail(SLICES, times=1, **fault)
    _, world = _load(kubeconfig)
    assert len(world.slices) == 4
    assert len([r for r in apiserver.requests if r.path.endswith("/resourceslices")]) == 2


def test_retries_give_up_and_fail_with_exit_3(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    apiserver.fail(SLICES, 503, times=100, message="etcd is unhappy")
    with pytest.raises(ClusterError) as err:
        _load(kubeconfig, all_namespaces=True)
    assert err.value.exit_code == EXIT_CLUSTER
    assert err.value.message == (
        "list resourceslices.resource.k8s.io at the cluster scope: etcd is unhappy "
        "(ServiceUnavailable, HTTP 503); gave up after 6 attempts"
    )


def test_a_slow_server_fails_within_the_request_timeout(
    kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.fail(SLICES, times=100, delay=0.6)
    with pytest.raises(ClusterError) as err:
        _load(kubeconfig, request_timeout=0.5)
    assert "within --request-timeout 0.5s" in err.value.message
    assert "read timed out" in err.value.message or "timed out" in err.value.message


def test_a_slow_answer_within_the_timeout_is_fine(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    apiserver.fail(SLICES, times=1, delay=0.2)
    _, world = _load(kubeconfig, request_timeout=5.0)
    assert len(world.slices) == 4


def test_unauthorized_names_the_call_and_exits_3(
    kubeconfig: Path, tmp_path: Path, apiserver: LoopbackApiServer
) -> None:
    bad = apiserver.kubeconfig(tmp_path / "bad", "not-a-known-token")
    with pytest.raises(ClusterError) as err:
        _load(bad)
    assert err.value.exit_code == EXIT_CLUSTER and err.value.code == 401
    assert err.value.message.startswith("cannot get the server version (/version): unauthorized")


def test_forbidden_cluster_read_names_verb_resource_and_scope(
    kubeconfig: Path, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    apiserver.add_token(
        "no-slices",
        Policy.reads_all_but("resourceslices"),
    )
    kc = apiserver.kubeconfig(tmp_path / "kc", "no-slices")
    with pytest.raises(ClusterError) as err:
        _load(kc, all_namespaces=True)
    assert (
        str(err.value.message) == "cannot list resourceslices.resource.k8s.io at the cluster scope: forbidden"
    )
    assert err.value.exit_code == EXIT_CLUSTER and err.value.reason == "Forbidden"


def test_partial_reads_what_it_can_and_names_what_is_missing(
    kubeconfig: Path, apiserver: LoopbackApiServer, tmp_path: Path
) -> None:
    apiserver.add_token(
        "no-slices",
        Policy.reads_all_but("resourceslices"),
    )
    warnings: list[str] = []
    src, world = _load(
        apiserver.kubeconfig(tmp_path / "kc", "no-slices"), warnings, all_namespaces=True, partial=True
    )
    assert not world.slices and len(world.claims) == 6
    assert src.missing == ["resourceslices.resource.k8s.io at the cluster scope: forbidden"]
    assert warnings == [
        "could not read resourceslices.resource.k8s.io at the cluster scope: forbidden; "
        "the result does not include them"
    ]


def test_partial_also_covers_servers_that_keep_failing(
    kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.fail(r"/nodes$", 500, times=100)
    src, world = _load(kubeconfig, partial=True)
    assert not world.nodes and len(world.slices) == 4
    assert src.missing and src.missing[0].startswith("nodes at the cluster scope: ")


def test_namespace_user_reads_its_namespace_and_is_told_what_it_cannot_see(
    certs: object, token: str, tmp_path: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.add_token("team-a-token", Policy.namespace_only("team-a"))
    for name in ("c1", "c2"):
        apiserver.state.add(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": name, "namespace": "team-a"},
                "spec": {
                    "devices": {
                        "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]
                    }
                },
            }
        )
    warnings: list[str] = []
    src, world = _load(apiserver.kubeconfig(tmp_path / "kc", "team-a-token"), warnings, namespace="team-a")
    assert sorted(c.meta.key for c in world.claims) == ["team-a/c1", "team-a/c2"]
    assert not world.slices and not world.nodes
    assert "resourceslices.resource.k8s.io at the cluster scope: forbidden" in src.missing
    assert "nodes at the cluster scope: forbidden" in src.missing
    assert len(warnings) == len(src.missing) == 4  # classes, slices, taint rules, nodes


def test_namespace_user_asking_for_all_claims_falls_back_to_its_namespace(
    tmp_path: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.add_token("team-a-token", Policy.namespace_only("team-a"))
    apiserver.state.add(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "x", "namespace": "team-a"},
            "spec": {"devices": {}},
        }
    )
    src, world = _load(
        apiserver.kubeconfig(tmp_path / "kc", "team-a-token"), [], all_namespaces=True, namespace="team-a"
    )
    assert [c.meta.key for c in world.claims] == ["team-a/x"]
    assert (
        "resourceclaims.resource.k8s.io at the cluster scope: forbidden (only namespace team-a was read)"
        in src.missing
    )


def test_without_a_namespace_a_denied_claim_list_fails(tmp_path: Path, apiserver: LoopbackApiServer) -> None:
    apiserver.add_token("team-a-token", Policy.namespace_only("team-a"))
    with pytest.raises(ClusterError) as err:
        _load(apiserver.kubeconfig(tmp_path / "kc", "team-a-token"), all_namespaces=True)
    assert err.value.denied and err.value.code == 403


def test_denied_namespaced_read_in_the_users_own_namespace_fails(
    tmp_path: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.add_token("team-b-token", Policy.namespace_only("team-b"))
    with pytest.raises(ClusterError) as err:
        _load(apiserver.kubeconfig(tmp_path / "kc", "team-b-token"), namespace="team-a")
    assert err.value.message == (
        'cannot list resourceclaims.resource.k8s.io in the namespace "team-a": forbidden'
    )


def test_connection_refused_is_a_cluster_error(
    tmp_path: Path, apiserver: LoopbackApiServer, token: str
) -> None:
    kc = apiserver.kubeconfig(tmp_path / "kc", token)
    apiserver.stop()
    with pytest.raises(ClusterError) as err:
        _load(kc, request_timeout=2.0)
    assert "cannot connect to https://127.0.0.1:" in err.value.message or "failed" in err.value.message


def test_untrusted_certificate_is_refused(tmp_path: Path, apiserver: LoopbackApiServer, token: str) -> None:
    import json

    kc = apiserver.kubeconfig(tmp_path / "kc", token)
    doc = json.loads(kc.read_text())
    del doc["clusters"][0]["cluster"]["certificate-authority"]
    kc.write_text(json.dumps(doc))
    with pytest.raises(ClusterError) as err:
        _load(kc)
    assert "certificate" in err.value.message
    assert not [r for r in apiserver.requests]  # no request (and no token) ever reached it
