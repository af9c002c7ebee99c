"""QA (user view): explain-allocation on hand-made scenarios compared with kube-scheduler.

Passing tests pin behaviour that matches Kubernetes; xfail(strict) tests pin real bugs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
DEMO = str(REPO / "examples" / "demo")

_CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: dev}
spec: {selectors: [{cel: {expression: 'device.driver == "d.example.com"'}}]}
"""

_WORLD = (
    _CLASS
    + """---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
spec: {unschedulable: true}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: a}}
spec: {taints: [{key: k, value: v, effect: NoSchedule}]}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {zone: b, gen: "5"}}
---
apiVersion: v1
kind: Node
metadata: {name: n4, labels: {zone: a, gen: "3"}}
spec: {taints: [{key: k, value: v, effect: PreferNoSchedule}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: net}
spec:
  driver: d.example.com
  pool: {name: net, generation: 1, resourceSliceCount: 1}
  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}
  devices:
  - {name: x0, attributes: {rack: {string: r1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s3}
spec:
  driver: d.example.com
  pool: {name: n3, generation: 1, resourceSliceCount: 1}
  nodeName: n3
  devices:
  - {name: y0, attributes: {rack: {string: r1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: dev}}]}}
"""
)


def _pod(name: str, claim: str, extra: str = "") -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
{extra}  resourceClaims: [{{name: c, resourceClaimName: {claim}}}]
  containers: [{{name: a, image: x, resources: {{claims: [{{name: c}}]}}}}]
"""


def _explain(run_cli: Any, tmp_path: Path, world: str, *args: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "world.yaml"
    path.write_text(world)
    result = run_cli(["explain-allocation", *args, "-f", str(path), "-o", "json"])
    assert "Traceback" not in result.stderr
    return result.exit_code, json.loads(result.stdout)


def _nodes(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in doc["nodes"]}


def test_node_filters_cordon_taint_and_network_pool(run_cli: Any, tmp_path: Path) -> None:
    code, doc = _explain(run_cli, tmp_path, _WORLD + _pod("p", "c1"), "--pod", "p")
    nodes = _nodes(doc)
    assert code == 0 and doc["summary"]["nodesFit"] == 2
    assert nodes["n1"]["status"] == "filtered" and "cordoned" in nodes["n1"]["reasons"][0]
    assert nodes["n2"]["status"] == "filtered" and "NoSchedule" in nodes["n2"]["reasons"][0]
    # PreferNoSchedule does not filter; the network-attached pool reaches n4 through its nodeSelector
    assert nodes["n4"]["status"] == "allocated"
    result = nodes["n4"]["allocations"][0]["allocationResult"]
    assert result["nodeSelector"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == "zone"


def test_tolerations_and_node_selector(run_cli: Any, tmp_path: Path) -> None:
    extra = (
        "  tolerations: [{key: k, operator: Equal, value: v, effect: NoSchedule}]\n"
        "  nodeSelector: {zone: a}\n"
    )
    _, doc = _explain(run_cli, tmp_path, _WORLD + _pod("p", "c1", extra), "--pod", "p")
    nodes = _nodes(doc)
    assert {n for n, v in nodes.items() if v["status"] == "allocated"} == {"n2", "n4"}
    assert nodes["n3"]["status"] == "filtered"


def test_unschedulable_toleration_lets_pod_onto_cordoned_node(run_cli: Any, tmp_path: Path) -> None:
    extra = "  tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]\n"
    _, doc = _explain(run_cli, tmp_path, _WORLD + _pod("p", "c1", extra), "--pod", "p")
    assert _nodes(doc)["n1"]["status"] == "allocated"


def test_required_node_affinity_gt_and_match_fields(run_cli: Any, tmp_path: Path) -> None:
    extra = (
        "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ["
        "{matchExpressions: [{key: gen, operator: Gt, values: ['4']}]}, "
        "{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}}}\n"
    )
    _, doc = _explain(run_cli, tmp_path, _WORLD + _pod("p", "c1", extra), "--pod", "p")
    nodes = _nodes(doc)
    assert nodes["n3"]["status"] == "allocated"
    assert nodes["n4"]["status"] == "filtered"  # gen 3 is not > 4
    assert nodes["n1"]["status"] == "filtered"  # matched by name, but cordoned


def test_reserved_for_full_is_a_scheduler_error(run_cli: Any, tmp_path: Path) -> None:
    reserved = "\n".join(f"    - {{resource: pods, name: o{i}, uid: u{i}}}" for i in range(256))
    claim = f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c2, namespace: default, uid: cu2}}
spec: {{devices: {{requests: [{{name: r, exactly: {{deviceClassName: dev}}}}]}}}}
status:
  allocation:
    devices: {{results: [{{request: r, driver: d.example.com, pool: n3, device: y0}}]}}
    nodeSelector: {{nodeSelectorTerms: [{{matchFields: [{{key: metadata.name, operator: In, values: [n3]}}]}}]}}
  reservedFor:
{reserved}
"""
    code, doc = _explain(run_cli, tmp_path, _WORLD + claim + _pod("p", "c2"), "--pod", "p")
    assert code == 1 and not doc["summary"]["fits"]
    # kube-scheduler's PreFilter rejects the pod (unschedulable, not an allocation error)
    assert any("256" in b for b in doc["blockers"]) and "256" in doc["summary"]["message"]


_TWO = (
    _CLASS
    + """---
apiVersion: v1
kind: Node
metadata: {name: n5}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s5}
spec:
  driver: d.example.com
  pool: {name: n5, generation: 1, resourceSliceCount: 1}
  nodeName: n5
  devices:
  - {name: z0}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: dev, count: 2}}]}}
"""
)


def test_too_few_devices_is_not_explained_as_competition(run_cli: Any, tmp_path: Path) -> None:
    code, doc = _explain(run_cli, tmp_path, _TWO, "--claim", "two")
    assert code == 1
    blocking = doc["nodes"][0]["funnel"][0]["blocking"]
    assert blocking["reason"] == "too-few-devices"
    assert "enough candidates on its own" not in blocking["message"]
    assert blocking["message"].startswith("only 1 device here can serve the request, which needs 2 devices")


def test_constraint_funnel_does_not_reject_the_chosen_devices(run_cli: Any, tmp_path: Path) -> None:
    world = (
        _CLASS
        + """---
apiVersion: v1
kind: Node
metadata: {name: n3}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: net}
spec:
  driver: d.example.com
  pool: {name: net, generation: 1, resourceSliceCount: 1}
  allNodes: true
  devices:
  - {name: x0, attributes: {rack: {string: r1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s3}
spec:
  driver: d.example.com
  pool: {name: n3, generation: 1, resourceSliceCount: 1}
  nodeName: n3
  devices:
  - {name: y1, attributes: {rack: {string: r2}}}
  - {name: y0, attributes: {rack: {string: r1}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: m, namespace: default}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: dev, count: 2}}],
       constraints: [{matchAttribute: d.example.com/rack}]}}
"""
    )
    code, doc = _explain(run_cli, tmp_path, world, "--claim", "m")
    assert code == 0
    funnel = doc["nodes"][0]["funnel"][0]
    assert sorted(funnel["chosen"]) == ["d.example.com/n3/y0", "d.example.com/net/x0"]
    rejected = {e for s in funnel["stages"] for e in s["examples"]}
    assert not rejected & set(funnel["chosen"])
    # y1 (rack r2) was tried first and abandoned, never rejected: nothing was rejected for good.
    assert funnel["stages"] == [] and funnel["considered"] == 3
