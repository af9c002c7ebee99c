"""Every class of bad input gives exactly one one-line InputError naming file:line — never a traceback."""

from __future__ import annotations

import io
import os
import re
import sys
import time
from pathlib import Path

import pytest

from dractl.errors import InputError
from dractl.io import load_paths

LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)

# (case id, file name, content, expected line, text the message must contain)
CASES: list[tuple[str, str, bytes, int, str]] = [
    ("empty-file", "e.yaml", b"", 1, "empty file"),
    ("whitespace-only", "e.yaml", b"  \n\n", 1, "empty file"),
    ("only-comments", "c.yaml", b"# nothing here\n# at all\n", 1, "only comments"),
    ("only-empty-documents", "d.yaml", b"---\n---\n...\n", 1, "every document is empty"),
    ("truncated-flow", "t.yaml", b"kind: Node\nmetadata: {name: a, labels: [x\n", 3, "invalid YAML"),
    ("truncated-quote", "t.yaml", b"kind: Node\nmetadata:\n  name: 'unterminated\n", 4, "invalid YAML"),
    ("tab-indent", "tab.yaml", b"kind: Node\nmetadata:\n\tname: a\n", 3, "tab character"),
    ("bad-indentation", "i.yaml", b"kind: Node\nmetadata:\n    name: a\n  labels: {}\n", 4, "invalid YAML"),
    ("mapping-in-plain", "m.yaml", b"kind: Node: Pod\n", 1, "invalid YAML"),
    ("binary", "b.yaml", bytes(range(256)) * 4, 1, "binary data"),
    ("gzip", "g.yaml", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff", 1, "binary data"),
    ("jpeg-like", "j.yaml", b"\xff\xd8\xff\xe0 JFIF", 1, "not UTF-8"),
    ("latin1", "l.yaml", "kind: Node\nmetadata: {name: caf\u00e9}\n".encode("latin-1"), 2, "not UTF-8"),
    ("utf16-bom", "u.yaml", "kind: Node\n".encode("utf-16"), 1, "UTF-16 byte-order mark"),
    ("utf32-bom", "u.yaml", "kind: Node\n".encode("utf-32"), 1, "UTF-32 byte-order mark"),
    ("utf16-no-bom", "u.yaml", "kind: Node\n".encode("utf-16-le"), 1, "NUL byte"),
    ("control-char", "c.yaml", b"kind: Node\nmetadata: {name: a\x07b}\n", 2, "U+0007"),
    ("billion-laughs", "bl.yaml", LAUGHS.encode(), 5, "billion laughs"),
    ("recursive-alias", "r.yaml", b"a: &x\n  b: *x\n", 2, "recursive"),
    ("undefined-alias", "u.yaml", b"a: *nowhere\n", 1, "undefined"),
    ("deep-flow-nesting", "deep.yaml", b"[" * 10_000 + b"]" * 10_000, 1, "nesting"),
    (
        "deep-block-nesting",
        "deep.yaml",
        "".join(f"{' ' * i}k:\n" for i in range(300)).encode(),
        101,
        "nesting deeper than 100",
    ),
    ("unknown-tag", "tag.yaml", b"kind: Node\nspec: !Ref something\n", 2, "unsupported YAML tag !Ref"),
    ("python-tag", "py.yaml", b"kind: !!python/object/apply:os.system [ls]\n", 1, "!!python/object/apply"),
    ("binary-tag", "bt.yaml", b"data: !!binary aGVsbG8=\n", 1, "!!binary"),
    ("bad-int-tag", "it.yaml", b"count: !!int lots\n", 1, "invalid value"),
    ("complex-key", "k.yaml", b"? [a, b]\n: value\n", 1, "mapping key must be a scalar"),
    ("json-syntax", "j.json", b'{"kind": "Node",\n "metadata": {"name": "a",}}\n', 2, "invalid JSON"),
    ("json-deep", "j.json", b"[" * 10_000 + b"]" * 10_000, 1, "nesting"),
    ("json-nan", "j.json", b'{"kind": NaN}', 1, "invalid JSON"),
    ("json-empty", "j.json", b"", 1, "empty file"),
    ("json-wrong-bracket", "j.json", b'{"kind": "Node"]\n', 1, "invalid JSON"),
    ("scalar-document", "s.yaml", b"hello world\n", 1, "is a string, not a Kubernetes object"),
]


@pytest.mark.parametrize(
    ("name", "content", "line", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_input_gives_one_line_error(
    tmp_path: Path, name: str, content: bytes, line: int, needle: str
) -> None:
    f = tmp_path / name
    f.write_bytes(content)
    start = time.perf_counter()
    res = load_paths([str(f)])
    assert time.perf_counter() - start < 5, "bad input must fail fast"
    assert res.docs == []
    assert len(res.errors) == 1, [e.one_line() for e in res.errors]
    err = res.errors[0]
    assert isinstance(err, InputError)
    text = err.one_line()
    assert "\n" not in text
    assert needle in text
    m = re.match(rf"{re.escape(str(f))}:(\d+)(:\d+)?: ", text)
    assert m is not None, text
    assert int(m.group(1)) == line, text
    assert err.source is not None and err.source.file == str(f)


def test_input_over_the_size_limit_names_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "big.yaml"
    f.write_text("kind: Node\nmetadata:\n  name: " + "x" * 5000 + "\n")
    (err,) = load_paths([str(f)], max_input_size=4096).errors
    size = f.stat().st_size
    assert err.one_line() == (
        f"{f}: input is {size:,} bytes, over the 4,096 bytes limit (raise it with --max-input-size)"
    )


def test_stdin_over_the_size_limit() -> None:
    res = load_paths(["-"], max_input_size=2 * 1024 * 1024, stdin=io.BytesIO(b"#" * (3 * 1024 * 1024)))
    (err,) = res.errors
    assert (
        err.one_line() == "-: input is more than 2 MB, over the 2 MB limit (raise it with --max-input-size)"
    )


def test_error_in_a_later_document_keeps_the_earlier_ones(tmp_path: Path) -> None:
    f = tmp_path / "a.yaml"
    f.write_text("kind: Node\nmetadata: {name: ok}\n---\nkind: Node\nmetadata: {name: [broken}\n")
    res = load_paths([str(f)])
    assert [d.name for d in res.docs] == ["ok"]
    (err,) = res.errors
    assert err.source is not None and err.source.document == 1 and err.source.line == 5


def test_one_bad_file_does_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"\xff\xfe\x00\x00")
    (tmp_path / "b.yaml").write_text("kind: Node\nmetadata: {name: b}\n")
    res = load_paths([str(tmp_path)])
    assert [d.name for d in res.docs] == ["b"]
    assert len(res.errors) == 1


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "secret.yaml"
    f.write_text("kind: Node\n")
    if os.geteuid() == 0:  # root reads anything: make the loader's open() fail as it would for others

        def denied(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr("dractl.io.loader.open", denied, raising=False)
    f.chmod(0)
    try:
        res = load_paths([str(f)])
    finally:
        f.chmod(0o600)
    assert res.docs == []
    (err,) = res.errors
    assert err.one_line() == f"{f}: cannot read: Permission denied"


def test_duplicate_keys_are_reported_with_paths_not_errors(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text(
        "kind: ResourceSlice\nmetadata:\n  name: a\n  name: b\nspec:\n  devices:\n  - name: gpu-0\n"
        "    attributes:\n      gpu.nvidia.com/model: {string: A}\n      gpu.nvidia.com/model: {string: B}\n"
    )
    res = load_paths([str(f)])
    assert res.errors == []
    (doc,) = res.docs
    assert doc.duplicate_keys == (
        ("metadata.name", 4, 3),
        ("spec.devices[0].attributes[gpu.nvidia.com/model]", 10, 7),
    )
    assert doc.raw["metadata"]["name"] == "b"
    for path, line, col in doc.duplicate_keys:
        assert doc.position(path) == (line, col)


def test_deep_json_is_located_even_when_the_recursion_limit_is_high(tmp_path: Path) -> None:
    # With a high recursion limit (the CEL engine raises it) json parses the whole nest, and the
    # depth check must still name a line and column.
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        path = tmp_path / "deep.json"
        path.write_bytes(b"[" * 10_000 + b"]" * 10_000)
        res = load_paths([str(path)])
    finally:
        sys.setrecursionlimit(old)
    assert [e.one_line() for e in res.errors] == [f"{path}:1:1: nesting deeper than 100 levels"]
