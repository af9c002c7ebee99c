"""Best-fit advice: documented score order, the scheduler's own choice kept and labelled."""

from __future__ import annotations

from typing import Any

from explain_builders import device_class, node, world

from dractl.explain.engine import ExplainOptions, TargetSpec, explain
from dractl.model.build import build_object

V1 = "resource.k8s.io/v1"


def _partitionable(used: list[str]) -> list[dict[str, Any]]:
    """One node, two GPUs of 4 slices each; per GPU: the full GPU, four 1-slice parts and a 2-slice part."""
    sets = [{"name": f"g{i}", "counters": {f"s{k}": {"value": "1"} for k in range(4)}} for i in range(2)]
    devs = []
    for i in range(2):
        devs.append(
            {
                "name": f"gpu-{i}",
                "attributes": {"kind": {"string": "full"}},
                "consumesCounters": [
                    {"counterSet": f"g{i}", "counters": {f"s{k}": {"value": "1"} for k in range(4)}}
                ],
            }
        )
        for k in range(4):
            devs.append(
                {
                    "name": f"gpu-{i}-p{k}",
                    "attributes": {"kind": {"string": "part"}},
                    "consumesCounters": [{"counterSet": f"g{i}", "counters": {f"s{k}": {"value": "1"}}}],
                }
            )
    slices = [
        {
            "apiVersion": V1,
            "kind": "ResourceSlice",
            "metadata": {"name": "c"},
            "spec": {
                "driver": "d.example.com",
                "nodeName": "n1",
                "sharedCounters": sets,
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 2},
            },
        },
        {
            "apiVersion": V1,
            "kind": "ResourceSlice",
            "metadata": {"name": "d"},
            "spec": {
                "driver": "d.example.com",
                "nodeName": "n1",
                "devices": devs,
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 2},
            },
        },
    ]
    held = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "held", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "part"}}]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "r", "driver": "d.example.com", "pool": "n1", "device": d} for d in used
                    ]
                }
            }
        },
    }
    return [
        node("n1"),
        device_class("part", "device.attributes['d.example.com'].kind == 'part'"),
        *slices,
        held,
    ]


def _ask(count: int) -> TargetSpec:
    c = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "ask", "namespace": "default"},
        "spec": {
            "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "part", "count": count}}]}
        },
    }
    return TargetSpec(claim_objects=(build_object(c),))  # type: ignore[arg-type]


def test_prefers_partly_used_gpu_and_keeps_scheduler_choice() -> None:
    report = explain(world(*_partitionable(["gpu-1-p0"])), _ask(1), ExplainOptions(best_fit=True))
    assert report.best_fit is not None
    best = report.best_fit[0]
    assert best.devices[0].startswith("d.example.com/n1/gpu-1-p") and best.score[0] == 0
    chosen = [b for b in report.best_fit if b.chosen_by_scheduler]
    assert len(chosen) == 1 and chosen[0].devices == ("d.example.com/n1/gpu-0-p0",)
    assert chosen[0].score[0] == 1  # it breaks into an untouched GPU
    assert report.nodes[0].allocations[0].devices[0]["device"] == "gpu-0-p0"  # the answer stays Kubernetes'
    assert all(a.score <= b.score for a, b in zip(report.best_fit, report.best_fit[1:], strict=False))


def test_limit_bounds_the_search() -> None:
    report = explain(world(*_partitionable([])), _ask(2), ExplainOptions(best_fit=True, best_fit_limit=3))
    assert report.best_fit_steps <= 3
    assert report.best_fit is not None and any(b.chosen_by_scheduler for b in report.best_fit)
