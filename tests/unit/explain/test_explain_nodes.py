"""Node-level filters that decide whether the DRA filter runs on a node."""

from __future__ import annotations

import pytest
from explain_builders import node, pod, world

from dractl.explain.nodes import pod_node_blockers

AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
        }
    }
}


@pytest.mark.parametrize(
    ("n", "p", "blocked"),
    [
        pytest.param(node("n"), pod("p"), "", id="plain-node-passes"),
        pytest.param(node("n", unschedulable=True), pod("p"), "cordoned", id="cordoned"),
        pytest.param(
            node("n", unschedulable=True),
            pod(
                "p",
                tolerations=[
                    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
                ],
            ),
            "",
            id="cordoned-tolerated",
        ),
        pytest.param(
            node("n", taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]),
            pod("p"),
            "node taint gpu=yes:NoSchedule",
            id="taint-noschedule",
        ),
        pytest.param(
            node("n", taints=[{"key": "gpu", "effect": "PreferNoSchedule"}]),
            pod("p"),
            "",
            id="prefer-no-schedule-ignored",
        ),
        pytest.param(
            node("n", taints=[{"key": "gpu", "value": "yes", "effect": "NoExecute"}]),
            pod("p", tolerations=[{"key": "gpu", "operator": "Equal", "value": "yes"}]),
            "",
            id="taint-tolerated-any-effect",
        ),
        pytest.param(
            node("n", taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]),
            pod("p", tolerations=[{"key": "gpu", "value": "no"}]),
            "not tolerated",
            id="wrong-value",
        ),
        pytest.param(
            node("n", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
            pod("p", tolerations=[{"operator": "Exists"}]),
            "",
            id="tolerate-everything",
        ),
        pytest.param(
            node("n", labels={"zone": "b"}),
            pod("p", node_selector={"zone": "a"}),
            "nodeSelector",
            id="node-selector",
        ),
        pytest.param(
            node("n", labels={"zone": "a"}),
            pod("p", node_selector={"zone": "a"}),
            "",
            id="node-selector-matches",
        ),
        pytest.param(node("n", labels={"zone": "b"}), pod("p", affinity=AFFINITY), "affinity", id="affinity"),
        pytest.param(node("n", labels={"zone": "a"}), pod("p", affinity=AFFINITY), "", id="affinity-matches"),
    ],
)
def test_pod_node_blockers(n: dict[str, object], p: dict[str, object], blocked: str) -> None:
    w = world(n, p)
    reasons = pod_node_blockers(w.pods[0], w.nodes[0])
    if blocked:
        assert any(blocked in r for r in reasons), reasons
    else:
        assert reasons == []


def test_no_pod_means_no_node_filters() -> None:
    w = world(node("n", unschedulable=True))
    assert pod_node_blockers(None, w.nodes[0]) == []
