"""WorldWatch against the loopback server: a new world after each burst of changes, resumed
from the list's resourceVersion, re-listed when the server expires the watch."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_api import LoopbackApiServer

from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource
from dractl.cluster.watch import WorldWatch
from dractl.errors import ClusterError


@pytest.fixture
def watch(kubeconfig: Path) -> Iterator[WorldWatch]:
    w = WorldWatch(ClusterSource(ClusterOptions(all_namespaces=True)), debounce=0.1, timeout_seconds=5)
    try:
        yield w
    finally:
        w.close()


def _claim(name: str, ns: str = "default", reserved_for: str | None = None) -> dict:
    obj: dict = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}
        },
    }
    if reserved_for:
        obj["status"] = {"reservedFor": [{"resource": "pods", "name": reserved_for, "uid": "u"}]}
    return obj


def test_first_world_then_one_per_change(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    first = watch.next_world(timeout=10)
    assert first is not None and len(first.claims) == 6
    apiserver.state.add(_claim("new-claim"))
    second = watch.next_world(timeout=10)
    assert second is not None and "default/new-claim" in {c.meta.key for c in second.claims}
    apiserver.state.delete("ResourceSlice", "", "nic-node-1-dra.net")
    third = watch.next_world(timeout=10)
    assert third is not None and len(third.slices) == 3
    with pytest.raises(TimeoutError):
        watch.next_world(timeout=0.5)
    watches = [r for r in apiserver.requests if r.query.get("watch") == "1"]
    assert watches and all(r.query.get("resourceVersion") for r in watches)
    # pods: per namespace of reserved pods, and the unscheduled ones; never every pod of the cluster
    assert all(r.query.get("fieldSelector") == "spec.nodeName=" for r in watches if r.path == "/api/v1/pods")


def test_a_burst_of_changes_is_one_world(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    watch.next_world(timeout=10)
    watch.debounce = 0.5
    for i in range(5):
        apiserver.state.add(_claim(f"burst-{i}"))
    world = watch.next_world(timeout=10)
    assert world is not None and sum(c.meta.name.startswith("burst-") for c in world.claims) == 5


def test_pods_newly_reserved_are_read_by_name(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    apiserver.state.add(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "late-pod", "namespace": "default"},
            "spec": {"nodeName": "gpu-node-1", "containers": [{"name": "c"}]},
        }
    )
    first = watch.next_world(timeout=10)
    assert first is not None and "late-pod" not in {p.meta.name for p in first.pods}
    apiserver.state.add(_claim("late", reserved_for="late-pod"))
    world = watch.next_world(timeout=10)
    assert world is not None and "late-pod" in {p.meta.name for p in world.pods}
    assert any(r.path == "/api/v1/namespaces/default/pods/late-pod" for r in apiserver.requests)


def test_pod_status_changes_arrive(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    first = watch.next_world(timeout=10)
    assert first is not None
    before = first.pod("default", "trainer-0")
    pod = copy.deepcopy(apiserver.state.objects["Pod"][("default", "trainer-0")])
    pod.setdefault("status", {})["containerStatuses"] = [
        {
            "name": "trainer",
            "allocatedResourcesStatus": [
                {
                    "name": "claim:gpus",
                    "resources": [{"resourceID": "gpu.nvidia.com/gpu-node-2/gpu-0", "health": "Unhealthy"}],
                }
            ],
        }
    ]
    apiserver.state.add(pod)
    world = watch.next_world(timeout=10)
    assert world is not None
    trainer = world.pod("default", "trainer-0")
    assert trainer is not None and before is not None
    assert int(trainer.meta.resource_version) > int(before.meta.resource_version)


def test_expired_watch_relists(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    watch.next_world(timeout=10)
    mark = len(apiserver.requests)
    apiserver.state.compacted_rv = apiserver.state.rv + 1000  # every resume point is now too old
    apiserver.stop_streams()
    apiserver.state.add(_claim("after-compaction"))
    keys: set[str] = set()
    # Each re-listed kind brings a world (and every resume point stays expired, so they keep
    # coming); the claims' re-list after the add has the new claim.  Bounded by time, not by a
    # count of worlds: on a loaded machine other kinds' re-lists can come first many times.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        world = watch.next_world(timeout=10)
        assert world is not None
        keys = {c.meta.key for c in world.claims}
        if "default/after-compaction" in keys:
            break
    assert "default/after-compaction" in keys
    assert any(
        r.query.get("watch") != "1" and r.path.endswith("/resourceclaims") and r.status == 200
        for r in apiserver.requests[mark:]
    )


def test_a_denied_watch_ends_with_a_cluster_error(watch: WorldWatch, apiserver: LoopbackApiServer) -> None:
    watch.next_world(timeout=10)
    apiserver.fail(r"/resourceclaims$", 403, query_has=("watch",), times=100)
    apiserver.stop_streams()
    with pytest.raises(ClusterError) as err:
        watch.next_world(timeout=10)
    assert err.value.message.startswith("cannot watch resourceclaims.resource.k8s.io at the cluster scope")


def test_a_watch_event_that_never_ends_is_a_cluster_error(
    watch: WorldWatch, apiserver: LoopbackApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One watch line the server never finishes (no newline, ever longer) is refused at the
    bound (MAX_BODY_BYTES, lowered here to 64 KiB), not buffered until memory runs out."""
    from loopback_api import Fault

    from dractl.cluster import transport

    watch.next_world(timeout=10)
    monkeypatch.setattr(transport, "MAX_BODY_BYTES", 64 << 10)
    endless = b'{"type":"ADDED","object":{"metadata":{"name":"' + b"x" * (256 << 10)
    apiserver.faults.append(Fault(r"/resourceclaims$", query_has=("watch",), times=100, body=endless))
    apiserver.stop_streams()
    with pytest.raises(ClusterError) as err:
        watch.next_world(timeout=10)
    assert "watch event larger than 64 KiB" in err.value.message, err.value.message
