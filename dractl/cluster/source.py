"""A live cluster as a :class:`~dractl.io.sources.WorldSource`.

``ClusterSource(opts).load()`` connects (kubeconfig or in-cluster), asks the server's
version and what it serves, lists the kinds asked for (paginated raw JSON) and builds the
same :class:`~dractl.io.world.World` a snapshot or files give.  ``load_raw()`` stops before
the model (``dractl snapshot`` writes those objects).

What is read, and what is deliberately not:

* cluster-scoped kinds (DeviceClasses, ResourceSlices, DeviceTaintRules, Nodes) are listed;
  with ``node`` only that node's slices (``spec.nodeName`` field selector, plus the slices
  that are not node-local) and that Node;
* claims and templates are listed in the namespace (``-n``, else the context's) or in all;
* Pods are never listed cluster-wide: they are read by name from the claims'
  ``status.reservedFor`` (and the owner of a claim made from a template, a pod still
  pending); a namespace holding many of them is listed once instead of hundreds of GETs (and
  filtered to those); with ``node``, the node's pods are listed by ``spec.nodeName``.
  Pending pods that name an existing claim are not found this way: ``pods`` adds them.

Reads that fail: 401 always fails (exit 3).  A denied read of cluster-scoped objects, or of
claims outside the namespace, by a user who works in one namespace (``-n`` or a context
namespace) is reported as missing — the view says what it could not see — and so is any
failed read under ``partial``; everything else fails.  ``missing`` lists them after load.
"""

from __future__ import annotations

import contextlib
import gc
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.cluster.discovery import ServerInfo, discover
from dractl.cluster.kubeconfig import Connection, connect
from dractl.cluster.lists import Progress, list_items
from dractl.cluster.options import ClusterOptions
from dractl.cluster.pages import lean_decoder
from dractl.cluster.resources import RESOURCES, Resource
from dractl.cluster.transport import Call, Transport, scope_of
from dractl.errors import ClusterError
from dractl.io.world import WORLD_KINDS, World, build_world
from dractl.model import objects as o
from dractl.model.fastinit import fast_init
from dractl.model.features import GATE_NAMES, Features
from dractl.model.origin import Origin

_Origin = fast_init(Origin)  # the same objects, without a setattr per field (65,000 at 5,000 nodes)

# A namespace with more reserved pods than this is listed (paged) instead of read pod by pod.
POD_GET_LIMIT = 50


@dataclass(frozen=True)
class ListRead:
    """One list that was read, and the resourceVersion it was read at (a watch resumes there)."""

    kind: str
    namespace: str | None
    field_selector: str | None
    label_selector: str | None
    resource_version: str


@dataclass
class RawWorld:
    """The objects as the server sent them (kind and apiVersion set on each), and the facts."""

    objects: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {k: [] for k in WORLD_KINDS})
    server: ServerInfo | None = None
    feature_gates: dict[str, bool] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def all_objects(self) -> list[dict[str, Any]]:
        return [obj for kind in WORLD_KINDS for obj in self.objects.get(kind, [])]


def assumed_gates(minor: str) -> dict[str, bool]:
    """The release defaults of every DRA gate (gates a cluster has on are unknowable from
    outside; ``--feature-gates`` overrides)."""
    features = Features.for_version(minor)
    return {gate: bool(getattr(features, name)) for name, gate in sorted(GATE_NAMES.items())}


