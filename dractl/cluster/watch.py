"""``--watch``: the world again each time the cluster changes, through the API's watch.

:class:`WorldWatch` loads once (a :class:`ClusterSource` read), then watches every list it
read from that list's resourceVersion — so no change between the list and the watch is
lost — and yields a new :class:`~dractl.io.world.World` after each burst of changes
(``debounce`` seconds of quiet, so a rollout re-renders once, not per pod).

Pods were read by name (never listed cluster-wide); they are watched per namespace that holds
one of them, events of other pods ignored, and Pods that claims newly reference are read by
name.  A watch the server expires (410 Gone, as an ERROR event or a status) re-lists that one
read and carries on; a dropped stream reconnects from the last resourceVersion seen; an error
that is not transient ends the iteration with a ClusterError (exit 3).

Threads: one daemon thread per watched list, feeding one queue; :meth:`close` stops them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from dractl.cluster.lists import list_items
from dractl.cluster.resources import RESOURCES
from dractl.cluster.source import ClusterSource, ListRead, RawWorld, build_objects
from dractl.cluster.transport import BodyTooLarge, Call, Transport, json_loads, scope_of
from dractl.errors import ClusterError
from dractl.io.world import WORLD_KINDS, World, build_world

WATCH_TIMEOUT_SECONDS = 300  # the server ends a watch after this; it is resumed at once
Key = tuple[str, str]


def _key(obj: dict[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


class WorldWatch:
    """Iterate to get the first world, then one per burst of changes.  ``stop`` (or
    :meth:`close`) ends the iteration; :meth:`next_world` takes a timeout for tests."""

    def __init__(
        self,
        source: ClusterSource,
        *,
        default_namespace: str = "default",
        debounce: float = 0.3,
        timeout_seconds: int = WATCH_TIMEOUT_SECONDS,
    ) -> None:
        self.source = source
        self.default_namespace = default_namespace
        self.debounce = debounce
        self.timeout_seconds = timeout_seconds
        self.stop = threading.Event()
        self._events: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
        self._store: dict[str, dict[Key, dict[str, Any]]] = {k: {} for k in WORLD_KINDS}
        self._raw: RawWorld | None = None
        self._threads: list[threading.Thread] = []
        self._pod_namespaces: set[str] = set()
        self._transport: Transport | None = None

    def __iter__(self) -> Iterator[World]:
        while not self.stop.is_set():
            world = self.next_world()
            if world is None:
                return
            yield world

    def next_world(self, timeout: float | None = None) -> World | None:
        """The next world: the first call loads; later ones wait for changes (None when
        stopped, TimeoutError when ``timeout`` passes without one)."""
        if self._raw is None:
            self._start()
            return self._world()
        deadline = None if timeout is None else time.monotonic() + timeout
        changed = False
        while not changed:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError("no change")
            try:
                event = self._events.get(timeout=0.2 if remaining is None else min(0.2, remaining))
            except queue.Empty:
                if self.stop.is_set():
                    return None
                continue
            changed = self._apply(event)
        quiet_until = time.monotonic() + self.debounce
        while (left := quiet_until - time.monotonic()) > 0:
            try:
                self._apply(self._events.get(timeout=left))
            except queue.Empty:
                break
        self._refresh_pods()
        return self._world()

    def close(self) -> None:
        self.stop.set()
        if self._transport is not None:
            self._transport.close()

    # ------------------------------------------------------------------ internals
    def _start(self) -> None:
        raw = self.source.load_raw()
        self._raw = raw
        for kind in WORLD_KINDS:
            self._store[kind] = {_key(o): o for o in raw.objects.get(kind, [])}
        assert self.source.connection is not None
        self._transport = Transport(self.source.connection, self.source.opts.request_timeout)
        for read in self.source.reads:
            self._spawn(read)
        self._watch_pod_namespaces()

    def _watch_pod_namespaces(self) -> None:
        if self.source.opts.node or "Pod" not in self.source.kinds:
            return
        # From the claims' resourceVersion: the pods were read by name after it (replays are harmless).
        since = next((r.resource_version for r in self.source.reads if r.kind == "ResourceClaim"), "")
        for ns in sorted(self.source.wanted_pods(self._store["ResourceClaim"].values())):
            if ns not in self._pod_namespaces:
                self._pod_namespaces.add(ns)
                self._spawn(ListRead("Pod", ns, None, None, since), only_wanted=True)

    def _spawn(self, read: ListRead, only_wanted: bool = False) -> None:
        thread = threading.Thread(
            target=self._run, args=(read, only_wanted), daemon=True, name=f"dractl-watch-{read.kind}"
        )
        self._threads.append(thread)
        thread.start()

    def _run(self, read: ListRead, only_wanted: bool) -> None:
        """One watch, resumed until stopped; events go to the queue."""
        assert self.source.connection is not None and self.source.server is not None
        transport = Transport(self.source.connection, None)
        resource = RESOURCES[read.kind]
        version = self.source.server.versions[read.kind]
        call = Call("watch", resource.display, scope_of(read.namespace if resource.namespaced else None))
        rv = read.resource_version
        while not self.stop.is_set():
            query = [
                ("watch", "1"),
                ("allowWatchBookmarks", "true"),
                ("timeoutSeconds", str(self.timeout_seconds)),
            ]
            if rv:
                query.append(("resourceVersion", rv))
            if read.field_selector:
                query.append(("fieldSelector", read.field_selector))
            if read.label_selector:
                query.append(("labelSelector", read.label_selector))
            try:
                for line in transport.stream_lines(resource.path(version, read.namespace), query, call):
                    if self.stop.is_set():
                        return
                    event = json_loads(line)
                    if not isinstance(event, dict) or not isinstance(event.get("object") or {}, dict):
                        raise ValueError("not a watch event")
                    typ, obj = event.get("type"), event.get("object") or {}
                    if typ == "ERROR":
                        if obj.get("code") == 410:
                            rv = self._relist(read, transport)
                            break
                        message = str(obj.get("message") or "error event")
                        raise ClusterError(
                            "watch",
                            resource.display,
                            message,
                            obj.get("reason"),
                            obj.get("code"),
                            scope=call.scope,
                        )
                    rv = str((obj.get("metadata") or {}).get("resourceVersion") or rv)
                    if typ in ("ADDED", "MODIFIED", "DELETED"):
                        obj = {**obj, "apiVersion": obj.get("apiVersion") or version, "kind": read.kind}
                        self._events.put((str(typ), read.kind, (obj, only_wanted)))
            except BodyTooLarge as e:  # not a dropped stream: the same again on resuming
                if not self.stop.is_set():
                    self._events.put(("FAIL", read.kind, e))
                return
            except ClusterError as e:
                if e.code == 410:
                    rv = self._relist(read, transport)
                    continue
                if self.stop.is_set():
                    return
                if e.code is not None:  # an answer, not a dropped stream: 401, 403, 5xx
                    self._events.put(("FAIL", read.kind, e))
                    return
                time.sleep(0.5)  # dropped stream: resume from rv
            except ValueError:
                time.sleep(0.5)  # a garbled line: resume from rv

    def _relist(self, read: ListRead, transport: Transport) -> str:
        """The watch expired: list again and replace that read's objects."""
        assert self.source.server is not None
        resource = RESOURCES[read.kind]
        result = list_items(
            transport,
            resource,
            self.source.server.versions[read.kind],
            namespace=read.namespace,
            field_selector=read.field_selector,
            label_selector=read.label_selector,
            chunk_size=self.source.opts.chunk_size,
        )
        self._events.put(("RELIST", read.kind, (read, result.items)))
        return result.resource_version

    def _apply(self, event: tuple[str, Any, Any]) -> bool:
        typ, kind, payload = event
        if typ == "FAIL":
            self.close()
            raise payload
        store = self._store[kind]
        if typ == "RELIST":
            _, items = payload
            # The only read of its kind covers the whole store: replace it (deletions missed while
            # the watch was expired go too).  Otherwise (a node's two slice lists) add and update.
            if sum(r.kind == kind for r in self.source.reads) == 1:
                store.clear()
            store.update({_key(o): o for o in items})
            return True
        obj, only_wanted = payload
        key = _key(obj)
        if only_wanted and key[1] not in self.source.wanted_pods(self._store["ResourceClaim"].values()).get(
            key[0], set()
        ):
            return False
        if typ == "DELETED":
            return store.pop(key, None) is not None
        store[key] = obj
        return True

    def _refresh_pods(self) -> None:
        """Pods that claims newly reference are read by name; pods no longer referenced go."""
        if self.source.opts.node or "Pod" not in self.source.kinds or self._transport is None:
            return
        wanted = self.source.wanted_pods(self._store["ResourceClaim"].values())
        pods = self._store["Pod"]
        for key in [k for k in pods if k[1] not in wanted.get(k[0], set())]:
            del pods[key]
        for ns, names in wanted.items():
            for name in sorted(names - {k[1] for k in pods if k[0] == ns}):
                pod = self.source.get_pod(self._transport, ns, name)
                if pod is not None:
                    pods[(ns, name)] = pod
        self._watch_pod_namespaces()

    def _world(self) -> World:
        assert self._raw is not None and self._raw.server is not None
        raw = RawWorld(
            objects={k: list(v.values()) for k, v in self._store.items()},
            server=self._raw.server,
            feature_gates=self._raw.feature_gates,
            missing=self._raw.missing,
        )
        return build_world(
            build_objects(raw),
            kube_version=self._raw.server.minor,
            feature_gates=raw.feature_gates,
            sources=(self.source.describe(),),
            default_namespace=self.default_namespace,
            kube_patch=self._raw.server.patch,
        )
