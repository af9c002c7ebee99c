"""A Kubernetes API server stand-in on 127.0.0.1, over HTTPS, for the paths dractl reads.

It speaks the wire protocol as kube-apiserver does, so that both the ``kubernetes`` Python
client (through a generated kubeconfig: the same code path as a real cluster) and the real
``kubectl`` work against it unchanged:

* discovery: ``/version``, ``/api``, ``/api/v1``, ``/apis``, ``/apis/resource.k8s.io[/VERSION]``
  (legacy documents; kubectl falls back to them when aggregated discovery isn't offered);
* lists and gets of the served kinds, cluster-scoped and namespaced, with ``limit`` and
  ``continue`` (opaque base64 tokens), ``metadata.resourceVersion`` and
  ``remainingItemCount``, ``fieldSelector`` (the fields the real server supports per kind;
  others are 400 as there) and ``labelSelector`` (equality and set-based);
* list items without ``kind``/``apiVersion`` (as the real server sends them);
* ``Status`` objects for 400/401/403/404/410/429/500; bearer-token authentication and a
  per-token authorization policy (RBAC-like: verb, resource, namespace);
* faults on demand: a status for the next N matching requests, slow responses, dropped
  connections, truncated bodies, expired continue tokens;
* watches (``?watch=1``): newline-delimited ``{"type", "object"}`` events after the given
  ``resourceVersion``, streamed with chunked encoding.

Every request is recorded (method, path, query; never the Authorization header) so tests can
assert what was and wasn't asked, e.g. that no pod list ever ran cluster-wide.

Run as a separate process for benchmarks: ``python loopback_api.py serve --state FILE.json``.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

DRA = "resource.k8s.io"

# kind -> (group, plural, namespaced, selectable fields beyond metadata.name/namespace)
KINDS: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {
    "DeviceClass": (DRA, "deviceclasses", False, ()),
    "ResourceSlice": (DRA, "resourceslices", False, ("spec.nodeName", "spec.driver", "spec.pool.name")),
    "ResourceClaim": (DRA, "resourceclaims", True, ()),
    "ResourceClaimTemplate": (DRA, "resourceclaimtemplates", True, ()),
    "DeviceTaintRule": (DRA, "devicetaintrules", False, ()),
    "Node": ("", "nodes", False, ("spec.unschedulable",)),
    "Pod": (
        "",
        "pods",
        True,
        (
            "spec.nodeName",
            "spec.schedulerName",
            "spec.restartPolicy",
            "spec.serviceAccountName",
            "status.phase",
            "status.nominatedNodeName",
        ),
    ),
    "Namespace": ("", "namespaces", False, ("status.phase",)),
}
PLURALS = {v[1]: k for k, v in KINDS.items()}
SHORT = {"ResourceSlice": [], "Node": ["no"], "Pod": ["po"], "Namespace": ["ns"]}


def status_body(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    410: "Expired",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
}


# ----------------------------------------------------------------------------- authorization


# The resources dractl reads (deploy/rbac.yaml grants exactly these).
WORLD_RESOURCES = (
    "deviceclasses",
    "devicetaintrules",
    "nodes",
    "pods",
    "resourceclaims",
    "resourceclaimtemplates",
    "resourceslices",
)


@dataclass
class Policy:
    """Who may do what: ``rules`` are ``(verbs, resources, namespaces)`` sets, ``"*"`` for any;
    a namespaces set of ``{""}`` means cluster scope only.  Discovery is open to everyone
    authenticated (as system:discovery is)."""

    user: str
    rules: list[tuple[frozenset[str], frozenset[str], frozenset[str]]] = field(default_factory=list)

    @classmethod
    def admin(cls) -> Policy:
        return cls("admin", [(frozenset({"*"}), frozenset({"*"}), frozenset({"*"}))])

    @classmethod
    def reads_all_but(
        cls, *denied: str, user: str = "ops", verbs: frozenset[str] = frozenset({"list", "get"})
    ) -> Policy:
        """``verbs`` on every resource dractl reads, in every namespace, except ``denied``."""
        readable = frozenset(WORLD_RESOURCES) - set(denied)
        return cls(user, [(verbs, readable, frozenset({"*"}))])

    @classmethod
    def namespace_only(cls, namespace: str, user: str = "team-user") -> Policy:
        reads = frozenset({"get", "list", "watch"})
        return cls(user, [(reads, frozenset({"*"}), frozenset({namespace}))])

    def allows(self, verb: str, resource: str, namespace: str) -> bool:
        for verbs, resources, namespaces in self.rules:
            if (
                ("*" in verbs or verb in verbs)
                and ("*" in resources or resource in resources)
                and ("*" in namespaces or namespace in namespaces)
            ):
                return True
        return False


# ----------------------------------------------------------------------------- selectors


def parse_field_selector(text: str, kind: str) -> list[tuple[str, str, str]]:
    """``[(field, op, value)]``; ValueError (400 upstream) for fields the server doesn't index."""
    allowed = {"metadata.name", "metadata.namespace", *KINDS[kind][3]}
    out = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        m = re.match(r"^([A-Za-z0-9_.]+)\s*(==|!=|=)\s*(.*)$", term)
        if not m:
            raise ValueError(f"invalid field selector: {term!r}")
        name, op, value = m.group(1), m.group(2), m.group(3)
        if name not in allowed:
            raise ValueError(f"field label not supported: {name}")
        out.append((name, "!=" if op == "!=" else "=", value))
    return out


