"""lists.list_items asks for the next page while it converts the items of this one: the same
requests in the same order, one at a time, and the same errors where they always were."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from dractl.cluster.lists import list_items
from dractl.cluster.resources import RESOURCES
from dractl.cluster.transport import Reply
from dractl.errors import ClusterError

SLICES = RESOURCES["ResourceSlice"]


class PagedTransport:
    """Serves ``pages`` (item names per page) with continue tokens ``t1``, ``t2``, …; records each
    query and how many requests were in flight at once."""

    def __init__(self, pages: list[list[str]], tokens: list[str] | None = None) -> None:
        self.pages = pages
        self.tokens = tokens or [f"t{i}" for i in range(1, len(pages))] + [""]
        self.queries: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.asked = threading.Event()  # set when a request after the first has come
        self._lock = threading.Lock()

    def get(self, path: str, query: Any, call: Any, *, allow: Any = frozenset(), max_bytes: int = 0) -> Reply:
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self.queries.append(dict(query).get("continue", ""))
        try:
            index = len(self.queries) - 1
            token = dict(query).get("continue", "")
            page = 0 if not token else int(token[1:])
            body = {
                "kind": "ResourceSliceList",
                "metadata": {"continue": self.tokens[min(index, len(self.tokens) - 1)]},
                "items": [{"metadata": {"name": n}} for n in self.pages[page % len(self.pages)]],
            }
            return Reply(200, json.dumps(body).encode(), {})
        finally:
            with self._lock:
                self.in_flight -= 1
            if index >= 1:
                self.asked.set()


def test_the_same_requests_in_order_one_at_a_time() -> None:
    transport = PagedTransport([["a", "b"], ["c"], ["d", "e"]])
    result = list_items(transport, SLICES, "v1", chunk_size=2)  # type: ignore[arg-type]
    assert [i["metadata"]["name"] for i in result.items] == ["a", "b", "c", "d", "e"]
    assert transport.queries == ["", "t1", "t2"] and result.pages == 3
    assert transport.most_in_flight == 1


def test_the_next_page_is_asked_for_while_this_one_converts() -> None:
    transport = PagedTransport([["a"], ["b"]])
    seen: list[bool] = []

    def convert(item: dict[str, Any], index: int) -> str:
        if index == 0:  # page 1's item: page 2 is being asked for meanwhile
            seen.append(transport.asked.wait(10))
        return str(item["metadata"]["name"])

    result = list_items(transport, SLICES, "v1", convert=convert)  # type: ignore[arg-type]
    assert seen == [True] and result.items == ["a", "b"]


def test_a_conversion_error_comes_after_the_next_page_s_request_has_ended() -> None:
    transport = PagedTransport([["a"], ["b"], ["c"]])

    def convert(item: dict[str, Any], index: int) -> str:
        raise ClusterError("decode", "resourceslices a", "bad quantity")

    with pytest.raises(ClusterError, match="bad quantity"):
        list_items(transport, SLICES, "v1", convert=convert)  # type: ignore[arg-type]
    assert transport.in_flight == 0 and transport.queries == ["", "t1"]


def test_a_list_refused_asks_for_no_further_page() -> None:
    """A continue token sent twice: refused after the page that repeats it, and its page is
    never asked for again."""
    transport = PagedTransport([["a"], ["b"], ["c"]], tokens=["t1", "t1", "t1"])
    with pytest.raises(ClusterError, match="never ends"):
        list_items(transport, SLICES, "v1")  # type: ignore[arg-type]
    assert transport.queries == ["", "t1"]


def test_a_conversion_error_wins_over_a_refusal_of_the_same_page() -> None:
    """As before the prefetch: the items are converted before the list is refused."""
    transport = PagedTransport([["a"], ["b"]], tokens=["t1", "t1"])
    calls: list[int] = []

    def convert(item: dict[str, Any], index: int) -> str:
        calls.append(index)
        if index == 1:
            raise ClusterError("decode", "resourceslices b", "bad quantity")
        return "ok"

    with pytest.raises(ClusterError, match="bad quantity"):
        list_items(transport, SLICES, "v1", convert=convert)  # type: ignore[arg-type]
    assert calls == [0, 1] and transport.queries == ["", "t1"]


def _in_a_forked_child(body: Any) -> int:
    """``body()`` in a forked child (as scripts/fuzz.py runs dractl): its exit status, or -1 when
    it did not end within 30 s (then it is killed)."""
    import os
    import signal
    import time

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os._exit(0 if body() else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return -1


def test_a_forked_child_lists_with_its_own_prefetch_thread() -> None:
    """Found by the fuzz slice (forked children): a child forked after a list had started the
    prefetch thread waited forever for a thread it does not have."""
    list_items(PagedTransport([["a"], ["b"]]), SLICES, "v1")  # type: ignore[arg-type]

    def child() -> bool:
        result = list_items(PagedTransport([["a"], ["b"], ["c"]]), SLICES, "v1")  # type: ignore[arg-type]
        return [i["metadata"]["name"] for i in result.items] == ["a", "b", "c"]

    assert _in_a_forked_child(child) == 0


def test_a_forked_child_has_its_own_watchdog() -> None:
    from dractl.cluster.transport import WATCHDOG

    fired = threading.Event()
    WATCHDOG.call_after(0.0, fired.set)  # the parent's watchdog thread runs
    assert fired.wait(10)

    def child() -> bool:
        done = threading.Event()
        WATCHDOG.call_after(0.0, done.set)
        return done.wait(10)

    assert _in_a_forked_child(child) == 0
