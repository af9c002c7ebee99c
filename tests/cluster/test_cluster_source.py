"""ClusterSource against the loopback API server: the world read from a live cluster is the
world the same objects give as files; lists are paged; versions are discovered."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from cluster_helpers import comparable, to_v1beta1
from conftest import DEMO, demo_objects
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.errors import EXIT_CLUSTER, ClusterError
from dractl.io.sources import FileSource
from dractl.model import objects as o


def _source(kubeconfig: Path, **kw: object) -> ClusterSource:
    warnings: list[str] = []
    src = ClusterSource(ClusterOptions(kubeconfig=str(kubeconfig), **kw), warn=warnings.append)  # type: ignore[arg-type]
    src.warnings = warnings  # type: ignore[attr-defined]
    return src


def test_live_world_equals_the_same_objects_as_files(kubeconfig: Path) -> None:
    live = _source(kubeconfig, all_namespaces=True).load()
    files = FileSource((str(DEMO),)).load()
    # Every demo pod uses devices: the running ones through the claims that reserve them, the
    # pending ones through the unassigned-pods list.
    assert comparable(live) == comparable(files)
    assert live.kube_version == "1.37"
    assert live.feature_gates and live.feature_gates["DRADeviceTaintRules"] is True
    assert live.sources[0].startswith("cluster: context loopback (https://127.0.0.1:")


def test_lists_are_paged_with_limit_and_continue(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    world = _source(kubeconfig, all_namespaces=True, chunk_size=1).load()
    assert len(world.slices) == 4
    slice_reqs = [r for r in apiserver.requests if r.path.endswith("/resourceslices")]
    assert [r.query.get("limit") for r in slice_reqs] == ["1"] * 4
    assert "continue" not in slice_reqs[0].query and all("continue" in r.query for r in slice_reqs[1:])


def test_chunk_size_zero_reads_each_list_in_one_request(
    kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    _source(kubeconfig, all_namespaces=True, chunk_size=0).load()
    slice_reqs = [r for r in apiserver.requests if r.path.endswith("/resourceslices")]
    assert len(slice_reqs) == 1 and "limit" not in slice_reqs[0].query


def test_pods_are_read_by_name_from_reserved_for_or_as_pending(
    kubeconfig: Path, apiserver: LoopbackApiServer
) -> None:
    apiserver.state.add(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
        }
    )  # pending, no devices
    world = _source(kubeconfig, all_namespaces=True).load()
    assert sorted(p.meta.name for p in world.pods) == [
        "inference-0",
        "legacy-cuda",
        "notebook",
        "trainer-0",
        "web-0",
    ]
    pod_reqs = sorted((r.path, r.query.get("fieldSelector")) for r in apiserver.requests if "/pods" in r.path)
    assert pod_reqs == [
        ("/api/v1/namespaces/default/pods/inference-0", None),
        ("/api/v1/namespaces/default/pods/trainer-0", None),
        ("/api/v1/namespaces/default/pods/web-0", None),
        ("/api/v1/pods", "spec.nodeName="),
    ]


def test_extra_pods_are_read_by_name(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    src = ClusterSource(ClusterOptions(kubeconfig=str(kubeconfig)), pods=[("default", "notebook")])
    assert "notebook" in {p.meta.name for p in src.load().pods}


def test_node_uses_field_selectors(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    world = _source(kubeconfig, all_namespaces=True, node="gpu-node-2").load()
    assert {s.node_name for s in world.slices} == {"gpu-node-2"}
    assert [n.meta.name for n in world.nodes] == ["gpu-node-2"]
    assert [p.meta.name for p in world.pods] == ["trainer-0"]
    selectors = {
        r.query.get("fieldSelector") for r in apiserver.requests if r.path.endswith("/resourceslices")
    }
    assert selectors == {"spec.nodeName=gpu-node-2", "spec.nodeName="}
    pod_lists = [r for r in apiserver.requests if r.path == "/api/v1/pods"]
    assert pod_lists and all(r.query.get("fieldSelector") == "spec.nodeName=gpu-node-2" for r in pod_lists)


def test_label_selector_applies_to_nodes(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    world = _source(kubeconfig, label_selector="kubernetes.io/hostname in (gpu-node-1,nic-node-1)").load()
    assert sorted(n.meta.name for n in world.nodes) == ["gpu-node-1", "nic-node-1"]


def test_kinds_limit_what_is_read(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    world = ClusterSource(ClusterOptions(kubeconfig=str(kubeconfig)), kinds=("ResourceSlice",)).load()
    assert len(world.slices) == 4 and not world.claims and not world.pods
    assert {r.path.rsplit("/", 1)[-1] for r in apiserver.requests if "/v1/" in r.path} == {"resourceslices"}


def test_server_version_becomes_the_kube_version(certs: object, token: str, tmp_path: Path) -> None:
    server = LoopbackApiServer(certs, git_version="v1.35.4")
    server.state.load(demo_objects())
    server.add_token(token, Policy.admin())
    server.start()
    try:
        world = ClusterSource(
            ClusterOptions(kubeconfig=str(server.kubeconfig(tmp_path / "kc", token)))
        ).load()
    finally:
        server.stop()
    assert world.kube_version == "1.35"
    assert world.feature_gates is not None and world.feature_gates["DRADeviceTaints"] is False


@pytest.mark.parametrize(
    ("git_version", "served", "shape"),
    [
        ("v1.32.5", ["v1beta1"], "v1beta1"),
        ("v1.33.2", ["v1beta1", "v1beta2"], "v1beta2"),
    ],
)
def test_beta_only_cluster_is_read_in_its_best_version_and_converted(
    certs: object, token: str, tmp_path: Path, git_version: str, served: list[str], shape: str
) -> None:
    # The stand-in serves objects as stored: store them in the shape of the version dractl
    # should pick (a real server converts; v1beta2 has the v1 shape).
    def stored(obj: dict) -> dict:
        if shape == "v1beta1":
            return to_v1beta1(obj)
        if obj["apiVersion"].startswith("resource.k8s.io/"):
            return {**obj, "apiVersion": "resource.k8s.io/v1beta2"}
        return obj

    server = LoopbackApiServer(certs, git_version=git_version, dra_versions=served, taint_rule_versions=[])
    server.state.load([stored(o) for o in demo_objects() if o["kind"] != "DeviceTaintRule"])
    server.add_token(token, Policy.admin())
    server.start()
    try:
        src = ClusterSource(
            ClusterOptions(kubeconfig=str(server.kubeconfig(tmp_path / "kc", token)), all_namespaces=True)
        )
        live = src.load()
    finally:
        server.stop()
    files = FileSource((str(DEMO),)).load()
    expected = comparable(files)
    expected["taint_rules"] = []
    assert comparable(live) == expected
    assert src.server is not None and src.server.versions["ResourceSlice"] == shape
    assert live.kube_version == git_version[1:5]
    assert "DeviceTaintRule" not in src.server.versions
    assert not any("devicetaintrules" in r.path for r in server.requests)


def test_a_server_without_dra_says_so(certs: object, token: str, tmp_path: Path) -> None:
    server = LoopbackApiServer(certs, git_version="v1.31.0", dra_versions=[])
    server.add_token(token, Policy.admin())
    server.start()
    try:
        with pytest.raises(ClusterError) as err:
            ClusterSource(ClusterOptions(kubeconfig=str(server.kubeconfig(tmp_path / "kc", token)))).load()
    finally:
        server.stop()
    assert err.value.exit_code == EXIT_CLUSTER
    assert "does not serve it" in err.value.message and "v1.31.0" in err.value.message


def _lean(kubeconfig: Path, **kw: object) -> ClusterSource:
    return ClusterSource(ClusterOptions(kubeconfig=str(kubeconfig), **kw), lean=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("kw", [{"chunk_size": 1}, {"chunk_size": 1, "node": "gpu-node-2"}])
def test_a_lean_read_builds_the_same_slices_page_by_page_without_their_json(
    kubeconfig: Path, apiserver: LoopbackApiServer, kw: dict[str, object]
) -> None:
    full = _source(kubeconfig, all_namespaces=True, **kw).load()
    lean_source = _lean(kubeconfig, all_namespaces=True, **kw)
    lean = lean_source.load()
    assert lean.slices and all(s.raw for s in full.slices) and all(s.raw == {} for s in lean.slices)
    assert lean.claims and all(c.raw for c in full.claims) and all(c.raw == {} for c in lean.claims)
    bare = {f: tuple(dataclasses.replace(x, raw={}) for x in getattr(full, f)) for f in ("slices", "claims")}
    for f, objects in bare.items():
        assert [dataclasses.asdict(x) for x in getattr(lean, f)] == [dataclasses.asdict(x) for x in objects]
        # origins count across pages and across both lists of a --node read, as a full read's do
        assert [x.origin for x in getattr(lean, f)] == [x.origin for x in getattr(full, f)]
    assert comparable(dataclasses.replace(lean, pods=())) == comparable(
        dataclasses.replace(full, **bare, pods=())
    )
    # the same Pods were read (the claims name them before their JSON goes), with what the views
    # read of them (identity, node, claims, claim statuses, status: health) and nothing else;
    # load_raw (snapshot, --watch) is untouched by lean
    assert [p.meta.key for p in lean.pods] == [p.meta.key for p in full.pods] and lean.pods
    for got, want in zip(lean.pods, full.pods, strict=True):
        assert got.raw == {k: v for k, v in want.raw.items() if k == "status"} and got.meta == o.ObjectMeta(
            want.meta.name, want.meta.namespace
        )
        assert (got.node_name, got.resource_claims, got.claim_statuses, got.origin) == (
            want.node_name,
            want.resource_claims,
            want.claim_statuses,
            want.origin,
        )
        assert (got.tolerations, got.containers, got.meta.labels) == ((), (), {})
    assert any(p.containers for p in full.pods)
    again = lean_source.load_raw().objects
    assert all(isinstance(x, dict) for x in [*again["ResourceSlice"], *again["ResourceClaim"]])


def test_a_lean_read_names_a_slice_it_cannot_decode(kubeconfig: Path, apiserver: LoopbackApiServer) -> None:
    bad = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "broken"},
        "spec": {
            "driver": "x.example.com",
            "nodeName": "gpu-node-1",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "d", "capacity": {"memory": {"value": "lots"}}}],
        },
    }
    apiserver.state.add(bad)
    with pytest.raises(ClusterError) as err:
        _lean(kubeconfig, all_namespaces=True).load()
    assert err.value.exit_code == EXIT_CLUSTER and "resourceslices.resource.k8s.io broken" in str(err.value)


def test_paused_gc_builds_without_the_collector_and_hands_the_heap_over_old() -> None:
    import gc

    from dractl.cluster.source import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        built = [[i] for i in range(200_000)]
        with paused_gc():  # nested: the outer one decides
            pass
        assert not gc.isenabled()
    assert gc.isenabled()
    # what was built is not waiting in the young generation for a collection to walk it
    assert gc.get_count()[0] < 1_000 and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a disabled collector stays off
    finally:
        gc.enable()
    assert len(built) == 200_000