def field_value(obj: dict[str, Any], path: str) -> str:
    cur: Any = obj
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return "" if cur is None else str(cur)


def _split_terms(text: str) -> list[str]:
    terms, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append(cur)
            cur = ""
        else:
            cur += ch
    terms.append(cur)
    return [t.strip() for t in terms if t.strip()]


_KEY = r"[A-Za-z0-9][-A-Za-z0-9_./]*"


def parse_label_selector(text: str) -> list[Callable[[dict[str, str]], bool]]:
    preds: list[Callable[[dict[str, str]], bool]] = []
    for term in _split_terms(text):
        if m := re.fullmatch(rf"({_KEY})\s+(in|notin)\s+\(([^)]*)\)", term):
            key, op, values = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
            if op == "in":
                preds.append(lambda lb, k=key, vs=values: lb.get(k) in vs)
            else:
                preds.append(lambda lb, k=key, vs=values: lb.get(k) not in vs)
        elif m := re.fullmatch(rf"({_KEY})\s*(==|!=|=)\s*([-A-Za-z0-9_.]*)", term):
            key, op, value = m.group(1), m.group(2), m.group(3)
            if op == "!=":
                preds.append(lambda lb, k=key, v=value: lb.get(k) != v)
            else:
                preds.append(lambda lb, k=key, v=value: lb.get(k) == v)
        elif m := re.fullmatch(rf"!\s*({_KEY})", term):
            preds.append(lambda lb, k=m.group(1): k not in lb)
        elif re.fullmatch(_KEY, term):
            preds.append(lambda lb, k=term: k in lb)
        else:
            raise ValueError(f"unable to parse requirement: {term!r}")
    return preds


# ----------------------------------------------------------------------------- state


@dataclass
class Fault:
    """Applied to the next ``times`` requests whose path matches ``path`` (a regex) and whose
    query has every key of ``query_has``: answer ``status``, or ``drop`` the connection,
    ``truncate`` the body, or ``delay`` seconds first; ``body``: answer 200 with these bytes
    (a hostile or malformed response, for the fuzz harness), or ``body(n)``: a fresh body for
    the n-th time (0, 1, …) the fault is served; ``drip``: answer 200 with a body that never
    ends, a few bytes every ``drip`` seconds (for at most 20 s, then the connection closes)."""

    path: str
    status: int | None = None
    times: int = 1
    drop: bool = False
    truncate: bool = False
    delay: float = 0.0
    query_has: tuple[str, ...] = ()
    retry_after: int | None = None
    message: str | None = None
    body: bytes | Callable[[int], bytes] | None = None
    drip: float = 0.0
    served: int = 0

    def matches(self, path: str, query: dict[str, str]) -> bool:
        return (
            self.times > 0
            and re.search(self.path, path) is not None
            and all(k in query for k in self.query_has)
        )


