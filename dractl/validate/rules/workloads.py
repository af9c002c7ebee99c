"""Pod templates inside workloads: where they are, and findings moved to their real paths.

A Deployment that still uses the removed ``resourceClaims[].source`` shape fails at apply
exactly like a Pod does, so every pod template is checked with the Pod rules.  The table
below says where each workload kind keeps its templates (Kubernetes' own kinds, plus the
common CRDs JobSet and LeaderWorkerSet).  To add a kind: add a row of paths; ``[*]`` walks
every item of a list.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from dractl.validate.findings import Finding

# (API group, kind) -> paths of pod templates (objects with ``metadata`` and ``spec``).
TEMPLATE_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): ("spec.template",),
    ("apps", "StatefulSet"): ("spec.template",),
    ("apps", "DaemonSet"): ("spec.template",),
    ("apps", "ReplicaSet"): ("spec.template",),
    ("batch", "Job"): ("spec.template",),
    ("batch", "CronJob"): ("spec.jobTemplate.spec.template",),
    ("", "PodTemplate"): ("template",),
    ("", "ReplicationController"): ("spec.template",),
    ("jobset.x-k8s.io", "JobSet"): ("spec.replicatedJobs[*].template.spec.template",),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): (
        "spec.leaderWorkerTemplate.leaderTemplate",
        "spec.leaderWorkerTemplate.workerTemplate",
    ),
}


def is_workload(api_version: str, kind: str) -> bool:
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    return (group, kind) in TEMPLATE_PATHS


def pod_templates(raw: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(path, pod)`` for every pod template of a workload object (``[]`` for other kinds or
    when a template is missing or not a mapping); ``pod`` is a v1 Pod built from the template's
    metadata and spec (the template's namespace is the workload's)."""
    api_version, kind = str(raw.get("apiVersion") or ""), str(raw.get("kind") or "")
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    out: list[tuple[str, dict[str, Any]]] = []
    meta = raw.get("metadata") if isinstance(raw.get("metadata"), Mapping) else {}
    for pattern in TEMPLATE_PATHS.get((group, kind), ()):
        for path, template in _walk(raw, pattern.split("."), ""):
            if not isinstance(template, Mapping):
                continue
            given = template.get("metadata")
            tmeta = dict(given) if isinstance(given, Mapping) else {}
            if isinstance(meta, Mapping) and meta.get("namespace") and not tmeta.get("namespace"):
                tmeta["namespace"] = meta["namespace"]
            if isinstance(meta, Mapping) and not tmeta.get("name"):
                tmeta["name"] = meta.get("name") or ""
            out.append(
                (path, {"apiVersion": "v1", "kind": "Pod", "metadata": tmeta, "spec": template.get("spec")})
            )
    return out


def _walk(node: Any, parts: list[str], prefix: str) -> Iterator[tuple[str, Any]]:
    if not parts:
        yield prefix, node
        return
    head, rest = parts[0], parts[1:]
    name, star = (head[:-3], True) if head.endswith("[*]") else (head, False)
    if not isinstance(node, Mapping) or name not in node:
        return
    child, path = node[name], f"{prefix}.{name}" if prefix else name
    if not star:
        yield from _walk(child, rest, path)
    elif isinstance(child, list):
        for i, item in enumerate(child):
            yield from _walk(item, rest, f"{path}[{i}]")


def relocate(finding: Finding, template_path: str) -> Finding:
    """A finding of the Pod built from a template, at the template's path in the workload
    (``spec.resourceClaims[0]`` → ``spec.template.spec.resourceClaims[0]``)."""
    path = finding.path
    new = f"{template_path}.{path}" if path else template_path
    message = finding.message
    if path and message.startswith(path):
        message = new + message[len(path) :]
    return replace(finding, path=new, message=message)
