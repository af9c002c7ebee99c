"""GET requests to the API server: raw bytes, retries within the timeout, errors as data.

Every request goes through the ``kubernetes`` client's ``ApiClient`` (so authentication —
tokens, client certificates, exec and OIDC plugins and their refresh — is the client's own)
but never through its typed models: responses are read as bytes with the content not
preloaded and decoded by the caller (a list of 40,000 devices is too slow through the models
and is not the model dractl reasons with).

Only GET exists here: dractl never writes to a cluster (tests/cluster/test_read_only.py).
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from dractl.cluster.jsondecode import REFUSED, fast
from dractl.cluster.kubeconfig import Connection
from dractl.errors import ClusterError

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_ATTEMPTS = 6
BACKOFF_BASE = 0.2  # seconds, doubled per attempt, with jitter; Retry-After wins when sent
BACKOFF_CAP = 5.0
# Without --request-timeout: a connection must open within CONNECT_TIMEOUT and a response
# make progress within READ_TIMEOUT (a stalled server fails rather than hangs).
CONNECT_TIMEOUT = 30.0
READ_TIMEOUT = 120.0
# ... and its body must be whole within BODY_TIMEOUT (a server that sends a byte now and then
# makes progress forever; --request-timeout, when given, bounds the body instead).
BODY_TIMEOUT = 600.0
# The most one response body may hold.  kube-apiserver refuses objects over 3 MiB and serves
# lists in pages (--chunk-size, 500 objects by default); a default etcd holds 2 GiB in all
# (--quota-backend-bytes).  A body past this is not a real cluster's: a hostile or broken
# server that streams forever is cut off here instead of filling memory.
MAX_BODY_BYTES = 2 << 30
# ... and of one object or discovery document (kube-apiserver takes request bodies of 3 MiB at
# most; its JSON for an object is a few times that at worst).
MAX_OBJECT_BYTES = 64 << 20
_READ_CHUNK = 1 << 20

Query = Sequence[tuple[str, str]]


def scope_of(namespace: str | None) -> str:
    """Where a call looks, worded as the API server words it."""
    return f'in the namespace "{namespace}"' if namespace else "at the cluster scope"


@dataclass(frozen=True)
class Call:
    """What a request is, for errors: ``list resourceslices.resource.k8s.io at the cluster scope``."""

    verb: str
    resource: str
    scope: str


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]


class Transport:
    """One connection to one API server.  ``timeout`` (seconds) bounds each call including
    its retries; ``sleep`` and ``clock`` are injectable for tests."""

    def __init__(
        self,
        conn: Connection,
        timeout: float | None = None,
        *,
        backoff: float | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from dractl.cluster.client import load

        self.conn = conn
        self.timeout = timeout
        self.backoff = BACKOFF_BASE if backoff is None else backoff
        self.max_attempts = max_attempts
        self._sleep = sleep
        self._clock = clock
        self._api = load().ApiClient(conn.configuration)
        self.requests = 0  # counted, for tests and the benchmark

    def close(self) -> None:
        self._api.rest_client.pool_manager.clear()

    def get_json(
        self,
        path: str,
        query: Query,
        call: Call,
        *,
        allow: frozenset[int] = frozenset(),
        max_bytes: int | None = None,
    ) -> Any:
        """GET ``path`` (one object or document: at most ``max_bytes``, else MAX_OBJECT_BYTES)
        and decode it; a status in ``allow`` returns the decoded Status instead of raising
        (callers handle 404 or 410 themselves)."""
        limit = MAX_OBJECT_BYTES if max_bytes is None else max_bytes
        reply = self.get(path, query, call, allow=allow, max_bytes=limit)
        try:
            return json_loads(reply.body)
        except (ValueError, UnicodeDecodeError):
            raise ClusterError(
                call.verb,
                call.resource,
                f"the server sent a response that is not JSON (HTTP {reply.status}, {len(reply.body)} bytes)",
                scope=call.scope,
            ) from None

    def get(
        self,
        path: str,
        query: Query,
        call: Call,
        *,
        allow: frozenset[int] = frozenset(),
        max_bytes: int = MAX_BODY_BYTES,
    ) -> Reply:
        """GET with retries: 429/5xx and dropped connections are retried with exponential
        backoff until ``timeout`` runs out or ``max_attempts`` are used; other errors raise
        ClusterError at once (401/403 worded as denials).  A body longer than ``max_bytes`` is
        a ClusterError (read no further); the timeout covers reading the body too."""
        deadline = None if self.timeout is None else self._clock() + self.timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = self._once(path, query, deadline, max_bytes)
            except _TooLarge as e:
                raise BodyTooLarge(
                    call.verb,
                    call.resource,
                    f"the server's response is larger than {size_text(e.limit)} (read no further)",
                    scope=call.scope,
                ) from None
            except _Transient as e:
                self._wait_or_fail(call, attempt, deadline, str(e), None)
                continue
            if reply.status < 400 or reply.status in allow:
                return reply
            if reply.status in RETRY_STATUS:
                self._wait_or_fail(call, attempt, deadline, status_text(reply), _retry_after(reply))
                continue
            raise status_error(reply, call, self.conn)

    def stream_lines(
        self, path: str, query: Query, call: Call, *, max_line: int | None = None
    ) -> Iterator[bytes]:
        """GET a streaming response (a watch) and yield its lines; the timeout is not applied
        to the stream's length, only to connecting.  A line longer than ``max_line`` (one event
        the server never finishes) is a ClusterError."""
        max_line = MAX_BODY_BYTES if max_line is None else max_line
        resp = self._open_stream(path, query)
        if isinstance(resp, Exception):
            raise self._dropped(call, resp)
        if resp.status >= 400:
            raise status_error(Reply(resp.status, resp.read() or b"", dict(resp.headers)), call, self.conn)
        raw = resp.response
        buffer = b""
        try:
            for chunk in raw.stream(65536, decode_content=True):
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                yield from (line for line in lines if line.strip())
                if len(buffer) > max_line:  # one event that never ends
                    raise BodyTooLarge(
                        call.verb,
                        call.resource,
                        f"the server sent a watch event larger than {size_text(max_line)} (read no further)",
                        scope=call.scope,
                    )
        except BodyTooLarge:
            raise
        except Exception as e:
            raise self._dropped(call, e) from None
        finally:
            raw.release_conn()
        if buffer.strip():
            yield buffer

    def _open_stream(self, path: str, query: Query) -> Any:
        """The streaming response, or the exception (never raised here: see :meth:`_request`)."""
        try:
            method, url, headers, _, _ = self._api.param_serialize(
                "GET",
                path,
                query_params=list(query),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
            )
            return self._api.call_api(
                method, url, header_params=headers, _request_timeout=(CONNECT_TIMEOUT, READ_TIMEOUT)
            )
        except Exception as e:
            e.__traceback__ = None
            return e

    def _dropped(self, call: Call, error: BaseException) -> ClusterError:
        return ClusterError(call.verb, call.resource, _connection_text(error, self.conn), scope=call.scope)

    def _once(self, path: str, query: Query, deadline: float | None, max_bytes: int) -> Reply:
        if deadline is None:
            timeout: Any = (CONNECT_TIMEOUT, READ_TIMEOUT)
        else:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise _Transient("timed out")
            timeout = remaining
        self.requests += 1
        outcome = self._request(path, query, timeout, deadline, max_bytes)
        if isinstance(outcome, Reply):
            return outcome
        if isinstance(outcome, _TooLarge | _Transient):
            raise outcome
        import urllib3

        if isinstance(outcome, urllib3.exceptions.HTTPError | OSError):
            raise _Transient(_connection_text(outcome, self.conn))
        if getattr(outcome, "status", None) == 0:  # the client wraps TLS failures in ApiException(status=0)
            raise ClusterError("connect", f"to {self.conn.server}", _tls_text(outcome))
        raise ClusterError("get", path, f"the Kubernetes client failed: {type(outcome).__name__}")

    def _request(
        self, path: str, query: Query, timeout: Any, deadline: float | None, max_bytes: int
    ) -> Reply | Exception:
        """One GET.  Never raises: the request's headers hold the credentials, and this frame
        must not be in any traceback (``--debug`` shows tracebacks with their locals).  The
        body is read in chunks, at most ``max_bytes`` of it, and not past ``deadline``."""
        try:
            method, url, headers, _, _ = self._api.param_serialize(
                "GET",
                path,
                query_params=list(query),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
            )
            resp = self._api.call_api(method, url, header_params=headers, _request_timeout=timeout)
            body = self._read_body(resp.response, deadline, max_bytes)
            if isinstance(body, Exception):
                return body
            return Reply(resp.status, body, {k.lower(): v for k, v in resp.headers.items()})
        except Exception as e:
            e.__traceback__ = None
            return e

    def _read_body(self, raw: Any, deadline: float | None, max_bytes: int) -> bytes | Exception:
        """The body of ``raw`` (a urllib3 response not preloaded), or _TooLarge past
        ``max_bytes``, or _Transient when ``deadline`` (else BODY_TIMEOUT) passes while it is
        still coming: a server that sends a byte now and then never trips the socket's own read
        timeout, so the watchdog shuts the connection down (urllib3's ``shutdown()``, made to unblock
        a read from another thread)."""
        left = (deadline - self._clock()) if deadline is not None else BODY_TIMEOUT
        if left <= 0:
            raw.release_conn()
            return _Transient("timed out")
        shutdown = getattr(raw, "shutdown", None)  # urllib3 >= 2.3
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            if shutdown is not None:
                shutdown()

        alarm = WATCHDOG.call_after(left, expire)
        # with shutdown(): whole chunks (fewer calls); without: what has arrived, checked
        # against the alarm after each piece
        read = raw.read if shutdown is not None else (getattr(raw, "read1", None) or raw.read)
        chunks: list[bytes] = []
        size = 0
        try:
            while not expired.is_set():
                chunk = read(_READ_CHUNK)
                if not chunk:
                    return b"".join(chunks)
                size += len(chunk)
                if size > max_bytes:
                    return _TooLarge(max_bytes)
                chunks.append(chunk)
            return _Transient("timed out while reading the response")
        except Exception as e:
            if expired.is_set():
                return _Transient("timed out while reading the response")
            e.__traceback__ = None
            return e
        finally:
            WATCHDOG.cancel(alarm)
            raw.release_conn()

    def _wait_or_fail(
        self, call: Call, attempt: int, deadline: float | None, why: str, retry_after: float | None
    ) -> None:
        delay = (
            retry_after
            if retry_after is not None
            else min(BACKOFF_CAP, self.backoff * (2 ** (attempt - 1)) * (0.75 + random.random() / 2))
        )
        now = self._clock()
        out_of_time = deadline is not None and now + delay >= deadline
        if attempt >= self.max_attempts or out_of_time:
            spent = f" within --request-timeout {self.timeout:g}s" if out_of_time and self.timeout else ""
            raise ClusterError(
                call.verb,
                call.resource,
                f"{why}; gave up after {attempt} attempt{'s' if attempt != 1 else ''}{spent}",
                scope=call.scope,
            )
        self._sleep(delay)


class Watchdog:
    """Calls each action given to :meth:`call_after` when its time comes, unless cancelled before,
    from one daemon thread started on first use: a ``threading.Timer`` per request started a
    thread, and waited for it to start, for each of the 118 pages of a 5,000-node read (a
    quarter of a second of wall time on a busy machine)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: dict[int, tuple[float, Callable[[], None]]] = {}  # id -> (due, action)
        self._next = 0
        self._thread: threading.Thread | None = None

    def call_after(self, seconds: float, action: Callable[[], None]) -> int:
        """Call ``action`` in ``seconds`` (the watchdog's thread); returns its id for :meth:`cancel`."""
        with self._cond:
            self._next += 1
            self._pending[self._next] = (time.monotonic() + seconds, action)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="dractl-watchdog", daemon=True)
                self._thread.start()
            self._cond.notify()
            return self._next

    def cancel(self, alarm: int) -> None:
        """The action of ``alarm`` is not called (a no-op once it has been)."""
        with self._cond:
            self._pending.pop(alarm, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                if not self._pending:
                    self._cond.wait()
                    continue
                alarm, (due, action) = min(self._pending.items(), key=lambda kv: kv[1][0])
                left = due - time.monotonic()
                if left > 0:
                    self._cond.wait(left)  # woken sooner by a new alarm
                    continue
                del self._pending[alarm]
                self._cond.release()
                try:
                    action()
                except Exception:  # the connection is gone already: nothing left to stop
                    pass
                finally:
                    self._cond.acquire()

    def _forget(self) -> None:
        """In a forked child: no alarms and no thread yet (the parent's thread is not there, and
        its lock may have been held at the fork)."""
        self._cond = threading.Condition()
        self._pending = {}
        self._thread = None


WATCHDOG = Watchdog()
if hasattr(os, "register_at_fork"):  # a forked child starts its own watchdog when it needs one
    os.register_at_fork(after_in_child=WATCHDOG._forget)


class _Transient(Exception):
    """A failure worth retrying: a dropped or reset connection, a read timeout."""


class BodyTooLarge(ClusterError):
    """A response body longer than the caller allowed (``get(max_bytes=…)``)."""


class _TooLarge(Exception):
    """A response body longer than the caller allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def size_text(n: int) -> str:
    """``2 GiB``, ``512 MiB``, ``300 bytes``: a byte count as people read it."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def _retry_after(reply: Reply) -> float | None:
    value = reply.headers.get("retry-after")
    try:
        return max(0.0, min(float(value), BACKOFF_CAP)) if value is not None else None
    except ValueError:
        return None


def json_loads(body: bytes | str) -> Any:
    """``json.loads`` (msgspec's where it is the same: :mod:`dractl.cluster.jsondecode`); a body nested
    too deeply for the decoder (a hostile server) is a ValueError like any other body that is not
    JSON, never a RecursionError."""
    try:
        value = fast(body)
        return json.loads(body) if value is REFUSED else value
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def decode_status(body: bytes) -> dict[str, Any]:
    """The Status object of an error response ({} when the body is not one)."""
    try:
        doc = json_loads(body)
    except (ValueError, UnicodeDecodeError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("kind") == "Status" else {}


def status_text(reply: Reply) -> str:
    """``the server is overloaded (TooManyRequests, HTTP 429)`` from a Status, safely one line."""
    status = decode_status(reply.body)
    message = " ".join(str(status.get("message") or "").split())[:300]
    reason = status.get("reason") or ""
    inner = f"{reason}, HTTP {reply.status}" if reason else f"HTTP {reply.status}"
    return f"{message} ({inner})" if message else inner


def status_error(reply: Reply, call: Call, conn: Connection) -> ClusterError:
    """The ClusterError for a failed response."""
    status = decode_status(reply.body)
    reason = str(status.get("reason") or "") or None
    if reply.status == 401:
        who = f"context {conn.context}" if conn.context else "the pod's service account"
        return ClusterError(
            call.verb,
            call.resource,
            f"unauthorized (the server rejected the credentials of {who})",
            reason or "Unauthorized",
            401,
            scope=call.scope,
            denied=True,
        )
    if reply.status == 403:
        return ClusterError(
            call.verb, call.resource, "forbidden", reason or "Forbidden", 403, scope=call.scope, denied=True
        )
    if reply.status == 404:
        return ClusterError(
            call.verb,
            call.resource,
            "not found: the server does not serve it",
            reason or "NotFound",
            404,
            scope=call.scope,
        )
    return ClusterError(call.verb, call.resource, status_text(reply), reason, reply.status, scope=call.scope)


def _connection_text(error: BaseException, conn: Connection) -> str:
    name = type(error).__name__
    detail = " ".join(str(error).split())
    if "Read timed out" in detail or "ReadTimeout" in name:
        return f"no response from {conn.server} (read timed out)"
    if "refused" in detail.lower():
        return f"cannot connect to {conn.server}: connection refused"
    return f"connection to {conn.server} failed ({name})"


def _tls_text(error: BaseException) -> str:
    text = " ".join(str(getattr(error, "reason", "") or error).split())
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "TLS: the server's certificate is not trusted (certificate verify failed)"
    return f"TLS: {text[:200]}"