class ClusterSource:
    """Implements :class:`dractl.io.sources.WorldSource` over a live cluster.

    ``kinds`` limits what is read (a view that needs no Pods doesn't read them); ``pods`` are
    extra ``(namespace, name)`` Pods to read by name (``explain-allocation --pod``);
    ``warn`` receives one line per missing read; ``progress(what, done, total)`` is called
    after each page.  ``transport`` is injectable for tests.  ``lean``: :meth:`load` builds the
    ResourceSlices of each page as it arrives, and the ResourceClaims once listed (before the Pods
    are read), and keeps none of their JSON (``raw`` is empty: the inventory views read none of
    it), so the pages' decoded JSON — most of a big cluster's — is never all alive at once; Pods
    are built with only what the inventory views read of them (:func:`dractl.model.build.lean_pod`).
    """

    def __init__(
        self,
        opts: ClusterOptions,
        *,
        kinds: Sequence[str] = WORLD_KINDS,
        warn: Callable[[str], None] | None = None,
        progress: Progress | None = None,
        pods: Sequence[tuple[str, str]] = (),
        connector: Callable[[ClusterOptions], Connection] = connect,
        lean: bool = False,
    ) -> None:
        unknown = [k for k in kinds if k not in RESOURCES]
        if unknown:
            raise ValueError(f"ClusterSource: unknown kinds {unknown}")
        self.opts = opts
        self.kinds = tuple(kinds)
        self.extra_pods = tuple(pods)
        self._warn = warn or (lambda _m: None)
        self._progress = progress
        self._connector = connector
        self.connection: Connection | None = None
        self.server: ServerInfo | None = None
        self.missing: list[str] = []
        self.transport: Transport | None = None
        self.reads: list[ListRead] = []  # the lists read by the last load, for watches
        self.lean = lean
        self._building = False  # in load(): LEAN_KINDS become model objects as they are read

    # ------------------------------------------------------------------ WorldSource
    def describe(self) -> str:
        if self.connection is None:
            return f"cluster: context {self.opts.context}" if self.opts.context else "cluster"
        text = self.connection.describe()
        if self.server is not None:
            text += f", Kubernetes {self.server.git_version}"
        return text

    def load(self, default_namespace: str = "default") -> World:
        with paused_gc():
            self._building = self.lean
            try:
                raw = self.load_raw()
            finally:
                self._building = False
            objects = list(build_objects(raw, built=LEAN_KINDS if self.lean else (), lean=self.lean))
            assert raw.server is not None
            return build_world(
                objects,
                kube_version=raw.server.minor,
                feature_gates=raw.feature_gates,
                sources=(self.describe(),),
                default_namespace=default_namespace,
                kube_patch=raw.server.patch,
            )

    # ------------------------------------------------------------------ raw reads
    def load_raw(self) -> RawWorld:
        """Connect, discover and read.  Raises ClusterError (exit 3) or InputError (exit 2,
        an unreadable kubeconfig)."""
        self.connection = conn = self._connector(self.opts)
        self.transport = transport = Transport(conn, self.opts.request_timeout)
        self.missing, self.reads = [], []
        try:
            self.server = server = discover(transport)
            raw = RawWorld(server=server, feature_gates=assumed_gates(server.model_version))
            self._read_all(raw, conn.namespace)
            raw.missing = list(self.missing)
            return raw
        finally:
            transport.close()

    def _scope(self) -> str | None:
        """The namespace of namespaced lists (None: all namespaces)."""
        assert self.connection is not None
        return None if self.opts.all_namespaces else self.connection.namespace

    def _read_all(self, raw: RawWorld, namespace: str) -> None:
        node = self.opts.node
        for kind in ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "Node"):
            if kind not in self.kinds:
                continue
            if kind == "ResourceSlice" and node:
                local = self._list(kind, None, field_selector=f"spec.nodeName={node}")
                raw.objects[kind] = local + self._list(
                    kind, None, field_selector="spec.nodeName=", start=len(local)
                )
            elif kind == "Node":
                selector = f"metadata.name={node}" if node else None
                raw.objects[kind] = self._list(
                    kind, None, field_selector=selector, label_selector=self.opts.label_selector
                )
            else:
                raw.objects[kind] = self._list(kind, None)
        for kind in ("ResourceClaim", "ResourceClaimTemplate"):
            if kind in self.kinds:
                raw.objects[kind] = self._namespaced(kind)
        claims: Iterable[dict[str, Any] | ClaimPods] = raw.objects.get("ResourceClaim", [])
        if self._building and "ResourceClaim" in raw.objects:
            # what the Pod reads need of the claims is taken now; the claims' JSON goes before
            # the Pods' is read (a lean read's peak holds one of them, not both)
            claims = [claim_pods(c) for c in raw.objects["ResourceClaim"]]
            build = _lean_builder("ResourceClaim")
            raw.objects["ResourceClaim"] = [build(c, i) for i, c in enumerate(raw.objects["ResourceClaim"])]
        if "Pod" in self.kinds:
            raw.objects["Pod"] = self._pods(claims, extended_names(raw.objects.get("DeviceClass", [])))

    def _namespaced(self, kind: str, field_selector: str | None = None) -> list[dict[str, Any]]:
        """All namespaces when asked; a user who may not list them cluster-wide but has a
        namespace falls back to that namespace, reported as missing the others."""
        assert self.connection is not None
        scope = self._scope()
        if scope is not None:
            return self._list(kind, scope, field_selector=field_selector)
        try:
            return self._list(kind, None, field_selector=field_selector, tolerate=False)
        except ClusterError as e:
            fallback = self._fallback_namespace()
            if e.code != 403 or not fallback:
                raise
            self._note_missing(RESOURCES[kind], None, "forbidden", f"only namespace {fallback} was read")
            return self._list(kind, fallback, field_selector=field_selector)

    def _fallback_namespace(self) -> str | None:
        """Where a denied all-namespaces read falls back to: the namespace the user named."""
        return self.opts.namespace

    def wanted_pods(self, claims: Iterable[dict[str, Any] | ClaimPods]) -> dict[str, set[str]]:
        """Namespace → names of the Pods to read by name: those the claims are reserved for,
        the owners of template claims (see :func:`claim_pods`; a claim may be given as its
        ``claim_pods``), and the extra ``pods`` (only those with ``node``)."""
        wanted: dict[str, set[str]] = defaultdict(set)
        for claim in claims if not self.opts.node else ():  # with node: its field-selected list
            ns, names = claim if isinstance(claim, tuple) else claim_pods(claim)
            wanted[ns].update(names)
        for ns, name in self.extra_pods:  # an empty namespace: the context's (kubectl's default)
            wanted[ns or (self.connection.namespace if self.connection else "default")].add(name)
        return {ns: {n for n in names if n} for ns, names in wanted.items()}

    def _pods(
        self, claims: Iterable[dict[str, Any] | ClaimPods], extended: frozenset[str]
    ) -> list[dict[str, Any]]:
        wanted = self.wanted_pods(claims)
        found: dict[tuple[str, str], dict[str, Any]] = {}
        # Pending pods (no node yet: the scheduler's own "unassigned" field selector) that ask for
        # devices: claims, or an extended resource a DeviceClass provides.  Not with ``node``:
        # then only that node's pods.
        for pod in [] if self.opts.node else self._namespaced("Pod", field_selector="spec.nodeName="):
            if uses_devices(pod, extended):
                meta = pod.get("metadata") or {}
                found[(str(meta.get("namespace")), str(meta.get("name")))] = pod
        if self.opts.node:
            for pod in self._list("Pod", self._scope(), field_selector=f"spec.nodeName={self.opts.node}"):
                meta = pod.get("metadata") or {}
                if pod.get("spec", {}).get("resourceClaims"):
                    found[(str(meta.get("namespace")), str(meta.get("name")))] = pod
        default_ns = self.connection.namespace if self.connection else "default"
        asked = {(ns or default_ns, n) for ns, n in self.extra_pods}  # named by the user: read by name
        for ns, names in sorted(wanted.items()):
            names = {n for n in names if (ns, n) not in found or (ns, n) in asked}
            if len(names) > POD_GET_LIMIT:
                for pod in self._list("Pod", ns):
                    name = str((pod.get("metadata") or {}).get("name"))
                    if name in names:
                        found[(ns, name)] = pod
                continue
            for name in sorted(names):
                got = self._get("Pod", ns, name)
                if got is not None:
                    found[(ns, name)] = got
        return [found[k] for k in sorted(found)]

    # ------------------------------------------------------------------ one read
    def _list(
        self,
        kind: str,
        namespace: str | None,
        *,
        field_selector: str | None = None,
        label_selector: str | None = None,
        tolerate: bool = True,
        start: int = 0,
    ) -> list[dict[str, Any]]:
        """The items (a lean read's model objects for ResourceSlices; ``start``: the index of
        the first in the kind's whole list, for their origins)."""
        assert self.transport is not None and self.server is not None
        resource = RESOURCES[kind]
        version = self.server.versions.get(kind)
        if version is None:  # not served (e.g. DeviceTaintRules with the gate off): none exist
            return []
        try:
            result = list_items(
                self.transport,
                resource,
                version,
                namespace=namespace,
                field_selector=field_selector,
                label_selector=label_selector,
                chunk_size=self.opts.chunk_size,
                progress=self._progress,
                convert=_lean_builder(kind, start) if self._building and kind == "ResourceSlice" else None,
                lean=lean_decoder(kind) if self._building else None,
            )
            self.reads.append(
                ListRead(kind, namespace, field_selector, label_selector, result.resource_version)
            )
            return result.items
        except ClusterError as e:
            if not tolerate or not self._tolerated(e, resource):
                raise
            self._note_missing(resource, namespace, _why(e))
            return []

    def get_pod(self, transport: Transport, namespace: str, name: str) -> dict[str, Any] | None:
        """One Pod by name over ``transport`` (None when it is gone); for watches."""
        self.transport = transport
        return self._get("Pod", namespace, name)

    def _get(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        assert self.transport is not None and self.server is not None
        resource = RESOURCES[kind]
        version = self.server.versions[kind]
        call = Call("get", f'{resource.display} "{name}"', scope_of(namespace))
        try:
            doc = self.transport.get_json(
                resource.path(version, namespace, name), [], call, allow=frozenset({404})
            )
        except ClusterError as e:
            if not self._tolerated(e, resource):
                raise
            self._note_missing(resource, namespace, _why(e), f'pod "{name}"')
            return None
        if not isinstance(doc, dict) or doc.get("kind") == "Status":
            return None  # gone since the claim was read
        return {**doc, "apiVersion": version, "kind": resource.kind}

    def _tolerated(self, error: ClusterError, resource: Resource) -> bool:
        if error.code == 401:
            return False
        if self.opts.partial:
            return True
        namespace_user = not self.opts.all_namespaces or bool(self.opts.namespace)
        return error.code == 403 and namespace_user and not resource.namespaced

    def _note_missing(self, resource: Resource, namespace: str | None, why: str, detail: str = "") -> None:
        line = f"{resource.display} {scope_of(namespace if resource.namespaced else None)}: {why}"
        if detail:
            line += f" ({detail})"
        if line not in self.missing:
            self.missing.append(line)
            self._warn(f"could not read {line}; the result does not include them")


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic collector off while a read builds its heap (JSON pages, then the model: millions
    of fresh containers, no garbage cycles), back to its state after.  With it on, the collector
    walks the growing heap again and again: a third of the decode and model time at 5,000 nodes.
    What was built is long-lived: it goes to the oldest generation as it is (``freeze`` then
    ``unfreeze``), so no collection walks it on the way there, as the first young-generation
    collection after a plain ``enable`` would (and the next generation's after it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


ClaimPods = tuple[str, tuple[str, ...]]


def claim_pods(claim: dict[str, Any]) -> ClaimPods:
    """A claim's namespace and the Pods it names: those it is reserved for, and the Pod that owns
    a claim made from a template for a pod that is still pending."""
    ns = str((claim.get("metadata") or {}).get("namespace") or "")
    names = []
    for ref in (claim.get("status") or {}).get("reservedFor") or []:
        if isinstance(ref, dict) and ref.get("resource") == "pods" and not ref.get("apiGroup"):
            names.append(str(ref.get("name") or ""))
    for owner in (claim.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(owner, dict) and owner.get("kind") == "Pod" and owner.get("apiVersion") == "v1":
            names.append(str(owner.get("name") or ""))
    return ns, tuple(names)


IMPLICIT_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"


def extended_names(classes: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The extended resource names DeviceClasses provide (``spec.extendedResourceName``)."""
    return frozenset(
        str(c["spec"]["extendedResourceName"])
        for c in classes
        if isinstance(c.get("spec"), dict) and c["spec"].get("extendedResourceName")
    )


def uses_devices(pod: dict[str, Any], extended: frozenset[str]) -> bool:
    """Whether a Pod asks for DRA devices: resource claims, or an extended resource that a
    DeviceClass provides (named, or the implicit ``deviceclass.resource.kubernetes.io/NAME``)."""
    spec = pod.get("spec") or {}
    if spec.get("resourceClaims"):
        return True
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        resources = (container or {}).get("resources") or {}
        for name in [*(resources.get("requests") or {}), *(resources.get("limits") or {})]:
            if name in extended or str(name).startswith(IMPLICIT_EXTENDED_PREFIX):
                return True
    return False


def _why(error: ClusterError) -> str:
    if error.code == 403:
        return "forbidden"
    return error.message.split(": ", 1)[-1]


# Kinds a lean read builds without keeping their JSON: slices page by page, claims once listed.
LEAN_KINDS = ("ResourceSlice", "ResourceClaim")


def build_objects(raw: RawWorld, built: Collection[str] = (), lean: bool = False) -> Iterable[o.DRAObject]:
    """Model objects from the server's JSON (``built``: kinds whose lists hold model objects
    already, a lean read's; ``lean``: Pods as :func:`dractl.model.build.lean_pod` builds them);
    an object the model can't read (an unparsable quantity) is a ClusterError naming it."""
    from dractl.model.build import build_object, lean_pod
    from dractl.model.convert import to_v1

    for kind in WORLD_KINDS:
        resource = RESOURCES[kind]
        if kind in built:
            yield from raw.objects.get(kind, [])  # type: ignore[misc]
            continue
        where = f"cluster:{resource.display}"
        for i, item in enumerate(raw.objects.get(kind, [])):
            try:
                if lean and kind == "Pod":
                    yield lean_pod(to_v1(item), _Origin(where, 0, i))
                else:
                    yield build_object(item, _Origin(where, 0, i))
            except (ValueError, KeyError) as e:
                raise _undecodable(resource, item, e) from None


def _undecodable(resource: Resource, item: dict[str, Any], error: Exception) -> ClusterError:
    meta = item.get("metadata") or {}
    key = "/".join(str(p) for p in (meta.get("namespace"), meta.get("name")) if p)
    return ClusterError("decode", f"{resource.display} {key}", str(error))


def _lean_builder(kind: str, start: int = 0) -> Callable[[dict[str, Any], int], Any]:
    """``(item, index) -> model object`` of a lean read: as :func:`build_objects` builds it, without
    keeping the item's JSON."""
    from dractl.model.build import resource_claim, resource_slice
    from dractl.model.convert import to_v1

    builder: Callable[..., o.DRAObject] = resource_slice if kind == "ResourceSlice" else resource_claim
    resource = RESOURCES[kind]
    where = f"cluster:{resource.display}"

    def build(item: dict[str, Any], i: int) -> o.DRAObject:
        try:
            return builder(to_v1(item), _Origin(where, 0, start + i), keep_raw=False)
        except (ValueError, KeyError) as e:
            raise _undecodable(resource, item, e) from None

    return build
