"""capacity's count equals a plain loop of allocate() + "add the result to the allocated
devices" on the same world (a fresh allocator per copy, every node tried each time), for
random worlds; ``--replicas N`` succeeds exactly when N <= that count."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.explain.capacity import CapacityOptions, capacity, count_sequential
from dractl.explain.engine import TargetSpec
from dractl.io.world import World, build_world
from dractl.model.build import build_object
from dractl.model.features import Features

V1 = "resource.k8s.io/v1"
LIMIT = 40
FEATURES = Features.for_version("1.37")


def _device(node: str, i: int, domain: str, tainted: bool, mem: int) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": f"{node}-d{i}",
        "attributes": {"domain": {"string": domain}, "mem": {"int": mem}},
    }
    if tainted:
        d["taints"] = [{"key": "bad", "effect": "NoSchedule"}]
    return d


@st.composite
def worlds(draw: st.DrawFn) -> tuple[World, dict[str, Any]]:
    n_nodes = draw(st.integers(1, 4))
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": V1,
            "kind": "DeviceClass",
            "metadata": {"name": "dev"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'x.example.com'"}}]},
        }
    ]
    held: list[dict[str, Any]] = []
    for n in range(n_nodes):
        name = f"n{n}"
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
        count = draw(st.integers(0, 5))
        devices = [
            _device(
                name,
                i,
                draw(st.sampled_from("ab")),
                draw(st.booleans()) and draw(st.booleans()),
                draw(st.integers(1, 3)),
            )
            for i in range(count)
        ]
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": f"s-{name}"},
                "spec": {
                    "driver": "x.example.com",
                    "nodeName": name,
                    "devices": devices,
                    "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                },
            }
        )
        held += [(name, d["name"]) for d in devices if draw(st.booleans()) and draw(st.booleans())]
    if draw(st.booleans()):
        shared = [_device("net", i, "a", False, 1) for i in range(draw(st.integers(1, 3)))]
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceSlice",
                "metadata": {"name": "s-net"},
                "spec": {
                    "driver": "x.example.com",
                    "allNodes": True,
                    "devices": shared,
                    "pool": {"name": "net", "generation": 1, "resourceSliceCount": 1},
                },
            }
        )
    for i, (pool, dev) in enumerate(held):
        docs.append(
            {
                "apiVersion": V1,
                "kind": "ResourceClaim",
                "metadata": {"name": f"h{i}", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dev"}}]}},
                "status": {
                    "allocation": {
                        "devices": {
                            "results": [
                                {"request": "r", "driver": "x.example.com", "pool": pool, "device": dev}
                            ]
                        }
                    }
                },
            }
        )
    exactly: dict[str, Any] = {"deviceClassName": "dev", "count": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        exactly["selectors"] = [
            {"cel": {"expression": f"device.attributes['x.example.com'].mem >= {draw(st.integers(1, 3))}"}}
        ]
    if draw(st.booleans()):
        exactly["tolerations"] = [{"key": "bad", "operator": "Exists"}]
    spec: dict[str, Any] = {"requests": [{"name": "r", "exactly": exactly}]}
    if draw(st.booleans()):
        spec["constraints"] = [{"matchAttribute": "x.example.com/domain"}]
    ask = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "ask", "namespace": "default"},
        "spec": {"devices": spec},
    }
    return build_world(build_object(d) for d in docs), ask


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds(), st.integers(1, 6))
def test_count_equals_sequential_allocate_loop(case: tuple[World, dict[str, Any]], replicas: int) -> None:
    world, ask = case
    claim = build_object(ask)
    expected = count_sequential(world, [claim], FEATURES, limit=LIMIT)
    spec = TargetSpec(claim_objects=(claim,))  # type: ignore[arg-type]
    report = capacity(world, spec, CapacityOptions(features=FEATURES, max_copies=LIMIT, replicas=replicas))
    assert report.copies == expected
    assert sum(n.copies for n in report.nodes) == expected
    assert report.gang_fits == (replicas <= expected)
    assert report.exit_code == (0 if replicas <= expected else 1)
    for order in (
        "most-free",
        "least-free",
    ):  # other orders place elsewhere, never more than first fit allows
        other = capacity(
            world,
            spec,
            CapacityOptions(features=FEATURES, max_copies=LIMIT, order=order, explain_blocking=False),
        )
        assert other.copies <= LIMIT
        assert all(p.devices for p in other.placements)
