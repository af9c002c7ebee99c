"""Inputs of the inventory views: where the world comes from, which release rules apply,
and ``--watch``.

Files and snapshots are read with :mod:`dractl.io.sources`; without either, the live
cluster (``dractl.cluster``, imported only then).  ``--watch`` on a live cluster uses the
API's watch (:class:`dractl.cluster.watch.WorldWatch`: one re-render per burst of changes, no
polling); on files and snapshots it polls: it re-reads the inputs every interval when a
file's size or modification time changed.  Either way the view is printed again only when
what it would print changed.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from dractl.errors import UsageError
from dractl.io.sources import FileSource, SnapshotSource, WorldSource
from dractl.io.world import World, build_world
from dractl.model.features import DEFAULT_KUBE_VERSION, GATE_NAMES, SUPPORTED_KUBE_VERSIONS, Features

NO_SOURCE = (
    "no cluster to read: give --snapshot FILE or -f FILES/DIRS (ResourceSlices, ResourceClaims, "
    "DeviceClasses, DeviceTaintRules, Nodes, Pods); try -f examples/demo/"
)


def sources(
    files: Sequence[str],
    snapshot: str | None,
    command: str,
    cluster: Any = None,
    warn: Callable[[str], None] | None = None,
    progress: Any = None,
) -> list[WorldSource]:
    """The world's sources: the snapshot, then the files; neither: the live cluster described by
    ``cluster`` (ClusterOptions; UsageError when there is none)."""
    out: list[WorldSource] = []
    if snapshot:
        out.append(SnapshotSource(snapshot))
    if files:
        out.append(FileSource(tuple(files)))
    if not out:
        if cluster is None:
            raise UsageError(NO_SOURCE, command)
        from dractl.cli.cluster_options import world_source

        # lean: the views read nothing of a ResourceSlice's JSON beyond the model
        out.append(
            world_source(snapshot=None, files=(), cluster=cluster, warn=warn, progress=progress, lean=True)
        )
    return out


def is_cluster(srcs: Sequence[WorldSource]) -> bool:
    return len(srcs) == 1 and not isinstance(srcs[0], FileSource | SnapshotSource)


@contextlib.contextmanager
def settled_heap() -> Iterator[None]:
    """Around a view's whole run: :func:`load` freezes the world it built (the cyclic collector
    never walks those millions of long-lived, acyclic objects again while the engine and the
    renderer work); this gives them back to the collector at the end."""
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off around one view's engine and renderer (back to its state after).
    They make hundreds of thousands of short-lived, acyclic objects (a 5,000-node availability:
    40,000 device rows, their documents and table cells): each young-generation collection on
    the way walked them for nothing (six of them, ~70 ms).  What is left after them is frozen as
    :func:`load` freezes the world (else the first allocation after would walk it all in one
    collection), and given back with it by :func:`settled_heap`."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def load(srcs: Sequence[WorldSource]) -> World:
    """One world from the sources (objects concatenated; the first snapshot header wins).  The
    collector is off while it is built and the world is frozen after (see :func:`settled_heap`,
    the caller's context that unfreezes it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(srcs)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _load(srcs: Sequence[WorldSource]) -> World:
    worlds = [s.load() for s in srcs]
    if len(worlds) == 1:
        return worlds[0]
    objects: list[Any] = []
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


def release(
    world: World,
    kube_version: str | None,
    gates: str | None,
    command: str,
    warn: Callable[[str], None],
    kube_patch: int | None = None,
) -> tuple[str, Features, tuple[str, ...]]:
    """(version, features, overrides): ``--kube-version`` (its patch ``kube_patch``), else the
    snapshot's, else the default; the release's gates and patch-level behaviour, then the
    snapshot's recorded gates, then ``--feature-gates``."""
    if kube_version is not None:
        kube_version = ".".join(kube_version.lstrip("v").split(".")[:2])
        if kube_version not in SUPPORTED_KUBE_VERSIONS:
            raise UsageError(
                f"--kube-version {kube_version}: one of {', '.join(SUPPORTED_KUBE_VERSIONS)}", command
            )
    version = kube_version or world.kube_version or DEFAULT_KUBE_VERSION
    if version not in SUPPORTED_KUBE_VERSIONS:
        warn(f"the snapshot is from Kubernetes {version}; reading it with {DEFAULT_KUBE_VERSION} rules")
        version = DEFAULT_KUBE_VERSION
    known = set(GATE_NAMES.values())
    # The patch release: --kube-version's, else the snapshot's (when its minor is the one applied).
    patch = kube_patch if kube_version is not None else None
    if kube_version is None and version == world.kube_version:
        patch = world.kube_patch
    try:
        features = Features.for_version(version).at_patch(version, patch)
        if world.feature_gates:
            features = Features.from_mapping(
                {k: v for k, v in world.feature_gates.items() if k in known}, features
            )
        overrides: tuple[str, ...] = ()
        if gates:
            features = Features.parse(gates, features)
            overrides = tuple(p.strip() for p in gates.split(",") if p.strip())
    except ValueError as e:
        raise UsageError(f"--feature-gates: {e}" if gates else str(e), command) from None
    for gate in features.locked_overrides(version):
        warn(f"feature gate {gate} is locked in Kubernetes {version}; a real cluster ignores the override")
    return version, features, overrides


def context(
    world: World, version: str, overrides: Sequence[str], features: Features, srcs: Sequence[WorldSource] = ()
) -> dict[str, Any]:
    """The report's context; ``srcs`` give the reads that were left out (a live cluster's
    ``missing``: ``--partial``, or a namespace-only user's denied cluster-scoped reads)."""
    from dractl.inventory.report import view_context

    missing = [line for s in srcs for line in getattr(s, "missing", None) or ()]
    return view_context(world.sources, version, overrides, features, missing)


def _stamp(srcs: Sequence[WorldSource]) -> tuple[Any, ...]:
    """Size and mtime of every input file (directories walked); changes when an input does."""
    paths: list[str] = []
    for s in srcs:
        paths.extend(getattr(s, "paths", ()) or ([s.path] if hasattr(s, "path") else []))
    out: list[tuple[str, int, int]] = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in sorted(os.walk(p)):
                out.extend(_stat(os.path.join(root, n)) for n in sorted(names))
        else:
            out.append(_stat(p))
    return tuple(out)


def _stat(path: str) -> tuple[str, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, st.st_size, st.st_mtime_ns)


def watch(
    once: Callable[[], Any],
    show: Callable[[Any], None],
    interval: float,
    srcs: Sequence[WorldSource],
    sleep: Callable[[float], None] = time.sleep,
    rounds: int | None = None,
) -> None:
    """Show the report, then again each time the inputs change, until interrupted (``rounds``
    bounds the loop for tests).  Inputs that stop loading end the watch with their error (exit 2
    or 3), as the first load would."""
    if is_cluster(srcs):
        _watch_cluster(once, show, srcs[0])
        return
    stamp = _stamp(srcs)
    last = once()
    show(last)
    done = 0
    while rounds is None or done < rounds:
        sleep(interval)
        done += 1
        now = _stamp(srcs)
        if now == stamp and all(hasattr(s, "paths") or hasattr(s, "path") for s in srcs):
            continue
        stamp = now
        report = once()
        if report.to_dict() != last.to_dict():
            show(report)
            last = report


def _watch_cluster(build: Callable[..., Any], show: Callable[[Any], None], source: Any) -> None:
    """The API's watch (:class:`dractl.cluster.watch.WorldWatch`): a new view per burst of changes."""
    from dractl.cluster.watch import WorldWatch

    watch = WorldWatch(source)
    last = None
    try:
        for world in watch:
            report = build(world)
            if last is None or report.to_dict() != last.to_dict():
                show(report)
                last = report
    finally:
        watch.close()
