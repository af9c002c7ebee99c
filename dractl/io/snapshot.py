"""Snapshots: one multi-document YAML file holding what dractl needs to know about a cluster.

Layout (ARCHITECTURE.md "Snapshots"): a header document (``apiVersion:
dractl/v1alpha1``, ``kind: Snapshot``, ``serverVersion``, ``featureGates``,
``time``), then DeviceClasses, ResourceSlices, ResourceClaims,
ResourceClaimTemplates, DeviceTaintRules, Nodes and Pods, in that order.

Nodes keep name, labels, taints and ``unschedulable``.  Pods keep an explicit
list of fields (:data:`POD_SPEC_FIELDS` and friends): never environment
variables, arguments, volumes or annotations, because snapshots get shared.
Every object loses ``metadata.managedFields`` and kubectl's
last-applied-configuration annotation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dractl.errors import InputError, SourcePos
from dractl.io.decode import DEFAULT_MAX_INPUT_SIZE
from dractl.io.documents import LoadResult
from dractl.io.loader import load_paths
from dractl.io.snapshot_header import SNAPSHOT_API_VERSION, SNAPSHOT_KIND

KIND_ORDER = (
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceTaintRule",
    "Node",
    "Pod",
)
POD_META_FIELDS = ("name", "namespace", "uid")
POD_SPEC_FIELDS = ("nodeName", "nodeSelector", "affinity", "tolerations", "schedulerName", "resourceClaims")
POD_STATUS_FIELDS = ("resourceClaimStatuses", "extendedResourceClaimStatus")
CONTAINER_RESOURCE_FIELDS = ("claims", "requests", "limits")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _m(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _pick(source: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    return {k: source[k] for k in names if k in source and source[k] is not None}


def _clean_meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in meta.items() if k != "managedFields"}
    annotations = out.get("annotations")
    if isinstance(annotations, Mapping) and LAST_APPLIED in annotations:
        rest = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        if rest:
            out["annotations"] = rest
        else:
            del out["annotations"]
    return out


def reduce_node(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A Node with only name, labels, taints and unschedulable."""
    meta = _pick(_m(raw.get("metadata")), ("name", "labels"))
    return {
        "apiVersion": raw.get("apiVersion", "v1"),
        "kind": "Node",
        "metadata": meta,
        "spec": _pick(_m(raw.get("spec")), ("taints", "unschedulable")),
    }


def _reduce_container(raw: Any) -> dict[str, Any]:
    c = _m(raw)
    out: dict[str, Any] = _pick(c, ("name",))
    resources = _pick(_m(c.get("resources")), CONTAINER_RESOURCE_FIELDS)
    if resources:
        out["resources"] = resources
    return out


def _reduce_statuses(raw: Any) -> list[dict[str, Any]]:
    out = []
    for s in raw if isinstance(raw, list) else []:
        s = _m(s)
        if s.get("allocatedResourcesStatus"):
            out.append(_pick(s, ("name", "allocatedResourcesStatus")))
    return out


