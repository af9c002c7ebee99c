"""Turn the command line's inputs into a world, a target spec and features.

Kept out of the CLI so that every way in (files, snapshot, later a live cluster)
goes through the same checks: no world is an error, claim files are validated
like the API server would (an object it would reject is an input error, exit 2),
the Kubernetes version and feature gates default to the snapshot's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dractl.errors import InputError, SourcePos, UsageError
from dractl.explain.engine import TargetSpec
from dractl.io.snapshot_header import SnapshotHeader
from dractl.io.sources import (
    FileSource,
    SnapshotSource,
    WorldSource,
    objects_from_docs,
    raise_load_errors,
)
from dractl.io.world import World, build_world
from dractl.model import objects as o
from dractl.model.features import Features

COMMAND = "explain-allocation"
NO_WORLD = (
    "no cluster to explain against: give its objects with -f FILES/DIRS (Nodes, DeviceClasses, "
    "ResourceSlices, allocated ResourceClaims, DeviceTaintRules) or --snapshot FILE; "
    "try -f examples/demo/"
)


@dataclass(frozen=True)
class Inputs:
    world: World
    spec: TargetSpec
    features: Features
    kube_version: str
    overrides: tuple[str, ...]


def world_sources(
    files: Sequence[str], snapshot: str | None, command: str = COMMAND, cluster: WorldSource | None = None
) -> list[WorldSource]:
    """The sources of the world: the snapshot and files, else ``cluster`` (a live cluster);
    UsageError (naming ``command``) when there is none."""
    sources: list[WorldSource] = []
    if snapshot:
        sources.append(SnapshotSource(snapshot))
    if files:
        sources.append(FileSource(tuple(files)))
    if not sources and cluster is not None:
        sources.append(cluster)
    if not sources:
        raise UsageError(
            NO_WORLD.replace("to explain against", "to work on") if command != COMMAND else NO_WORLD, command
        )
    return sources


def load_world(sources: Sequence[WorldSource], namespace: str) -> World:
    """One world from several sources (objects concatenated; the first snapshot header wins)."""
    worlds = [s.load(namespace) for s in sources]
    if len(worlds) == 1:
        return worlds[0]
    objects: list[o.DRAObject] = []
    for w in worlds:
        objects.extend(
            [*w.nodes, *w.device_classes, *w.slices, *w.taint_rules, *w.claims, *w.templates, *w.pods]
        )
    first = next((w for w in worlds if w.kube_version), worlds[0])
    return build_world(
        objects,
        kube_version=first.kube_version,
        feature_gates=first.feature_gates,
        sources=[x for w in worlds for x in w.sources],
        skipped=sum(w.skipped for w in worlds),
    )


def header_of(world: World) -> SnapshotHeader | None:
    """What the world's snapshot header said about its cluster (None for plain files)."""
    if world.kube_version is None and not world.feature_gates:
        return None
    version = world.kube_version
    if version is not None and world.kube_patch is not None:
        version = f"v{version}.{world.kube_patch}"
    return SnapshotHeader(server_version=version, feature_gates=dict(world.feature_gates or {}))


def merge(world: World, extra: Sequence[o.DRAObject]) -> World:
    """The world plus objects of other kinds that came with the claim files."""
    if not extra:
        return world
    groups = {
        "Node": "nodes",
        "DeviceClass": "device_classes",
        "ResourceSlice": "slices",
        "DeviceTaintRule": "taint_rules",
        "Pod": "pods",
    }
    changes: dict[str, tuple[object, ...]] = {}
    for obj in extra:
        attr = groups.get(obj.kind)
        if attr is not None:
            changes[attr] = (*changes.get(attr, tuple(getattr(world, attr))), obj)
    return world.with_objects(**changes)


def target_spec(
    claim_files: Sequence[str],
    claims: Sequence[str],
    pod: str | None,
    namespace: str,
    kube_version: str,
    features: Features,
    command: str = COMMAND,
) -> tuple[TargetSpec, list[o.DRAObject]]:
    """The target, and objects of other kinds found in claim files (added to the world)."""
    given = sum(bool(x) for x in (claim_files, claims, pod))
    if given != 1:
        what = "explain" if command == COMMAND else "count"
        raise UsageError(
            f"say what to {what}: CLAIM_FILE arguments, --claim [NS/]NAME or --pod [NS/]NAME "
            "(exactly one of them)",
            command,
        )
    if not claim_files:
        return TargetSpec(claim_refs=tuple(claims), pod_ref=pod, namespace=namespace), []
    from dractl.io import load_paths

    loaded = load_paths(list(claim_files))
    raise_load_errors(loaded.errors)
    reject_invalid(loaded.docs, kube_version, features)
    objects, _ = objects_from_docs(loaded.docs)
    targets = [x for x in objects if isinstance(x, o.ResourceClaim | o.ResourceClaimTemplate)]
    if not targets:
        raise InputError(
            "no ResourceClaim or ResourceClaimTemplate in the claim files", SourcePos(claim_files[0])
        )
    others: list[o.DRAObject] = [
        x for x in objects if not isinstance(x, o.ResourceClaim | o.ResourceClaimTemplate)
    ]
    return TargetSpec(claim_objects=tuple(targets), namespace=namespace), others


def reject_invalid(docs: Iterable[object], kube_version: str, features: Features) -> None:
    """InputError for the first object the API server would reject (errors, not warnings)."""
    from dractl.validate.engine import check_doc
    from dractl.validate.findings import Severity
    from dractl.validate.options import ValidateOptions

    opts = ValidateOptions(kube_version=kube_version, features=features)
    for doc in docs:
        _, findings = check_doc(doc, opts)  # type: ignore[arg-type]
        # Which versions a cluster serves is validate's question (--runtime-config); explain converts
        # every version it can read, so a beta claim file is explained rather than refused.
        errors = [f for f in findings if f.severity is Severity.ERROR and f.rule != "API-VERSION-NOT-ENABLED"]
        if errors:
            f = errors[0]
            more = f" (and {len(errors) - 1} more; see dractl validate)" if len(errors) > 1 else ""
            who = f"{f.kind} {f.name}".strip()
            raise InputError(
                f"{who}: the API server would reject it: {f.message}{more}",
                SourcePos(f.file, f.document, f.line, f.column),
                f.path or None,
            )


def with_workload_pod(world: World, files: Sequence[str], ref: str | None, namespace: str) -> World:
    """``--pod NAME`` naming a workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
    PodTemplate, JobSet, LeaderWorkerSet) of the ``-f`` files rather than a Pod: the world plus one
    pending replica of it, a Pod named like the workload built from its (first) pod template.  The
    files are read again only when no Pod of that name exists.  The world unchanged otherwise."""
    if not ref or not files:
        return world
    from dractl.explain.target import split_ref

    ns, name = split_ref(ref, namespace)
    if world.pod(ns, name) is not None:
        return world
    from dractl.io import load_paths
    from dractl.model.build import build_object
    from dractl.validate.rules.workloads import is_workload, pod_templates

    for doc in load_paths(list(files)).docs:
        raw = doc.raw
        given = raw.get("metadata")
        meta = given if isinstance(given, dict) else {}
        if (
            not is_workload(str(raw.get("apiVersion") or ""), str(raw.get("kind") or ""))
            or meta.get("name") != name
            or (meta.get("namespace") or namespace) != ns
        ):
            continue
        templates = pod_templates(raw)
        if templates:
            _, pod = templates[0]
            pod["metadata"] = {**pod["metadata"], "name": name, "namespace": ns}
            return merge(world, [build_object(pod, doc.origin)])
    return world
