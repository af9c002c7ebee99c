"""A position inside an item of a YAML ``kind: List`` composes only that item (found from the
parser's events), and is the same position the whole List document gives."""

from __future__ import annotations

import pytest

from dractl.io.positions import SourceText

BLOCK = """apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata:
    name: a   # a comment
    labels: {app: "é-ü"}
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: missing}

- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: b}
  spec:
    devices:
      requests: [{name: x, exactly: {deviceClassName: other}}]
- just a scalar
- [1, 2]
"""
INDENTED = """kind: List
apiVersion: v1
items:
  - kind: DeviceClass
    apiVersion: resource.k8s.io/v1
    metadata:
      name: c1
  - kind: DeviceClass
    metadata: {name: c2}
    spec:
      selectors:
        - cel:
            expression: "device.driver == 'x'"
"""
FLOW = """{kind: List, apiVersion: v1, items: [{kind: DeviceClass, metadata: {name: f1}}, {kind: DeviceClass, metadata: {name: f2, labels: {a: b}}}]}
"""
PATHS = [
    "",
    "kind",
    "metadata.name",
    "metadata.labels",
    "spec.devices.requests[0].exactly.deviceClassName",
    "spec.devices.requests[0].name",
    "spec.selectors[0].cel.expression",
    "metadata.labels.a",
]


def _whole(text: str) -> SourceText:
    source = SourceText("l.yaml", lambda: text)
    source._no_spans.add(0)  # the whole-document path, as before
    return source


@pytest.mark.parametrize("text", [BLOCK, INDENTED, FLOW], ids=["block", "indented", "flow"])
def test_item_positions_match_the_whole_document(text: str) -> None:
    items = {"block": 4, "indented": 2, "flow": 2}[
        "block" if text is BLOCK else "indented" if text is INDENTED else "flow"
    ]
    by_item, whole = SourceText("l.yaml", lambda: text), _whole(text)
    for item in range(items):
        for path in PATHS:
            assert by_item.position(0, item, path) == whole.position(0, item, path), (item, path)
    assert 0 in by_item.item_spans and 0 not in whole.item_spans
    assert by_item.position(0, 1, "metadata.name")[0] is not None


def test_only_the_item_is_composed() -> None:
    big = "kind: List\napiVersion: v1\nitems:\n" + "".join(
        f"- kind: DeviceClass\n  metadata:\n    name: c{i}\n" for i in range(2000)
    )
    source = SourceText("l.yaml", lambda: big)
    assert source.position(0, 1500, "metadata.name") == _whole(big).position(0, 1500, "metadata.name")
    assert source.position(0, 1500, "metadata.name")[0] == 3 + 1500 * 3 + 3
    # Each composed root is one item, not the List: its node tree holds just that item's keys.
    ((key, node),) = source._roots.items()
    assert key == (0, 1500) and [k.value for k, _ in node.value] == ["kind", "metadata"]


def test_a_document_that_is_not_a_list_falls_back() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n"
    source = SourceText("l.yaml", lambda: text)
    assert source.position(0, None, "data.a") == _whole(text).position(0, None, "data.a") == (3, 8)
    assert source.position(0, 0, "data.a") == _whole(text).position(0, 0, "data.a")
    assert 0 not in source.item_spans
