"""Paginated lists, as kube-apiserver serves them: ``limit`` and ``continue``, raw JSON.

Items of a list response carry no ``kind``/``apiVersion`` (the list does); they are set on
each item here, so the model builders (and the v1beta1 → v1 conversion) see whole objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dractl.cluster.resources import Resource
from dractl.cluster.transport import Call, Transport, json_loads, scope_of
from dractl.errors import ClusterError

Progress = Callable[[str, int, "int | None"], None]


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
) -> ListResult:
    """Every item of the collection, page by page.  A continue token the server has expired
    (410 Gone) restarts the list from the beginning once; a second expiry is a ClusterError.
    ``convert(item, index)``: what to keep of each item instead of its JSON, made as its page
    arrives (so each page's JSON can go before the next one is read)."""
    call = list_call(resource, namespace)
    path = resource.path(version, namespace)
    api_version = f"{resource.group}/{version}" if resource.group else version
    result = ListResult()
    token = ""
    tokens: set[str] = set()  # every continue token of this read, to refuse a list that loops
    while True:
        query = [("limit", str(chunk_size))] if chunk_size else []
        if token:
            query.append(("continue", token))
        if field_selector:
            query.append(("fieldSelector", field_selector))
        if label_selector:
            query.append(("labelSelector", label_selector))
        reply = transport.get(path, query, call, allow=frozenset({410}) if token else frozenset())
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
            continue
        page = _decode(reply.body, call)
        items = page.get("items") or []
        if not isinstance(items, list):
            raise ClusterError(
                "list", resource.display, "the server's list has no items array", scope=call.scope
            )
        kept = result.items
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
            raise ClusterError(
                "list",
                resource.display,
                "the server's list never ends (it sent a continue token it had sent before)",
                scope=call.scope,
            )
        tokens.add(token)
        if progress is not None:
            remaining = meta.get("remainingItemCount")
            total = len(result.items) + remaining if isinstance(remaining, int) else None
            progress(resource.plural, len(result.items), total if token else len(result.items))
        if not token:
            return result


def _decode(body: bytes, call: Call) -> dict[str, Any]:
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