class State:
    """The objects the server holds, keyed by kind and ``(namespace, name)``, with a global
    resourceVersion and an event log for watches."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.objects: dict[str, dict[tuple[str, str], dict[str, Any]]] = {k: {} for k in KINDS}
        self.rv = 1000
        self.compacted_rv = 0  # watches from an older resourceVersion get 410 Gone
        # (rv, type, kind, object, previous version or None)
        self.events: list[tuple[int, str, str, dict[str, Any], dict[str, Any] | None]] = []

    def add(self, obj: dict[str, Any], event: str | None = None) -> None:
        kind = obj["kind"]
        meta = obj.setdefault("metadata", {})
        with self.lock:
            self.rv += 1
            meta["resourceVersion"] = str(self.rv)
            namespaced = KINDS[kind][2]
            if namespaced:
                meta.setdefault("namespace", "default")
            meta.setdefault("uid", f"uid-{kind.lower()}-{meta.get('namespace', '')}-{meta['name']}")
            meta.setdefault("creationTimestamp", "2026-11-30T12:00:00Z")
            key = (meta["namespace"] if namespaced else "", meta["name"])
            old = self.objects[kind].get(key)
            typ = event or ("MODIFIED" if old is not None else "ADDED")
            self.objects[kind][key] = obj
            self.events.append((self.rv, typ, kind, obj, old))
            self.lock.notify_all()

    def delete(self, kind: str, namespace: str, name: str) -> None:
        with self.lock:
            obj = self.objects[kind].pop((namespace if KINDS[kind][2] else "", name))
            self.rv += 1
            obj = json.loads(json.dumps(obj))
            obj["metadata"]["resourceVersion"] = str(self.rv)
            self.events.append((self.rv, "DELETED", kind, obj, None))
            self.lock.notify_all()

    def load(self, objects: Iterable[dict[str, Any]]) -> None:
        for obj in objects:
            if obj.get("kind") in KINDS:
                self.add(json.loads(json.dumps(obj)))
        namespaced = ("ResourceClaim", "Pod", "ResourceClaimTemplate")
        for ns in sorted({o["metadata"]["namespace"] for k in namespaced for o in self.objects[k].values()}):
            if ("", ns) not in self.objects["Namespace"]:
                self.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    user: str | None
    status: int = 0


class LoopbackApiServer:
    """Start with :meth:`start` (a thread; port 0 picks a free port), stop with :meth:`stop`.

    ``dra_versions`` are the resource.k8s.io versions served (``[]``: DRA not served);
    ``git_version`` is what ``/version`` says.  ``tokens`` maps bearer tokens to a Policy.
    """

    def __init__(
        self,
        certs: Any,
        *,
        git_version: str = "v1.37.1",
        dra_versions: Iterable[str] = ("v1",),
        taint_rule_versions: Iterable[str] | None = None,
    ) -> None:
        self.certs = certs
        self.state = State()
        self.git_version = git_version
        self.dra_versions = list(dra_versions)
        self.taint_rule_versions = list(
            self.dra_versions if taint_rule_versions is None else taint_rule_versions
        )
        self.tokens: dict[str, Policy] = {}
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        self.page_cache: dict[tuple[Any, ...], bytes] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.stream_generation = 0

    # -- control
    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"https://127.0.0.1:{self._httpd.server_address[1]}"

    def add_token(self, token: str, policy: Policy) -> None:
        self.tokens[token] = policy

    def fail(self, path: str, status: int | None = None, **kw: Any) -> Fault:
        fault = Fault(path, status, **kw)
        self.faults.append(fault)
        return fault

    def start(self, port: int = 0) -> LoopbackApiServer:
        server = self

        class Handler(_Handler):
            api = server

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(self.certs.server_cert), str(self.certs.server_key))
        httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        httpd.daemon_threads = True
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop_streams(self) -> None:
        """End every open watch now (clients see the stream end and resume)."""
        self.stream_generation += 1
        with self.state.lock:
            self.state.lock.notify_all()

    def stop(self) -> None:
        self.stopping.set()
        with self.state.lock:
            self.state.lock.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def kubeconfig(
        self,
        path: Path,
        token: str,
        *,
        context: str = "loopback",
        namespace: str | None = None,
        extra_contexts: Iterable[tuple[str, str]] = (),
    ) -> Path:
        """Write a kubeconfig for ``token`` (its CA is the test's throw-away CA)."""
        ctx: dict[str, Any] = {"cluster": "loopback", "user": "loopback-user"}
        if namespace:
            ctx["namespace"] = namespace
        contexts = [{"name": context, "context": ctx}]
        contexts += [
            {"name": n, "context": {"cluster": "loopback", "user": "loopback-user", "namespace": ns}}
            for n, ns in extra_contexts
        ]
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": context,
            "clusters": [
                {
                    "name": "loopback",
                    "cluster": {"server": self.url, "certificate-authority": str(self.certs.ca_cert)},
                }
            ],
            "users": [{"name": "loopback-user", "user": {"token": token}}],
            "contexts": contexts,
        }
        path.write_text(json.dumps(doc, indent=1))
        return path

    # -- what the handler needs
    def served(self, group: str, version: str) -> list[str]:
        """Kinds served under ``group/version``."""
        if group == "":
            return ["Node", "Pod", "Namespace"] if version == "v1" else []
        if group != DRA or version not in self.dra_versions:
            return []
        kinds = ["DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"]
        if version in self.taint_rule_versions:
            kinds.append("DeviceTaintRule")
        return kinds


