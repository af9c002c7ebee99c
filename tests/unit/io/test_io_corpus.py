"""Every file of ../shared/corpus loads without an exception; templates are "not YAML"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.io import load_paths

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".yaml", ".tmpl"))


def fragment_files() -> set[str]:
    out = set()
    for line in (CORPUS / "index.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if "FRAGMENT" in rec.get("note", ""):
            out.add(Path(rec["file"]).name)
    return out


def test_every_corpus_file_loads_alone() -> None:
    files = corpus_files()
    assert len(files) >= 200
    fragments = fragment_files()
    for f in files:
        res = load_paths([str(f)])
        for err in res.errors:
            line = err.one_line()
            assert "\n" not in line and line.startswith(str(f))
        if f.name.endswith(".tmpl"):
            assert res.docs == [] and len(res.errors) == 1
            assert "not YAML" in res.errors[0].message
        elif res.errors:
            assert f.name in fragments, f"unexpected load error: {[e.one_line() for e in res.errors]}"
        else:
            assert res.docs, f"{f}: no objects"
        for doc in res.docs:
            line, col = doc.position("")
            assert line is not None and col is not None, f"{f}: no position for document {doc.origin}"
            assert doc.position("metadata.name")[0] is not None


def test_corpus_directory_walk_skips_templates_and_reads_all_yaml() -> None:
    res = load_paths([str(CORPUS)])
    yaml_files = [f for f in corpus_files() if f.suffix == ".yaml"]
    assert len(res.files) == len(yaml_files)
    assert not any(f.endswith(".tmpl") for f in res.files)
    assert len(res.docs) > len(yaml_files)  # multi-document files and Lists add more
    assert {d.origin.file for d in res.docs} <= set(res.files)
    assert all(e.source is not None and Path(e.source.file).name in fragment_files() for e in res.errors)
