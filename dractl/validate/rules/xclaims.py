"""Cross-object checks on claims, classes, taint rules and tolerations."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from dractl.validate.rules.ctx import as_list, as_map, as_str
from dractl.validate.rules.xindex import Entry, Index, devices_of, requests_of, selector_exprs

Emit = Callable[[Entry, str, str, str], None]
ADMIN_LABEL = "resource.kubernetes.io/admin-access"
_REF = re.compile(
    r"""device\s*\.\s*(attributes|capacity)\s*\[\s*(["'])([^"']+)\2\s*\]\s*"""
    r"""(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*(["'])([^"']+)\5\s*\])"""
)


def check_classes(index: Index, emit: Emit) -> None:
    classes = index.classes()
    for e, spec, path in index.claim_specs():
        for req, rpath, _ref in requests_of(spec, path):
            name = as_str(req.get("deviceClassName"))
            if name and name not in classes:
                emit(
                    e,
                    "ADV-CLASS-EXISTS",
                    f"{rpath}.deviceClassName",
                    f"DeviceClass {name!r} is not in the inputs or the cluster context; the claim cannot be "
                    "allocated until it exists",
                )
    by_resource: dict[str, str] = {}
    for e in index.of("DeviceClass"):
        ext = e.spec.get("extendedResourceName")
        if not isinstance(ext, str):
            continue
        if ext in by_resource and e.is_input:
            emit(
                e,
                "ADV-EXTRES-UNIQUE",
                "spec.extendedResourceName",
                f"extendedResourceName {ext!r} is also used by DeviceClass {by_resource[ext]!r}; the newest "
                "class wins",
            )
        by_resource.setdefault(ext, e.name)


def attribute_refs(expr: str) -> list[tuple[str, str]]:
    """(``attributes``|``capacity``, ``domain/name``) referenced with constant keys in a selector."""
    return [(m.group(1), f"{m.group(3)}/{m.group(4) or m.group(6)}") for m in _REF.finditer(expr)]


def published_names(index: Index) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """How many devices publish each full attribute / capacity name, and how many devices each
    domain has (a device counts for its driver's domain and every domain it publishes in)."""
    attrs: dict[str, int] = {}
    caps: dict[str, int] = {}
    domains: dict[str, int] = {}
    for e in index.slices():
        driver = as_str(e.spec.get("driver"))
        for _, dev in devices_of(e.spec):
            dev = as_map(dev)
            seen = {driver}
            for target, fld in ((attrs, "attributes"), (caps, "capacity")):
                for key in as_map(dev.get(fld)):
                    full = str(key) if "/" in str(key) else f"{driver}/{key}"
                    target[full] = target.get(full, 0) + 1
                    seen.add(full.rsplit("/", 1)[0])
            for domain in seen:
                domains[domain] = domains.get(domain, 0) + 1
    return attrs, caps, domains


def check_selector_refs(index: Index, emit: Emit) -> None:
    """Selectors naming an attribute/capacity that no device of that domain publishes (only for domains
    the inputs have devices of: about other drivers nothing is known)."""
    attrs, caps, domains = published_names(index)
    for e, obj, path in _selector_owners(index):
        for expr, epath in selector_exprs(obj, path):
            for fld, name in sorted(set(attribute_refs(expr))):
                domain, _, ident = name.rpartition("/")
                if "/" in domain:
                    emit(
                        e,
                        "LINT-SELECTOR-UNKNOWN-ATTRIBUTE",
                        epath,
                        f"device.{fld}[{domain!r}] uses a qualified name as the domain, which matches no "
                        f"device; write device.{fld}[{domain.split('/')[0]!r}].{domain.split('/', 1)[1]} "
                        f"(and drop .{ident} if it names the value type)",
                    )
                    continue
                total = domains.get(domain, 0)
                known = attrs if fld == "attributes" else caps
                if total and name not in known:
                    word = "attribute" if fld == "attributes" else "capacity"
                    emit(
                        e,
                        "LINT-SELECTOR-UNKNOWN-ATTRIBUTE",
                        epath,
                        f"selector references {word} {name!r}, published by 0 of {total} devices of that "
                        f"domain {index.devices_from()}",
                    )


def _selector_owners(index: Index) -> list[tuple[Entry, Mapping[str, Any], str]]:
    out: list[tuple[Entry, Mapping[str, Any], str]] = []
    for e in index.of("DeviceClass"):
        if e.is_input or not any(x.is_input for x in index.entries):
            out.append((e, e.spec, "spec"))
    for e, spec, path in index.claim_specs():
        out.extend((e, req, rpath) for req, rpath, _ in requests_of(spec, path))
    return [o for o in out if o[0].is_input]


def check_taint_rules(index: Index, emit: Emit, kube_version: str = "1.37", patch: int | None = None) -> None:
    """LINT-DTR-…: rules that taint everything, or (missing selector) nothing or everything depending on
    the patch release (:data:`dractl.model.features.PATCH_FIXES`)."""
    from dractl.model.features import patch_has

    fixed = patch_has("dtr-nil-selector-matches-none", kube_version, patch)
    for e in index.of("DeviceTaintRule"):
        if not e.is_input:
            continue
        sel = e.spec.get("deviceSelector")
        evicts = (
            " and evicts every pod using one (effect NoExecute)"
            if as_map(e.spec.get("taint")).get("effect") == "NoExecute"
            else ""
        )
        if sel is None:
            emit(e, "LINT-DTR-NO-SELECTOR", "spec", _no_selector_message(kube_version, patch, fixed))
        elif not any(as_map(sel).get(k) for k in ("driver", "pool", "device")):
            emit(
                e,
                "LINT-DTR-EMPTY-SELECTOR",
                "spec.deviceSelector",
                f"an empty deviceSelector taints every device in the cluster{evicts}",
            )


def _no_selector_message(kube_version: str, patch: int | None, fixed: bool | None) -> str:
    # The API documentation says "without a selector, no devices are matched"; until kubernetes PR
    # #141648 the scheduler's taint tracker (k8s.io/dynamic-resource-allocation/resourceslice/tracker)
    # treated a missing selector like an empty one, while the eviction controller matched nothing.
    before = (
        "the scheduler treats it as tainting every device in the cluster (no pod gets a DRA device "
        "unless it tolerates the taint; running pods are not evicted)"
    )
    after = "it matches no device, as documented (use deviceSelector: {} to taint every device)"
    head = "DeviceTaintRule without deviceSelector: "
    if fixed is True:
        release = f"v{kube_version}.{patch}" if patch is not None else f"v{kube_version}"
        return f"{head}in Kubernetes {release} {after}; add a selector if it is meant to taint something"
    if fixed is False:
        release = f"v{kube_version}.{patch}" if patch is not None else f"v{kube_version}"
        return f"{head}the API documentation says it matches no device, but in Kubernetes {release} {before}"
    return (
        f"{head}in Kubernetes v{kube_version}.0 {before}; from v{kube_version}.1 {after} "
        "(give --kube-version with the patch release to know which)"
    )


def known_taint_keys(index: Index) -> set[str]:
    keys: set[str] = set()
    for e in index.slices():
        for _, dev in devices_of(e.spec):
            keys.update(as_str(as_map(t).get("key")) for t in as_list(as_map(dev).get("taints")))
    for e in index.of("DeviceTaintRule"):
        keys.add(as_str(as_map(e.spec.get("taint")).get("key")))
    keys.discard("")
    return keys


def check_tolerations(index: Index, emit: Emit) -> None:
    keys = known_taint_keys(index)
    for e, spec, path in index.claim_specs():
        for req, rpath, _ in requests_of(spec, path):
            for i, tol in enumerate(as_list(req.get("tolerations"))):
                tol = as_map(tol)
                tpath = f"{rpath}.tolerations[{i}]"
                op = tol.get("operator") or "Equal"
                key = as_str(tol.get("key"))
                if op == "Equal" and not key:
                    emit(
                        e,
                        "LINT-TOLERATION-NOTHING",
                        tpath,
                        "operator Equal with an empty key tolerates nothing (taint keys are never empty); "
                        "use operator: Exists to tolerate every taint",
                    )
                elif key and keys and key not in keys:
                    emit(
                        e,
                        "LINT-TOLERATION-NOTHING",
                        f"{tpath}.key",
                        f"no device or DeviceTaintRule in the inputs has a taint with key {key!r}",
                    )


def check_admin_namespaces(index: Index, emit: Emit) -> None:
    namespaces = {
        e.name: as_map(as_map(e.obj.get("metadata")).get("labels")) for e in index.of("Namespace") if e.name
    }
    if not namespaces:
        return
    for e, spec, path in index.claim_specs():
        for req, rpath, _ in requests_of(spec, path):
            if req.get("adminAccess") is not True or e.namespace not in namespaces:
                continue
            if namespaces[e.namespace].get(ADMIN_LABEL) != "true":
                claim = e.kind == "ResourceClaim"
                emit(
                    e,
                    "RC-ADMIN-NS" if claim else "RCT-ADMIN",
                    f"{rpath}.adminAccess",
                    ("Forbidden: " if claim else "")
                    + "admin access to devices requires the `resource.kubernetes.io/admin-access: true` "
                    f"label on the containing namespace (namespace {e.namespace!r} does not have it)",
                )