class _Handler(BaseHTTPRequestHandler):
    api: LoopbackApiServer
    protocol_version = "HTTP/1.1"
    server_version = "loopback-kube-apiserver"

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK stall every response by ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # -- plumbing
    def _send(
        self,
        code: int,
        body: Any,
        *,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        truncate: bool = False,
    ) -> None:
        data = raw if raw is not None else json.dumps(body, separators=(",", ":")).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Audit-Id", "loopback")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if truncate:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(data)

    def _drip(self, every: float) -> None:
        """Headers announcing a gigabyte, then a few bytes of JSON white space now and then."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        stop = time.monotonic() + 20.0
        try:
            while time.monotonic() < stop:
                self.wfile.write(b"    ")
                self.wfile.flush()
                time.sleep(every)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass
        self.close_connection = True

    def _status(
        self,
        code: int,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._record.status = code
        self._send(code, status_body(code, REASONS.get(code, "Unknown"), message, details), headers=headers)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth[:7].lower() == "bearer " else None
        policy = self.api.tokens.get(token or "")
        self._record = Request("GET", parts.path, query, policy.user if policy else None)
        self.api.requests.append(self._record)
        for fault in self.api.faults:
            if fault.matches(parts.path, query):
                fault.times -= 1
                if fault.delay:
                    time.sleep(fault.delay)
                if fault.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                fault.served += 1
                if fault.drip:
                    self._record.status = 200
                    self._drip(fault.drip)
                    return
                if fault.body is not None:
                    self._record.status = 200
                    raw = fault.body(fault.served - 1) if callable(fault.body) else fault.body
                    self._send(200, None, raw=raw)
                    return
                if fault.status:
                    hdr = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else None
                    self._status(fault.status, fault.message or f"injected {fault.status}", headers=hdr)
                    return
                if fault.truncate:
                    self._truncate_next = True
                break
        if policy is None:
            self._status(401, "Unauthorized")
            return
        try:
            self._route(parts.path, query, policy)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def do_POST(self) -> None:  # dractl must never write; tests assert none arrives
        self.api.requests.append(Request(self.command, urlsplit(self.path).path, {}, None, 405))
        self._send(405, status_body(405, "MethodNotAllowed", "the loopback server is read-only"))

    do_PUT = do_PATCH = do_DELETE = do_POST

    # -- routing
    def _route(self, path: str, query: dict[str, str], policy: Policy) -> None:
        api = self.api
        if path == "/version":
            minor = api.git_version.lstrip("v").split(".")[1]
            self._ok(
                {
                    "major": "1",
                    "minor": minor,
                    "gitVersion": api.git_version,
                    "platform": "linux/amd64",
                    "goVersion": "go1.25.0",
                    "compiler": "gc",
                    "gitCommit": "0" * 40,
                    "gitTreeState": "clean",
                    "buildDate": "2026-01-01T00:00:00Z",
                }
            )
            return
        if path == "/api":
            self._ok(
                {
                    "kind": "APIVersions",
                    "versions": ["v1"],
                    "serverAddressByClientCIDRs": [
                        {"clientCIDR": "0.0.0.0/0", "serverAddress": api.url.removeprefix("https://")}
                    ],
                }
            )
            return
        if path == "/apis":
            groups = [self._group_doc()] if api.dra_versions else []
            self._ok({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
            return
        if path == f"/apis/{DRA}":
            if not api.dra_versions:
                self._status(404, "the server could not find the requested resource")
                return
            self._ok(self._group_doc())
            return
        m = re.fullmatch(r"/api/(v1)|/apis/([^/]+)/([^/]+)", path)
        if m:
            group, version = ("", "v1") if m.group(1) else (m.group(2), m.group(3))
            kinds = api.served(group, version)
            if not kinds:
                self._status(404, "the server could not find the requested resource")
                return
            self._ok(self._resource_list(group, version, kinds))
            return
        m = re.fullmatch(
            r"(?:/api/(v1)|/apis/([^/]+)/([^/]+))(?:/namespaces/([^/]+))?/([^/]+)(?:/([^/]+))?", path
        )
        if not m:
            self._status(404, "the server could not find the requested resource")
            return
        group, version = ("", "v1") if m.group(1) else (m.group(2), m.group(3))
        namespace, plural, name = m.group(4) or "", m.group(5), m.group(6)
        kind = PLURALS.get(plural)
        if kind is None or kind not in api.served(group, version) or (namespace and not KINDS[kind][2]):
            self._status(404, "the server could not find the requested resource")
            return
        verb = "get" if name else ("watch" if query.get("watch") in ("1", "true") else "list")
        if not policy.allows(verb, plural, namespace):
            gr = f"{plural}.{group}" if group else plural
            where = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
            what = f'{gr} "{name}"' if name else gr
            self._status(
                403,
                f'{what} is forbidden: User "{policy.user}" cannot {verb} resource "{plural}" '
                f'in API group "{group}" {where}',
                {"name": name or "", "group": group, "kind": plural},
            )
            return
        if name:
            obj = api.state.objects[kind].get((namespace if KINDS[kind][2] else "", name))
            if obj is None:
                gr = f"{plural}.{group}" if group else plural
                self._status(404, f'{gr} "{name}" not found', {"name": name, "group": group, "kind": plural})
                return
            self._ok({**obj, "apiVersion": f"{group}/{version}" if group else version})
            return
        if verb == "watch":
            self._watch(kind, group, version, namespace, query)
            return
        self._list(kind, group, version, namespace, query)

    def _ok(self, body: Any) -> None:
        self._record.status = 200
        truncate = getattr(self, "_truncate_next", False)
        self._truncate_next = False
        self._send(200, body, truncate=truncate)

    def _group_doc(self) -> dict[str, Any]:
        versions = [{"groupVersion": f"{DRA}/{v}", "version": v} for v in self.api.dra_versions]
        return {
            "kind": "APIGroup",
            "apiVersion": "v1",
            "name": DRA,
            "versions": versions,
            "preferredVersion": versions[0],
        }

    def _resource_list(self, group: str, version: str, kinds: list[str]) -> dict[str, Any]:
        resources = []
        for kind in kinds:
            _, plural, namespaced, _ = KINDS[kind]
            resources.append(
                {
                    "name": plural,
                    "singularName": kind.lower(),
                    "namespaced": namespaced,
                    "kind": kind,
                    "verbs": ["get", "list", "watch"],
                    "shortNames": SHORT.get(kind, []),
                    "storageVersionHash": "loopback",
                }
            )
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}

    def _matching(
        self, kind: str, namespace: str, query: dict[str, str]
    ) -> list[tuple[tuple[str, str], Any]]:
        fields = parse_field_selector(query.get("fieldSelector", ""), kind)
        labels = parse_label_selector(query.get("labelSelector", ""))
        out = []
        for key, obj in sorted(self.api.state.objects[kind].items()):
            if namespace and key[0] != namespace:
                continue
            ok = all((field_value(obj, f) == v) == (op == "=") for f, op, v in fields)
            lb = obj.get("metadata", {}).get("labels") or {}
            if ok and all(p(lb) for p in labels):
                out.append((key, obj))
        return out

    def _list(self, kind: str, group: str, version: str, namespace: str, query: dict[str, str]) -> None:
        api = self.api
        gv = f"{group}/{version}" if group else version
        # A pre-serialised page (the benchmark's server) is served before any filtering: what
        # the benchmark times is the client, not this stand-in's sorting and selecting.
        cache_key = (kind, gv, namespace, tuple(sorted(query.items())), api.state.rv)
        cached = api.page_cache.get(cache_key)
        if cached is not None:
            self._record.status = 200
            self._send(200, None, raw=cached)
            return
        try:
            with api.state.lock:
                rv = api.state.rv
                matching = self._matching(kind, namespace, query)
        except ValueError as e:
            self._status(400, str(e))
            return
        start: list[str] = []
        token = query.get("continue", "")
        if token:
            try:
                decoded = json.loads(base64.urlsafe_b64decode(token.encode()))
                start, rv = list(decoded["start"]), int(decoded["rv"])
            except (ValueError, KeyError, TypeError):
                self._status(400, "continue key is not valid: illegal base64 data")
                return
        limit = int(query.get("limit") or 0)
        remaining = [(k, o) for k, o in matching if not start or list(k) > start]
        page = remaining[:limit] if limit else remaining
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if limit and len(remaining) > limit:
            meta["continue"] = base64.urlsafe_b64encode(
                json.dumps({"rv": rv, "start": list(page[-1][0])}).encode()
            ).decode()
            if "fieldSelector" not in query and "labelSelector" not in query:
                meta["remainingItemCount"] = len(remaining) - limit
        items = []
        for _, obj in page:
            item = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
            items.append(item)
        body = {"kind": f"{kind}List", "apiVersion": gv, "metadata": meta, "items": items}
        data = json.dumps(body, separators=(",", ":")).encode()
        if getattr(api, "cache_pages", False):
            api.page_cache[cache_key] = data
        self._record.status = 200
        truncate = getattr(self, "_truncate_next", False)
        self._truncate_next = False
        self._send(200, None, raw=data, truncate=truncate)

    def _watch(self, kind: str, group: str, version: str, namespace: str, query: dict[str, str]) -> None:
        api = self.api
        try:
            fields = parse_field_selector(query.get("fieldSelector", ""), kind)
            labels = parse_label_selector(query.get("labelSelector", ""))
        except ValueError as e:
            self._status(400, str(e))
            return
        since = int(query.get("resourceVersion") or api.state.rv)
        expired = since < api.state.compacted_rv
        deadline = time.monotonic() + float(query.get("timeoutSeconds") or 30)
        self._record.status = 200
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        gv = f"{group}/{version}" if group else version

        def chunk(data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        sent = since
        try:
            if expired:  # as kube-apiserver: 200, then one ERROR event with a 410 Status
                chunk(
                    json.dumps(
                        {
                            "type": "ERROR",
                            "object": status_body(
                                410,
                                "Expired",
                                f"too old resource version: {since} ({api.state.compacted_rv})",
                            ),
                        }
                    ).encode()
                    + b"\n"
                )
                chunk(b"")
                self.close_connection = True
                return
            generation = api.stream_generation
            while (
                time.monotonic() < deadline
                and not api.stopping.is_set()
                and generation == api.stream_generation
            ):
                with api.state.lock:
                    events = [e for e in api.state.events if e[0] > sent and e[2] == kind]
                    if not events:
                        api.state.lock.wait(timeout=min(0.2, max(0.0, deadline - time.monotonic())))
                        continue

                def matches(o: dict[str, Any] | None) -> bool:
                    if o is None:
                        return False
                    meta = o.get("metadata", {})
                    return (
                        (not namespace or meta.get("namespace") == namespace)
                        and all((field_value(o, f) == v) == (op == "=") for f, op, v in fields)
                        and all(p(meta.get("labels") or {}) for p in labels)
                    )

                for rv, typ, _, obj, old in events:
                    sent = rv
                    now, before = matches(obj), matches(old)
                    if not now and not before:
                        continue
                    if typ == "MODIFIED" and before and not now:  # left the selection: DELETED, as the
                        typ = "DELETED"  # watch cache says it
                    elif typ == "MODIFIED" and now and not before:
                        typ = "ADDED"
                    chunk(json.dumps({"type": typ, "object": {**obj, "apiVersion": gv}}).encode() + b"\n")
            chunk(b"")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass
        self.close_connection = True


def serve_main(argv: list[str]) -> None:  # pragma: no cover - used by the benchmark
    """``serve --state FILE --certs DIR --port-file FILE --token TOKEN``: serve until killed."""
    import argparse

    from loopback_tls import make_certs

    p = argparse.ArgumentParser()
    p.add_argument("--state", required=True)
    p.add_argument("--certs", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--token", required=True)
    args = p.parse_args(argv)
    server = LoopbackApiServer(make_certs(Path(args.certs)))
    server.cache_pages = True  # type: ignore[attr-defined]
    server.state.load(json.loads(Path(args.state).read_text()))
    server.add_token(args.token, Policy.admin())
    server.start()
    Path(args.port_file).write_text(server.url)
    threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    import sys

    if sys.argv[1:2] == ["serve"]:
        serve_main(sys.argv[2:])
