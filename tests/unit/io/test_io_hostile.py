"""Hostile inputs at the loader (issue 11): aliases nesting past the depth limit, huge
--max-input-size values, FIFOs and other non-regular files in walks, symlinked directories and
loops; each problem is one input error for that path and every other file is still loaded."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from dractl.io import load_paths
from dractl.io.loader import read_bounded
from dractl.io.yamlparse import MAX_DEPTH, parse_stream

OK = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: ok}\nspec: {}\n"


def alias_chain(links: int, depth: int = 60) -> str:
    """Each anchor nests the previous one ``depth`` levels deeper: small text, unbounded depth."""
    rows = []
    for i in range(links):
        inner = f"*a{i - 1}" if i else "1"
        rows.append(f"      x{i}: &a{i} " + "[" * depth + inner + "]" * depth)
    return (
        OK.replace(
            "spec: {}\n", "spec:\n  config:\n  - opaque:\n      driver: d.example.com\n      parameters:\n"
        )
        + "\n".join("  " + r for r in rows)
        + "\n"
    )


def test_aliases_cannot_nest_a_document_past_the_depth_limit(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text(alias_chain(8))
    (tmp_path / "ok.yaml").write_text(OK)
    res = load_paths([str(tmp_path / "deep.yaml"), str(tmp_path / "ok.yaml")])
    assert [d.name for d in res.docs] == ["ok"]
    (err,) = res.errors
    assert f"nesting deeper than {MAX_DEPTH} levels (through alias *a" in err.one_line()
    assert err.one_line().startswith(f"{tmp_path / 'deep.yaml'}:")


def test_aliases_within_the_depth_limit_still_work() -> None:
    stream = parse_stream("a: &a [[[1]]]\nb: [*a, *a]\nc: {d: *a}\n")
    assert stream.error is None
    assert stream.documents[0].value == {"a": [[[1]]], "b": [[[[1]]], [[[1]]]], "c": {"d": [[[1]]]}}
    exact = "x: &a " + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + "\ny: *a\n"
    assert parse_stream(exact).error is None  # root mapping + 98 lists = 99 levels at y
    over = "x: &a " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\ny: [*a]\n"
    assert parse_stream(over).error is not None


def test_shared_subtrees_are_measured_once() -> None:
    # a DAG of aliases: measuring heights must not walk 2**30 paths
    rows = ["l0: &l0 [1]"] + [f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}]" for i in range(1, 30)]
    stream = parse_stream("\n".join(rows) + "\n")
    assert stream.error is not None and "billion laughs" in stream.error.message


@pytest.mark.parametrize("limit", [100 * 10**9, 9223372036854775807, 2**70])
def test_a_huge_limit_is_never_allocated(tmp_path: Path, limit: int) -> None:
    (tmp_path / "ok.yaml").write_text(OK)
    res = load_paths([str(tmp_path / "ok.yaml"), "-"], max_input_size=limit, stdin=io.BytesIO(OK.encode()))
    assert res.errors == [] and len(res.docs) == 2


def test_read_bounded_stops_one_byte_past_the_limit() -> None:
    class Endless(io.RawIOBase):
        reads = 0

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            self.reads += 1
            b[:] = b"x" * len(b)
            return len(b)

    stream = Endless()
    assert len(read_bounded(stream, 3 * 2**20 + 5)) == 3 * 2**20 + 6
    assert len(read_bounded(io.BytesIO(b"abc"), 2**62)) == 3


def test_walks_never_open_fifos_and_report_every_skipped_path(tmp_path: Path) -> None:
    d = tmp_path / "d"
    (d / "real").mkdir(parents=True)
    (d / "real" / "a.yaml").write_text(OK)
    os.mkfifo(d / "pipe.yaml")  # opening it for reading would block forever
    (d / "dangling.yaml").symlink_to("nothing")
    res = load_paths([str(d)])
    assert [x.name for x in res.docs] == ["ok"]
    lines = sorted(e.one_line() for e in res.errors)
    assert lines == [
        f"{d}/dangling.yaml: a symbolic link to nothing (dangling); skipped",
        f"{d}/pipe.yaml: not a regular file: a named pipe (FIFO), never opened; skipped",
    ]


def test_symlinked_directories_are_followed_once_even_in_a_loop(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "a.yaml").write_text(OK)
    (real / "loop").symlink_to("..")  # back up: must not loop forever
    top = tmp_path / "top"
    top.mkdir()
    (top / "linked").symlink_to(real)  # a linked subdirectory is walked
    (top / "dir.yaml").symlink_to(real)  # a link named *.yaml to a directory too
    (top / "b.yaml").write_text(OK.replace("name: ok", "name: b"))
    res = load_paths([str(top)])
    assert res.errors == []
    assert sorted(x.name or "" for x in res.docs) == ["b", "ok"]  # a.yaml once (same file)
