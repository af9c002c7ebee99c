"""Cross-object checks of Pods and workload pod templates: the claims and templates they name,
and the DeviceClasses behind DRA extended resources (``deviceclass.resource.kubernetes.io/<class>``).

A name that is in neither the inputs nor the cluster context is a warning (like ADV-CLASS-EXISTS):
the object may be created by another pipeline, but the pod cannot start until it exists.  An object
without a namespace matches any namespace (``kubectl apply -n`` decides).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dractl.validate.rules.ctx import as_list, as_map, as_str
from dractl.validate.rules.workloads import is_workload, pod_templates
from dractl.validate.rules.xindex import Entry, Index

Emit = Callable[[Entry, str, str, str], None]
IMPLICIT_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


def pod_specs(index: Index) -> Iterator[tuple[Entry, Mapping[str, Any], str]]:
    """(entry, pod spec, path of the spec) of every input Pod and workload pod template."""
    for e in index.entries:
        if not e.is_input:
            continue
        if e.kind == "Pod" and as_str(e.obj.get("apiVersion")) == "v1":
            yield e, e.spec, "spec"
        elif is_workload(as_str(e.obj.get("apiVersion")), e.kind):
            for path, pod in pod_templates(e.obj):
                yield e, as_map(pod.get("spec")), f"{path}.spec"


def check_pod_claims(index: Index, emit: Emit) -> None:
    templates = _names(index, "ResourceClaimTemplate")
    claims = _names(index, "ResourceClaim")
    classes = index.classes()
    for e, spec, path in pod_specs(index):
        for i, claim in enumerate(as_list(spec.get("resourceClaims"))):
            claim = as_map(claim)
            for key, known, rule, word in (
                ("resourceClaimTemplateName", templates, "ADV-TEMPLATE-EXISTS", "ResourceClaimTemplate"),
                ("resourceClaimName", claims, "ADV-CLAIM-EXISTS", "ResourceClaim"),
            ):
                name = as_str(claim.get(key))
                if name and not _known(known, e.namespace, name):
                    where = f" in namespace {e.namespace!r}" if e.namespace else ""
                    emit(
                        e,
                        rule,
                        f"{path}.resourceClaims[{i}].{key}",
                        f"{word} {name!r}{where} is not in the inputs or the cluster context; the pod "
                        "cannot start until it exists",
                    )
        for field in ("initContainers", "containers"):
            for j, container in enumerate(as_list(spec.get(field))):
                resources = as_map(as_map(container).get("resources"))
                for kind in ("requests", "limits"):
                    for key in as_map(resources.get(kind)):
                        cls = str(key).removeprefix(IMPLICIT_CLASS_PREFIX)
                        if str(key).startswith(IMPLICIT_CLASS_PREFIX) and cls not in classes:
                            emit(
                                e,
                                "ADV-CLASS-EXISTS",
                                f"{path}.{field}[{j}].resources.{kind}[{key}]",
                                f"extended resource {key!r} is backed by DeviceClass {cls!r}, which is not "
                                "in the inputs or the cluster context",
                            )


def _names(index: Index, kind: str) -> set[tuple[str, str]]:
    return {(e.namespace, e.name) for e in index.of(kind) if e.name}


def _known(known: set[tuple[str, str]], namespace: str, name: str) -> bool:
    if not namespace:
        return any(n == name for _, n in known)
    return (namespace, name) in known or ("", name) in known
