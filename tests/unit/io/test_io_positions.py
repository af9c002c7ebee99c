"""LoadedDoc.position: field paths to 1-based line/column, computed lazily per document."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dractl.io import load_paths
from dractl.io.positions import parse_path

SLICE = """\
# leading comment
apiVersion: v1
kind: Node
metadata: {name: other}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-a-gpu
spec:
  driver: gpu.nvidia.com
  pool:
    name: node-a
  devices:
  - name: gpu-0
    attributes:
      model:
        string: H100
      gpu.nvidia.com/uuid:
        string: GPU-1
      resource.kubernetes.io/pciBusID: {string: "0000:3b:00.0"}
    capacity:
      memory:
        value: 80Gi
  -   name: gpu-1
      attributes: {}
"""


@pytest.fixture
def doc(tmp_path: Path):  # type: ignore[no-untyped-def]
    f = tmp_path / "slice.yaml"
    f.write_text(SLICE)
    res = load_paths([str(f)])
    assert res.errors == []
    return res.docs[1]


@pytest.mark.parametrize(
    ("path", "pos"),
    [
        ("", (6, 1)),
        ("kind", (7, 1)),
        ("metadata.name", (9, 3)),
        ("spec.pool.name", (13, 5)),
        ("spec.devices", (14, 3)),
        ("spec.devices[0]", (15, 5)),
        ("spec.devices[0].name", (15, 5)),
        ("spec.devices[0].attributes.model", (17, 7)),
        ("spec.devices[0].attributes.model.string", (18, 9)),
        ("spec.devices[0].attributes[gpu.nvidia.com/uuid]", (19, 7)),
        ('spec.devices[0].attributes["gpu.nvidia.com/uuid"].string', (20, 9)),
        ("spec.devices[0].attributes.gpu.nvidia.com/uuid", (19, 7)),
        ("spec.devices[0].attributes.resource.kubernetes.io/pciBusID.string", (21, 41)),
        ("spec.devices[0].capacity.memory.value", (24, 9)),
        ("spec.devices[1]", (25, 7)),
        ("spec.devices[1].attributes", (26, 7)),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_positions_of_existing_paths(doc, path: str, pos: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert doc.position(path) == pos


@pytest.mark.parametrize(
    ("path", "pos"),
    [
        ("spec.devices[0].attributes.missing", (16, 5)),  # -> attributes
        ("spec.devices[7].name", (14, 3)),  # -> devices
        ("spec.devices[0].capacity.memory.value.deeper", (24, 9)),
        ("status.allocation", (6, 1)),  # -> the object
        ("spec.devices.name", (14, 3)),  # a key into a list -> the list
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_missing_paths_fall_back_to_the_nearest_ancestor(doc, path: str, pos: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert doc.position(path) == pos


def test_first_document_after_a_comment(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SLICE)
    first = load_paths([str(f)]).docs[0]
    assert first.position("") == (2, 1)
    assert first.position("metadata.name") == (4, 12)


def test_list_items_positions_are_relative_to_the_item(tmp_path: Path) -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata:\n    name: a\n"
        "- kind: Node\n  metadata:\n    name: b\n    labels:\n      zone: z1\n"
    )
    f = tmp_path / "l.yaml"
    f.write_text(text)
    a, b = load_paths([str(f)]).docs
    assert a.position("") == (4, 3)
    assert a.position("metadata.name") == (6, 5)
    assert b.position("metadata.labels.zone") == (11, 7)
    assert b.position("metadata.nothing") == (8, 3)


def test_positions_from_stdin_and_many_documents() -> None:
    docs = "".join(f"---\nkind: Node\nmetadata:\n  name: n{i}\n" for i in range(200))
    res = load_paths(["-"], stdin=io.BytesIO(docs.encode()))
    assert len(res.docs) == 200
    assert res.docs[150].position("metadata.name") == (150 * 4 + 4, 3)
    assert res.docs[0].position("kind") == (2, 1)


def test_merge_keys_point_at_the_merged_source(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text("kind: Node\nbase: &b\n  zone: z1\nmetadata:\n  <<: *b\n  name: n\n")
    (doc,) = load_paths([str(f)]).docs
    assert doc.position("metadata.zone") == (3, 3)
    assert doc.position("metadata.name") == (6, 3)


def test_flow_style_kyaml(tmp_path: Path) -> None:
    f = tmp_path / "k.yaml"
    f.write_text('{\n  apiVersion: "v1",\n  kind: "Node",\n  metadata: {name: "n", labels: {a: "b"}},\n}\n')
    (doc,) = load_paths([str(f)]).docs
    assert doc.position("metadata.labels.a") == (4, 34)


def test_positions_of_a_json_list(tmp_path: Path) -> None:
    f = tmp_path / "l.json"
    f.write_text(
        '{"kind": "List", "items": [\n  {"kind": "Node", "metadata": {"name": "a"}},\n'
        '  {"kind": "Node",\n   "metadata": {"name": "b"}}\n]}\n'
    )
    a, b = load_paths([str(f)]).docs
    assert a.position("metadata.name") == (2, 33)
    assert b.position("metadata") == (4, 4)


def test_positions_survive_a_deleted_file(tmp_path: Path) -> None:
    f = tmp_path / "gone.yaml"
    f.write_text("kind: Node\n")
    (doc,) = load_paths([str(f)]).docs
    f.unlink()
    assert doc.position("kind") == (None, None)


@pytest.mark.parametrize(
    ("path", "parts"),
    [
        ("", []),
        ("a.b", [("a", False), ("b", False)]),
        ("a[0].b", [("a", False), ("0", True), ("b", False)]),
        ('a["x.y/z"].c', [("a", False), ("x.y/z", True), ("c", False)]),
        ("a[x.y/z]", [("a", False), ("x.y/z", True)]),
        ("a['q']", [("a", False), ("q", True)]),
        ("a[unclosed", [("a", False), ("unclosed", True)]),
    ],
)
def test_parse_path(path: str, parts: list[tuple[str, bool]]) -> None:
    assert parse_path(path) == parts
