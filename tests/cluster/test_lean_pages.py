"""A lean read decodes list pages without the fields no view reads (dractl.cluster.pages): the
model built from such a page is the one built from the whole page, and a page it cannot decode
exactly is decoded whole."""

from __future__ import annotations

import copy
import json
import typing
from dataclasses import replace
from typing import Any

import pytest
from conftest import demo_objects
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cluster.jsondecode import REFUSED, fast_typed
from dractl.cluster.pages import _SCHEMAS, lean_decoder
from dractl.cluster.source import claim_pods, extended_names, uses_devices
from dractl.cluster.transport import json_loads
from dractl.inventory.core import pod_health_entries, pod_phase, pod_running
from dractl.model.build import lean_pod, resource_claim, resource_slice
from dractl.model.convert import to_v1
from dractl.model.origin import Origin

KINDS = ("ResourceSlice", "ResourceClaim", "Pod")
_ORIGIN = Origin("cluster:test", 0, 0)


def _project(value: Any, schema: Any) -> Any:
    """``value`` with only what ``schema`` (the TypedDicts of dractl.cluster.pages) names."""
    if typing.is_typeddict(schema):
        hints = typing.get_type_hints(schema)
        return {k: _project(v, hints[k]) for k, v in value.items() if k in hints}
    if typing.get_origin(schema) is list:
        (item,) = typing.get_args(schema)
        return [_project(v, item) for v in value]
    return value


def _full_metadata(obj: dict[str, Any], i: int) -> None:
    """Every metadata field the builders read, and the ones no one reads (managedFields ...)."""
    meta = obj.setdefault("metadata", {})
    meta.setdefault("namespace", "team-a")
    meta.update(
        uid=f"uid-{i}",
        generateName="gen-",
        labels={"a": "b", "n": str(i)},
        annotations={"note": "x"},
        generation=3,
        resourceVersion=str(100 + i),
        creationTimestamp="2026-01-01T00:00:00Z",
        deletionTimestamp="2026-01-02T00:00:00Z" if i % 2 else None,
        ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": f"owner-{i}", "uid": "u"}],
        managedFields=[
            {
                "manager": "kube-scheduler",
                "operation": "Apply",
                "fieldsV1": {"f:status": {"f:allocation": {}}},
            }
        ],
        finalizers=["example.com/keep"],
        selfLink="/x",
    )


def _objects(kind: str) -> list[dict[str, Any]]:
    objs = [copy.deepcopy(o) for o in demo_objects() if o["kind"] == kind]
    assert objs
    for i, obj in enumerate(objs):
        _full_metadata(obj, i)
        if kind == "Pod":
            spec = obj.setdefault("spec", {})
            spec["tolerations"] = [{"key": "k", "operator": "Exists"}]
            spec["volumes"] = [{"name": "v", "emptyDir": {}}]
            spec["initContainers"] = [
                {"name": "init", "image": "busybox", "resources": {"limits": {"example.com/gpu": "1"}}}
            ]
            for c in spec.get("containers") or []:
                c.update(image="nvcr.io/x:1", args=["a", "b"], env=[{"name": "E", "value": "1"}])
            status = obj.setdefault("status", {})
            status.update(hostIP="10.0.0.1", conditions=[{"type": "Ready", "status": "True"}])
            for cs in status.get("containerStatuses") or []:
                cs.update(
                    image="nvcr.io/x:1", ready=True, state={"running": {"startedAt": "2026-01-01T00:00:00Z"}}
                )
    return objs


def _page(kind: str, items: list[Any]) -> bytes:
    doc = {
        "kind": f"{kind}List",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "7", "continue": ""},
        "items": items,
    }
    return json.dumps(doc, ensure_ascii=False).encode()


def _built(kind: str, item: dict[str, Any]) -> str:
    """What a lean read makes of an item (as ClusterSource builds it), as text."""
    if kind == "ResourceSlice":
        return repr(resource_slice(to_v1(item), _ORIGIN, keep_raw=False))
    if kind == "ResourceClaim":
        return repr((resource_claim(to_v1(item), _ORIGIN, keep_raw=False), claim_pods(item)))
    extended = extended_names([o for o in demo_objects() if o["kind"] == "DeviceClass"])
    meta = item.get("metadata") or {}
    pod = lean_pod(to_v1(item), _ORIGIN)
    # the Pod without the status it keeps, and what the views read of that status
    views = (pod_phase(pod), pod_running(pod), pod_health_entries(pod))
    return repr(
        (replace(pod, raw={}), views, uses_devices(item, extended), meta.get("name"), meta.get("namespace"))
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_of_a_lean_page_is_the_model_of_the_whole_page(kind: str) -> None:
    body = _page(kind, _objects(kind))
    lean, whole = fast_typed(body, lean_decoder(kind)), json_loads(body)
    assert lean is not REFUSED
    assert lean == _project(whole, _SCHEMAS[kind])
    assert lean["metadata"] == whole["metadata"] and len(lean["items"]) == len(whole["items"])
    for ours, theirs in zip(lean["items"], whole["items"], strict=True):
        assert "managedFields" not in ours["metadata"]  # what it is for
        assert _built(kind, ours) == _built(kind, theirs)
    if kind == "Pod":
        assert "image" not in json.dumps(lean["items"]) and "hostIP" not in json.dumps(lean["items"])


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda items: items.append("not an object"), id="item-not-an-object"),
        pytest.param(lambda items: items.append(None), id="null-item"),
        pytest.param(lambda items: items[0].update(metadata=None), id="null-metadata"),
        pytest.param(lambda items: items[0].update(metadata=["x"]), id="metadata-not-an-object"),
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_a_page_outside_the_schema_is_refused(kind: str, change: Any) -> None:
    items = _objects(kind)
    change(items)
    assert fast_typed(_page(kind, items), lean_decoder(kind)) is REFUSED


@pytest.mark.parametrize(
    ("skipped", "answered"),
    [
        (b'"\xff\xfe"', False),  # invalid UTF-8: json.loads refuses the body, so must this
        (b'"\xed\xa0\x80"', False),  # a UTF-8-encoded surrogate: json.loads' value differs
        (b'"\\ud800"', False),  # an escaped lone surrogate: msgspec refuses, json.loads decides
        (b"1e400", True),  # json.loads: inf, msgspec refuses; skipped, the value is the same
        (b'"caf\xc3\xa9 \xe2\x82\xac"', True),  # valid UTF-8
        (b'"a\x01b"', False),  # a control character: the body is not JSON
        (b"[1,]", False),
        (b"NaN", False),
    ],
)
def test_what_a_skipped_field_holds_is_checked_as_a_whole_decode_would(
    skipped: bytes, answered: bool
) -> None:
    body = _page("Pod", _objects("Pod")).replace(b'"selfLink": "/x"', b'"selfLink": ' + skipped)
    assert body.count(skipped) >= 2  # in metadata, which the Pod schema skips but for two fields
    got = fast_typed(body, lean_decoder("Pod"))
    assert (got is not REFUSED) is answered
    if answered:
        assert got == _project(json.loads(body), _SCHEMAS["Pod"])


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(KINDS),
    st.lists(
        st.dictionaries(st.sampled_from(["metadata", "spec", "status", "kind", "x"]), _json, max_size=4),
        max_size=3,
    ),
)
def test_any_page_is_refused_or_decoded_as_the_whole_page_projected(kind: str, items: list[Any]) -> None:
    body = _page(kind, items)
    got = fast_typed(body, lean_decoder(kind))
    if got is not REFUSED:
        assert got == _project(json.loads(body), _SCHEMAS[kind])
