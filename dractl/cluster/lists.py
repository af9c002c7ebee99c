"""Paginated lists, as kube-apiserver serves them: ``limit`` and ``continue``, raw JSON.

Items of a list response carry no ``kind``/``apiVersion`` (the list does); they are set on
each item here, so the model builders (and the v1beta1 → v1 conversion) see whole objects.

A list always ends.  kube-apiserver serves every page of one list from one snapshot (the
continue token carries its resourceVersion), fills each page but the last, and never sends a
token twice; a server that does otherwise is refused with a ClusterError instead of being read
forever:

- a continue token sent before (the same page again);
- more items than a page's ``remainingItemCount`` announced (the snapshot has that many);
- ``MAX_EMPTY_PAGES`` pages in a row with no item and yet a continue token;
- more than ``MAX_LIST_BYTES`` of JSON in all (transport.MAX_BODY_BYTES: more than a default
  etcd holds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dractl.cluster.jsondecode import REFUSED, fast_typed
from dractl.cluster.resources import Resource
from dractl.cluster.transport import (
    MAX_BODY_BYTES,
    BodyTooLarge,
    Call,
    Transport,
    json_loads,
    scope_of,
    size_text,
)
from dractl.errors import ClusterError

Progress = Callable[[str, int, "int | None"], None]

MAX_EMPTY_PAGES = 16
MAX_LIST_BYTES = MAX_BODY_BYTES


@dataclass
class ListResult:
    items: list[dict[str, Any]] = field(default_factory=list)
    resource_version: str = ""
    pages: int = 0
    restarts: int = 0


def list_call(resource: Resource, namespace: str | None) -> Call:
    return Call("list", resource.display, scope_of(namespace if resource.namespaced else None))


def list_items(
    transport: Transport,
    resource: Resource,
    version: str,
    *,
    namespace: str | None = None,
    field_selector: str | None = None,
    label_selector: str | None = None,
    chunk_size: int = 500,
    progress: Progress | None = None,
    convert: Callable[[dict[str, Any], int], Any] | None = None,
    lean: Callable[[bytes], Any] | None = None,
) -> ListResult:
    """Every item of the collection, page by page.  A continue token the server has expired
    (410 Gone) restarts the list from the beginning once; a second expiry is a ClusterError.
    ``convert(item, index)``: what to keep of each item instead of its JSON, made as its page
    arrives (so each page's JSON can go before the next one is read).  ``lean``: a page decoder
    (:func:`dractl.cluster.pages.lean_decoder`) whose value is the page without the fields no
    one reads; a page it refuses is decoded whole."""
    call = list_call(resource, namespace)
    path = resource.path(version, namespace)
    api_version = f"{resource.group}/{version}" if resource.group else version
    result = ListResult()
    token = ""
    tokens: set[str] = set()  # every continue token of this read, to refuse a list that loops
    read = 0  # bytes of every page so far
    announced: int | None = None  # items in the list, as the first remainingItemCount said
    empty = 0  # pages in a row with no item that still went on

    def refuse(why: str) -> ClusterError:
        return ClusterError("list", resource.display, why, scope=call.scope)

    while True:
        query = [("limit", str(chunk_size))] if chunk_size else []
        if token:
            query.append(("continue", token))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if label_selector:
            query.append(("labelSelector", label_selector))
        too_large = f"the server's list is larger than {size_text(MAX_LIST_BYTES)} (read no further)"
        if read >= MAX_LIST_BYTES:
            raise refuse(too_large)
        allow = frozenset({410}) if token else frozenset()
        try:
            reply = transport.get(path, query, call, allow=allow, max_bytes=MAX_LIST_BYTES - read)
        except BodyTooLarge:
            raise refuse(too_large) from None
        read += len(reply.body)
        if reply.status == 410:
            if result.restarts:
                raise ClusterError(
                    "list",
                    resource.display,
                    "the list changed too fast to read consistently (continue token expired twice: 410 Gone)",
                    "Expired",
                    410,
                    scope=call.scope,
                )
            result = ListResult(restarts=1)
            token = ""
            tokens.clear()
            announced, empty = None, 0
            continue
        page = _decode(reply.body, call, lean)
        items = page.get("items") or []
        if not isinstance(items, list):
            raise ClusterError(
                "list", resource.display, "the server's list has no items array", scope=call.scope
            )
        kept = result.items
        items_on_page = len(items)
        for item in items:
            if isinstance(item, dict):
                # the resource listed says what the items are (an item's own kind cannot override
                # it); set in place (the decoded page is ours): the same dict a copy would be
                item["apiVersion"] = api_version
                item["kind"] = resource.kind
                kept.append(item if convert is None else convert(item, len(kept)))
        meta: dict[str, Any] = page["metadata"] if isinstance(page.get("metadata"), dict) else {}
        del page, items  # with ``convert``: nothing of this page's JSON is kept past here
        result.pages += 1
        result.resource_version = str(meta.get("resourceVersion") or result.resource_version)
        token = str(meta.get("continue") or "")
        if token in tokens:  # a hostile or broken server: the same page again, forever
            raise refuse("the server's list never ends (it sent a continue token it had sent before)")
        tokens.add(token)
        remaining = meta.get("remainingItemCount")
        total = (
            len(result.items) + remaining
            if isinstance(remaining, int) and not isinstance(remaining, bool) and remaining >= 0
            else None
        )
        if announced is None and token:
            announced = total
        if announced is not None and len(result.items) > announced:
            raise refuse(
                f"the server's list never ends (it sent {len(result.items)} items after announcing "
                f"{announced} in all: remainingItemCount)"
            )
        empty = empty + 1 if token and not items_on_page else 0
        if empty >= MAX_EMPTY_PAGES:
            raise refuse(f"the server's list never ends ({empty} pages in a row with no item went on)")
        if progress is not None:
            progress(resource.plural, len(result.items), total if token else len(result.items))
        if not token:
            return result


def _decode(body: bytes, call: Call, lean: Callable[[bytes], Any] | None = None) -> dict[str, Any]:
    if lean is not None:
        page = fast_typed(body, lean)
        if page is not REFUSED:
            return page  # its schema: an object (a dict)
    try:
        page = json_loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ClusterError(
            call.verb,
            call.resource,
            f"the server sent a response that is not JSON ({len(body)} bytes)",
            scope=call.scope,
        ) from None
    if not isinstance(page, dict):
        raise ClusterError(
            call.verb, call.resource, "the server sent a list that is not an object", scope=call.scope
        )
    return page
