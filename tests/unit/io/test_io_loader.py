"""load_paths: inputs of every shape, in order, with their origins."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dractl.io import LoadedDoc, load_paths
from dractl.model.objects import Origin

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {name}
  namespace: ns
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
"""


def write(tmp_path: Path, name: str, text: str | bytes) -> str:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return str(p)


def test_multi_document_yaml_keeps_document_indices(tmp_path: Path) -> None:
    f = write(tmp_path, "a.yaml", CLAIM.format(name="c0") + "---\n" + CLAIM.format(name="c1"))
    res = load_paths([f])
    assert res.errors == []
    assert [d.name for d in res.docs] == ["c0", "c1"]
    assert [d.origin for d in res.docs] == [Origin(f, 0), Origin(f, 1)]
    assert res.files == [f]
    assert res.docs[0].kind == "ResourceClaim"
    assert res.docs[0].api_version == "resource.k8s.io/v1"
    assert res.docs[0].namespace == "ns"


def test_empty_documents_are_counted_not_errors(tmp_path: Path) -> None:
    f = write(tmp_path, "a.yaml", "---\n" + CLAIM.format(name="c0") + "---\n---\n# only a comment\n---\n~\n")
    res = load_paths([f])
    assert res.errors == []
    assert len(res.docs) == 1
    assert res.empty_documents == 3
    assert res.docs[0].origin.document == 0


def test_kind_list_items_become_objects_with_item_index(tmp_path: Path) -> None:
    items = [yaml_obj("c0"), yaml_obj("c1"), yaml_obj("c2")]
    f = write(tmp_path, "list.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    res = load_paths([f])
    assert res.errors == []
    assert [d.name for d in res.docs] == ["c0", "c1", "c2"]
    assert [d.origin.item for d in res.docs] == [0, 1, 2]


def test_kubectl_typed_list_and_null_items(tmp_path: Path) -> None:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimList\nitems:\n- "
        + CLAIM.format(name="c0").replace("\n", "\n  ").rstrip()
        + "\n---\nkind: List\nitems: null\n"
    )
    res = load_paths([write(tmp_path, "l.yaml", text)])
    assert res.errors == []
    assert [(d.name, d.origin.document, d.origin.item) for d in res.docs] == [("c0", 0, 0)]


def test_list_item_that_is_not_a_mapping_is_an_error_with_position(tmp_path: Path) -> None:
    f = write(
        tmp_path, "l.yaml", "kind: List\nitems:\n- kind: Node\n  metadata: {name: n}\n- just a string\n"
    )
    res = load_paths([f])
    assert [d.name for d in res.docs] == ["n"]
    (err,) = res.errors
    assert err.one_line() == f"{f}:5:3: items[1]: list item is a string, not a Kubernetes object (a mapping)"


