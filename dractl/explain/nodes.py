"""Node-level checks that decide whether the DRA filter runs for a node at all.

kube-scheduler runs its node filters (NodeUnschedulable, TaintToleration,
NodeAffinity, …) on the same node as the DRA plugin; a node they reject never
gets an allocation attempt.  Only the filters that commonly hide a DRA answer are
modelled here; :data:`NOT_MODELLED` names the rest for the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dractl.matcher.nodes import NodeSelectorError, node_selector_matches
from dractl.model import objects as o

NOT_MODELLED = (
    "CPU, memory and other non-DRA resource requests",
    "pod (anti-)affinity and topology spread",
    "volume and port constraints",
    "node conditions and pressure",
)

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def selector_matches(selector: Mapping[str, Any] | None, node: o.Node | None) -> bool:
    """Whether a v1 NodeSelector matches the node (the allocator's own matching).  A
    missing selector (None) matches every node; a malformed one matches none."""
    if selector is None:
        return True
    try:
        return node_selector_matches(selector, node)
    except NodeSelectorError:
        return False


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: o.Taint) -> bool:
    """Whether any pod toleration tolerates a node taint (core/v1 semantics)."""
    for t in tolerations:
        effect = t.get("effect") or ""
        if effect and effect != taint.effect:
            continue
        key = t.get("key") or ""
        op = t.get("operator") or "Equal"
        if op == "Exists":
            if not key or key == taint.key:
                return True
        elif key == taint.key and (t.get("value") or "") == taint.value:
            return True
    return False


def pod_node_blockers(pod: o.Pod | None, node: o.Node | None) -> list[str]:
    """Why kube-scheduler's node filters reject this node for this pod (empty: they pass).

    Without a pod (a bare claim) nothing is checked; without a Node object (nodes
    known only from slices) labels and taints are unknown and nothing is checked.
    """
    if pod is None or node is None:
        return []
    out: list[str] = []
    if node.unschedulable and not tolerates(pod.tolerations, o.Taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")):
        out.append("node is cordoned (spec.unschedulable)")
    for taint in node.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not tolerates(pod.tolerations, taint):
            value = f"={taint.value}" if taint.value else ""
            out.append(f"node taint {taint.key}{value}:{taint.effect} is not tolerated by the pod")
    missing = [f"{k}={v}" for k, v in pod.node_selector.items() if node.meta.labels.get(k) != v]
    if missing:
        out.append("pod nodeSelector does not match node labels: " + ", ".join(missing))
    required = _required_affinity(pod)
    if required is not None and not selector_matches(required, node):
        out.append("pod's required node affinity does not match the node")
    return out


def _required_affinity(pod: o.Pod) -> Mapping[str, Any] | None:
    aff = pod.affinity or {}
    node_aff = aff.get("nodeAffinity") if isinstance(aff, Mapping) else None
    if not isinstance(node_aff, Mapping):
        return None
    req = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
    return req if isinstance(req, Mapping) else None
