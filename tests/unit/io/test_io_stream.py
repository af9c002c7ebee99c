"""DocStream: the loader one object at a time (issue 11, memory) — same objects, errors and
positions as load_paths, the snapshot header known before the objects, nothing read twice that
cannot be."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from dractl.io.loader import DocStream, load_paths
from dractl.io.positions import SourceText

HEADER = "apiVersion: dractl/v1alpha1\nkind: Snapshot\nserverVersion: v1.34.2\n---\n"
CLAIM = (
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c{i}\n  namespace: default\n"
    "spec:\n  devices:\n    requests:\n    - name: r\n      exactly:\n        deviceClassName: gpu\n"
)


def claims(n: int, start: int = 0) -> str:
    return "---\n".join(CLAIM.format(i=i) for i in range(start, start + n))


def _summary(result: object) -> tuple[object, ...]:
    docs = [(d.raw, d.origin, d.duplicate_keys) for d in result.docs]  # type: ignore[attr-defined]
    errors = [str(e) for e in result.errors]  # type: ignore[attr-defined]
    return docs, errors, result.files, result.snapshot_header, result.empty_documents  # type: ignore[attr-defined]


def _streamed(paths: list[str], **kw: object) -> tuple[object, ...]:
    stream = DocStream(paths, **kw)  # type: ignore[arg-type]
    stream.result.docs.extend(stream)
    return _summary(stream.result)


def test_objects_come_before_the_rest_is_parsed(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text(claims(2) + "---\nkey: [unclosed\n")
    stream = DocStream([str(f)])
    it = iter(stream)
    first = next(it)
    assert first.name == "c0"
    assert stream.result.errors == []  # the syntax error in document 3 is not read yet
    rest = list(it)
    assert [d.name for d in rest] == ["c1"]
    (err,) = stream.result.errors
    assert err.source is not None and err.source.file == str(f) and "invalid YAML" in str(err)


@pytest.mark.parametrize(
    "layout",
    [
        {"a.yaml": claims(2)},
        {"a.yaml": claims(1), "b.yaml": HEADER + claims(1, 5)},
        {"a.yaml": HEADER + claims(2), "b.yaml": HEADER + claims(1, 7)},  # a second snapshot: an error
        {"a.yaml": claims(1) + "---\n" + HEADER + claims(1, 3)},  # header not first: an error, no header
        {"d/x.yaml": "", "d/y.json": '{"apiVersion": "dractl/v1alpha1", "kind": "Snapshot"}\n{"kind": "X"}'},
        {"a.yaml": "kind: List\napiVersion: v1\nitems:\n- " + CLAIM.replace("\n", "\n  ").format(i=1)},
        {"a.yaml": "# only a comment\n", "b.yaml": "---\n---\n", "c.yaml": "- 1\n- 2\n"},
    ],
)
def test_same_as_load_paths(tmp_path: Path, layout: dict[str, str]) -> None:
    for name, text in layout.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    tops = sorted({str(tmp_path / n.split("/")[0]) for n in layout})
    assert _streamed(tops) == _summary(load_paths(tops))
    assert DocStream(tops).header() == load_paths(tops).snapshot_header


def test_header_in_a_later_input_is_known_first(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(claims(3))
    (tmp_path / "snap.yaml").write_text(HEADER + claims(1, 9))
    stream = DocStream([str(tmp_path / "a.yaml"), str(tmp_path / "snap.yaml")])
    header = stream.header()
    assert header is not None and header["serverVersion"] == "v1.34.2"
    assert [d.name for d in stream] == ["c0", "c1", "c2", "c9"]
    assert stream.result.snapshot_header == header and stream.result.errors == []


def test_stdin_read_for_the_header_is_kept_for_the_objects(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(claims(1))
    stdin = io.BytesIO((HEADER + claims(2, 1)).encode())
    stream = DocStream([str(tmp_path / "a.yaml"), "-"], stdin=stdin)
    assert stream.header() is not None
    assert [d.name for d in stream] == ["c0", "c1", "c2"]
    assert stream.result.files == [str(tmp_path / "a.yaml"), "-"]


def test_a_pipe_given_by_name_is_read_once(tmp_path: Path) -> None:
    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer, as a shell's <(cmd) would be
        try:
            with open(fifo, "w") as w:
                w.write(HEADER + claims(2))
        finally:
            os._exit(0)
    try:
        stream = DocStream([str(fifo)])
        assert stream.header() is not None
        assert [d.name for d in stream] == ["c0", "c1"]
        assert stream.result.errors == []
    finally:
        os.waitpid(pid, 0)


def test_header_sniff_does_not_report(tmp_path: Path) -> None:
    stream = DocStream([str(tmp_path / "missing.yaml"), str(tmp_path)])
    assert stream.header() is None
    assert stream.result.errors == [] and stream.result.files == []


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_positions_asked_while_streaming(tmp_path: Path, suffix: str) -> None:
    if suffix == ".json":
        import json

        docs = [{"kind": "K", "metadata": {"name": f"n{i}"}, "spec": {"x": i}} for i in range(3)]
        text = "\n".join(json.dumps(d, indent=1) for d in docs)
    else:
        text = claims(3)
    f = tmp_path / f"a{suffix}"
    f.write_text(text)
    path = "spec" if suffix == ".json" else "spec.devices.requests[0].exactly.deviceClassName"
    during = [d.position(path) for d in DocStream([str(f)])]
    after = [d.position(path) for d in load_paths([str(f)]).docs]
    assert during == after
    assert len(set(during)) == 3 and all(line is not None for line, _ in during)


def test_composed_documents_are_bounded() -> None:
    text = claims(SourceText.ROOTS_KEPT * 2)
    result = load_paths(["-"], stdin=io.BytesIO(text.encode()))
    source = result.docs[0].source
    assert source is not None
    lines = [d.position("metadata.name")[0] for d in result.docs]
    assert lines == sorted(lines) and len(set(lines)) == len(lines)
    assert len(source._roots) <= SourceText.ROOTS_KEPT


@pytest.mark.parametrize(
    "text",
    [
        HEADER + claims(2000),  # big file, small header: decided from the head
        claims(2000),  # big file, no header
        HEADER.replace("---\n", "")
        + "featureGates:\n"
        + "".join(f"  Gate{i}: true\n" for i in range(8000))
        + "---\n"
        + claims(2),  # a header longer than the head
        "kind: List\napiVersion: v1\nitems:\n"
        + "".join(f"- {{kind: X, metadata: {{name: n{i}}}}}\n" for i in range(9000)),
    ],
    ids=["header-first", "no-header", "long-header", "long-first-document"],
)
def test_header_of_big_files(tmp_path: Path, text: str) -> None:
    from dractl.io.loader import SNIFF

    f = tmp_path / "big.yaml"
    f.write_text(text)
    assert f.stat().st_size > SNIFF
    assert DocStream([str(f)]).header() == load_paths([str(f)]).snapshot_header


LIST = (
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: A, metadata: {name: a}, spec: &s {x: [1, 2.5, true, null, 'é']}}\n"
    "- {kind: B, metadata: {name: b}, spec: *s}\n"
    "- kind: C\n  metadata: {name: c}\n  spec: {<<: *s, y: 1}\n"
    "- kind: D\n  metadata: {name: d, name: again}\n  big: " + str(2**70) + "\n"
    "- 7\n"
    "- [nested, list]\n"
)


def test_list_items_are_packed_while_the_document_is_read() -> None:
    from dractl.io.yamlparse import Packed, Stream, parse_stream, stream_documents, unpacked

    (packed_doc,) = list(stream_documents(LIST, Stream([]), pack_items=True))
    items = packed_doc.value["items"]
    assert [type(i) is Packed for i in items] == [True, True, True, True, False, True]  # (7: a scalar)
    (plain,) = parse_stream(LIST).documents
    assert [unpacked(i) for i in items] == plain.value["items"]
    assert packed_doc.duplicate_keys == plain.duplicate_keys


def test_a_packed_list_loads_like_a_plain_one(tmp_path: Path) -> None:
    f = tmp_path / "list.yaml"
    f.write_text(LIST + "---\nkind: Thing\nitems:\n- {a: 1}\n- {b: [2]}\n")
    assert _streamed([str(f)]) == _summary(load_paths([str(f)]))
    not_a_list = [d for d in DocStream([str(f)]) if d.kind == "Thing"]
    assert not_a_list[0].raw["items"] == [{"a": 1}, {"b": [2]}]