def yaml_obj(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def test_stdin_dash_reads_the_given_stream() -> None:
    res = load_paths(["-"], stdin=io.BytesIO(CLAIM.format(name="s").encode()))
    assert res.errors == []
    assert res.files == ["-"]
    (doc,) = res.docs
    assert doc.origin == Origin("-", 0)
    assert doc.position("spec.devices.requests[0].exactly.deviceClassName") == (11, 9)


def test_stdin_twice_is_an_error() -> None:
    res = load_paths(["-", "-"], stdin=io.BytesIO(b"kind: Node\n"))
    assert len(res.docs) == 1
    assert [e.one_line() for e in res.errors] == ["-: stdin ('-') given more than once"]


def test_directory_walk_is_recursive_sorted_and_skips_hidden_and_templates(tmp_path: Path) -> None:
    write(tmp_path, "b.yaml", CLAIM.format(name="b"))
    write(tmp_path, "a.yml", CLAIM.format(name="a"))
    write(tmp_path, "sub/c.json", json.dumps(yaml_obj("c")))
    write(tmp_path, "sub/deeper/d.YAML", CLAIM.format(name="d"))
    write(tmp_path, ".git/e.yaml", CLAIM.format(name="hidden"))
    write(tmp_path, "sub/.cache/f.yaml", CLAIM.format(name="hidden2"))
    write(tmp_path, "t.yaml.tmpl", "name: {{ .Index }}\n")
    write(tmp_path, "notes.txt", "not yaml")
    res = load_paths([str(tmp_path)])
    assert res.errors == []
    assert [d.name for d in res.docs] == ["a", "b", "c", "d"]
    assert [Path(f).name for f in res.files] == ["a.yml", "b.yaml", "c.json", "d.YAML"]


def test_same_file_twice_is_read_once(tmp_path: Path) -> None:
    f = write(tmp_path, "a.yaml", CLAIM.format(name="a"))
    res = load_paths([f, str(tmp_path), f])
    assert [d.name for d in res.docs] == ["a"]


def test_missing_path_and_empty_directory_are_errors_and_loading_continues(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    good = write(tmp_path, "good.yaml", CLAIM.format(name="g"))
    missing = str(tmp_path / "nope.yaml")
    res = load_paths([missing, str(tmp_path / "empty"), good])
    assert [d.name for d in res.docs] == ["g"]
    assert [e.one_line() for e in res.errors] == [
        f"{missing}: no such file or directory",
        f"{tmp_path / 'empty'}: no *.yaml, *.yml or *.json files in this directory",
    ]


def test_template_named_explicitly_is_not_yaml(tmp_path: Path) -> None:
    f = write(tmp_path, "slice.yaml.tmpl", "apiVersion: v1\nkind: Node\n")
    res = load_paths([f])
    assert res.docs == []
    (err,) = res.errors
    assert err.one_line().startswith(f"{f}: not YAML")


def test_go_template_content_is_reported_as_not_yaml(tmp_path: Path) -> None:
    f = write(
        tmp_path, "t.yaml", "kind: Node\nmetadata:\n  name: node-{{ .Index }}\n  labels: {{ .Labels }}\n"
    )
    (err,) = load_paths([f]).errors
    assert err.one_line().startswith(
        f"{f}:3:14: not YAML: looks like a Go template ({{{{ .Index }}}} at line 3)"
    )


def test_snapshot_header_is_recognised_and_not_a_doc(tmp_path: Path) -> None:
    text = (
        "apiVersion: dractl/v1alpha1\nkind: Snapshot\nserverVersion: v1.36.2\n"
        "featureGates: {DRADeviceTaints: true}\n---\n" + CLAIM.format(name="c")
    )
    res = load_paths([write(tmp_path, "snap.yaml", text)])
    assert res.errors == []
    assert res.snapshot_header is not None
    assert res.snapshot_header["serverVersion"] == "v1.36.2"
    assert [d.name for d in res.docs] == ["c"]
    assert res.docs[0].origin.document == 1


def test_non_mapping_document_is_an_error_other_documents_still_load(tmp_path: Path) -> None:
    f = write(tmp_path, "a.yaml", "- name: gpu-0\n---\n" + CLAIM.format(name="c") + "---\nplain words\n")
    res = load_paths([f])
    assert [d.name for d in res.docs] == ["c"]
    assert [e.one_line() for e in res.errors] == [
        f"{f}:1: document 1 is a list, not a Kubernetes object (a mapping)",
        f"{f}:15: document 3 is a string, not a Kubernetes object (a mapping)",
    ]


def test_mapping_without_kind_is_a_doc_for_the_validator(tmp_path: Path) -> None:
    res = load_paths([write(tmp_path, "a.yaml", "apiversion: v1\nKind: Pod\n---\n{}\n")])
    assert res.errors == []
    assert [d.raw for d in res.docs] == [{"apiversion": "v1", "Kind": "Pod"}, {}]
    assert res.docs[0].kind is None


def test_scalars_follow_yaml_and_keys_are_strings(tmp_path: Path) -> None:
    text = (
        "a: yes\nb: 0x1F\nc: 1.5\nd: ~\ne: '010'\nf: 2024-01-02T03:04:05Z\n1: one\ntrue: t\n"
        "g: !!str 12\nh: [1, two]\n"
    )
    (doc,) = load_paths([write(tmp_path, "a.yaml", text)]).docs
    assert doc.raw == {
        "a": True,
        "b": 31,
        "c": 1.5,
        "d": None,
        "e": "010",
        "f": "2024-01-02T03:04:05Z",
        "1": "one",
        "true": "t",
        "g": "12",
        "h": [1, "two"],
    }


def test_merge_keys_and_aliases(tmp_path: Path) -> None:
    text = "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\nl: [*b, *b]\n"
    (doc,) = load_paths([write(tmp_path, "a.yaml", text)]).docs
    assert doc.raw["m"] == {"x": 1, "y": 3}
    assert doc.raw["l"] == [{"x": 1, "y": 2}, {"x": 1, "y": 2}]


def test_utf8_bom_and_crlf_are_fine(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + CLAIM.format(name="bom").replace("\n", "\r\n").encode()
    (doc,) = load_paths([write(tmp_path, "a.yaml", data)]).docs
    assert doc.name == "bom"
    assert doc.position("metadata.name") == (4, 3)


def test_json_file_with_positions_and_duplicates(tmp_path: Path) -> None:
    text = '{\n  "apiVersion": "v1",\n  "kind": "Node",\n  "metadata": {"name": "a", "name": "b"}\n}\n'
    f = write(tmp_path, "n.json", text)
    (doc,) = load_paths([f]).docs
    assert doc.name == "b"
    assert doc.duplicate_keys == (("metadata.name", 4, 29),)
    assert doc.position("kind") == (3, 3)


def test_loaded_doc_built_in_memory_has_no_positions() -> None:
    doc = LoadedDoc({"kind": "Node"}, Origin("x.yaml"))
    assert doc.position("kind") == (None, None)
    assert doc.duplicate_keys == ()


def test_json_stream_gives_one_document_per_value(tmp_path: Path) -> None:
    text = (
        '{"apiVersion": "dractl/v1alpha1", "kind": "Snapshot"}\n'
        '{"kind": "Node", "metadata": {"name": "a"}} {"kind": "Node",\n "metadata": {"name": "b", "name": "c"}}\n'
    )
    f = write(tmp_path, "s.json", text)
    res = load_paths([f])
    assert res.errors == []
    assert res.snapshot_header is not None
    a, c = res.docs
    assert (a.name, a.origin.document, c.name, c.origin.document) == ("a", 1, "c", 2)
    assert a.position("metadata.name") == (2, 31)
    assert c.position("") == (2, 45)
    assert c.position("metadata.name") == (3, 28)
    assert c.duplicate_keys == (("metadata.name", 3, 28),)


def test_json_stream_error_keeps_earlier_values(tmp_path: Path) -> None:
    f = write(tmp_path, "s.json", '{"kind": "Node", "metadata": {"name": "a"}}\n{"kind": \n')
    res = load_paths([f])
    assert [d.name for d in res.docs] == ["a"]
    (err,) = res.errors
    assert err.source is not None and (err.source.document, err.source.line) == (1, 3)
    assert err.message.startswith("invalid JSON")


def test_missing_or_closed_stdin_is_an_input_error(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("sys.stdin", None)
    assert [e.one_line() for e in load_paths(["-"]).errors] == ["-: cannot read stdin: there is none"]
    closed = io.BytesIO(b"kind: Node\n")
    closed.close()
    (err,) = load_paths(["-"], stdin=closed).errors
    assert err.one_line().startswith("-: cannot read stdin:")


@pytest.mark.parametrize("depth, refused", [(98, False), (99, True), (100, True)])  # + 1 for "spec"
def test_json_nesting_limit_is_exact_and_names_the_field(tmp_path: Path, depth: int, refused: bool) -> None:
    """The depth check counts without building paths; the first container at depth 100 is
    still the one named."""
    inner = '{"x": ' * depth + "1" + "}" * depth
    f = write(
        tmp_path, "deep.json", '{"kind": "Node", "metadata": {"name": "a"}, "spec": [0, ' + inner + "]}"
    )
    res = load_paths([f])
    if not refused:
        assert res.errors == [] and len(res.docs) == 1
        return
    (err,) = res.errors
    assert err.one_line().endswith("nesting deeper than 100 levels")
    assert err.one_line().startswith(f"{f}:1:")  # a line and column, not just the file


def test_json_repeated_keys_are_all_reported(tmp_path: Path) -> None:
    text = (
        '{"kind": "Node", "metadata": {"name": "a", "name": "b", "name": "c", "uid": "u"}, "kind": "Node"}\n'
    )
    (doc,) = load_paths([write(tmp_path, "n.json", text)]).docs
    assert doc.name == "c" and list(doc.raw) == ["kind", "metadata"]
    assert [d[0] for d in doc.duplicate_keys] == ["kind", "metadata.name", "metadata.name"]