def reduce_pod(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A Pod with only the fields dractl reads: identity, scheduling, claims, claim statuses."""
    spec = _m(raw.get("spec"))
    status = _m(raw.get("status"))
    out_spec = _pick(spec, POD_SPEC_FIELDS)
    for key in ("initContainers", "containers"):
        if isinstance(spec.get(key), list):
            out_spec[key] = [_reduce_container(c) for c in spec[key]]
    out_status = _pick(status, POD_STATUS_FIELDS)
    for key in ("initContainerStatuses", "containerStatuses"):
        reduced = _reduce_statuses(status.get(key))
        if reduced:
            out_status[key] = reduced
    out: dict[str, Any] = {
        "apiVersion": raw.get("apiVersion", "v1"),
        "kind": "Pod",
        "metadata": _pick(_m(raw.get("metadata")), POD_META_FIELDS),
        "spec": out_spec,
    }
    if out_status:
        out["status"] = out_status
    return out


def _without_parameters(configs: Any) -> Any:
    """Device configs with each ``opaque.parameters`` left out (the driver name stays): opaque
    parameters are the driver's own data and may hold anything, so snapshots omit them unless
    asked (``dractl snapshot --include-config``)."""
    if not isinstance(configs, list):
        return configs
    out = []
    for cfg in configs:
        if isinstance(cfg, Mapping) and isinstance(cfg.get("opaque"), Mapping):
            cfg = {**cfg, "opaque": {k: v for k, v in cfg["opaque"].items() if k != "parameters"}}
        out.append(cfg)
    return out


def _strip_devices_config(holder: Any, key: str = "devices") -> Any:
    if not isinstance(holder, Mapping) or not isinstance(holder.get(key), Mapping):
        return holder
    devices = holder[key]
    if "config" not in devices:
        return holder
    return {**holder, key: {**devices, "config": _without_parameters(devices["config"])}}


def strip_opaque_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A DeviceClass, ResourceClaim or ResourceClaimTemplate without opaque config parameters
    (spec, template spec and allocation status alike).  Other kinds are returned as a copy."""
    out = dict(raw)
    kind = raw.get("kind")
    spec = raw.get("spec")
    if kind == "DeviceClass" and isinstance(spec, Mapping) and "config" in spec:
        out["spec"] = {**spec, "config": _without_parameters(spec["config"])}
    elif kind == "ResourceClaim":
        out["spec"] = _strip_devices_config(spec)
        status = raw.get("status")
        if isinstance(status, Mapping) and isinstance(status.get("allocation"), Mapping):
            out["status"] = {**status, "allocation": _strip_devices_config(status["allocation"])}
    elif kind == "ResourceClaimTemplate" and isinstance(spec, Mapping):
        out["spec"] = {**spec, "spec": _strip_devices_config(spec.get("spec"))}
    return out


def _reduce(raw: Mapping[str, Any], include_config: bool = True) -> dict[str, Any]:
    kind = raw.get("kind")
    if kind == "Node":
        return reduce_node(raw)
    if kind == "Pod":
        return reduce_pod(raw)
    out = dict(raw) if include_config else strip_opaque_config(raw)
    if isinstance(raw.get("metadata"), Mapping):
        out["metadata"] = _clean_meta(raw["metadata"])
    return out


def snapshot_header(
    *,
    server_version: str | None,
    feature_gates: Mapping[str, bool],
    time: str | None,
    missing: Iterable[str] = (),
    served_versions: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The header document.  ``missing`` names what could not be read (a partial snapshot);
    ``served_versions`` the ``resource.k8s.io`` group/versions the cluster served (discovery),
    left out when not known (None)."""
    header: dict[str, Any] = {
        "apiVersion": SNAPSHOT_API_VERSION,
        "kind": SNAPSHOT_KIND,
        "serverVersion": server_version,
        "featureGates": {k: bool(v) for k, v in sorted(feature_gates.items())},
        "time": time,
    }
    if served_versions is not None:
        header["servedVersions"] = sorted(set(served_versions))
    missing = list(missing)
    if missing:
        header["missing"] = missing
    return header


def write_snapshot(
    objects: Iterable[Mapping[str, Any]],
    *,
    server_version: str | None,
    feature_gates: Mapping[str, bool],
    time: str | None,
    include_config: bool = True,
    missing: Iterable[str] = (),
    served_versions: Iterable[str] | None = None,
    fmt: str = "yaml",
) -> str:
    """The snapshot text: header first, then the objects grouped in :data:`KIND_ORDER` (input
    order kept within a kind), Nodes and Pods reduced, opaque config parameters left out
    unless ``include_config``; the header as :func:`snapshot_header` writes it.  ValueError for
    a kind a snapshot doesn't hold.  The inputs are not mutated.

    ``fmt``: ``yaml`` (documents), or ``json``: one JSON document per line, the same documents
    (read back about three times faster; :func:`snapshot_format` picks it for ``*.json``)."""
    if fmt not in ("yaml", "json"):
        raise ValueError(f"snapshot format {fmt!r}: one of yaml, json")
    groups: dict[str, list[dict[str, Any]]] = {k: [] for k in KIND_ORDER}
    for obj in objects:
        kind = obj.get("kind")
        if kind not in groups:
            raise ValueError(f"a snapshot holds only {', '.join(KIND_ORDER)}; got kind {kind!r}")
        groups[str(kind)].append(_reduce(obj, include_config))
    docs: list[Any] = [
        snapshot_header(
            server_version=server_version,
            feature_gates=feature_gates,
            time=time,
            missing=missing,
            served_versions=served_versions,
        )
    ]
    for kind in KIND_ORDER:
        docs.extend(groups[kind])
    if fmt == "json":
        import json

        # ASCII only: every non-ASCII or control character as a JSON escape (the file means
        # exactly the same, and shows nothing unsafe when printed)
        return "".join(json.dumps(doc) + "\n" for doc in docs)
    from dractl.io.yamlemit import dump_all

    # Not PyYAML's emitter: ~5 s per 1,000 nodes of Python representers (see dractl.io.yamlemit).
    text = dump_all(docs)
    return text


def snapshot_format(path: str | None) -> str:
    """``json`` for a ``*.json`` file (the loader reads ``*.json`` files as JSON), else ``yaml``."""
    return "json" if path and path.lower().endswith(".json") else "yaml"


def save_snapshot(path: str, text: str) -> None:
    """Write a snapshot file atomically (a temporary file renamed into place), readable by the
    owner only — snapshots describe a cluster and get shared on purpose, not by accident.
    InputError (exit 2) when it cannot be written."""
    import os
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dractl-snapshot-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise InputError(f"cannot write the snapshot: {e.strerror or e}", SourcePos(path)) from None


def read_snapshot(path: str, *, max_input_size: int = DEFAULT_MAX_INPUT_SIZE) -> LoadResult:
    """Load a snapshot file (``-`` = stdin).  Raises InputError when the file can't be read or its
    first document isn't a valid ``dractl/v1alpha1`` Snapshot header; problems with single
    objects are left in ``errors`` of the result, as with :func:`load_paths`."""
    result = load_paths([path], max_input_size=max_input_size)
    if result.snapshot_header is None:
        if result.errors:
            raise result.errors[0]
        raise InputError(
            f"not a dractl snapshot: the first document must be apiVersion: "
            f"{SNAPSHOT_API_VERSION}, kind: {SNAPSHOT_KIND}",
            SourcePos(path, 0, 1),
        )
    return result
