"""Reviewed verdict tables (``tests/corpus``, ``tests/realworld``): dractl's verdict for every object
of a shared folder, the ``expected.jsonl`` beside the test, and ``--update``, which rewrites it
keeping the reviewed ``why`` of every error that is still there; a new error gets ``"why": "TODO"``,
which the tests reject until someone reviews it against Kubernetes' rules.

One implementation for both tables; each table's module says which folder, which checks and
which default reasons.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

Row = dict[str, Any]


def verdicts(root: Path, kube_version: str, runtime_config: str = "", *, semantic: bool = True) -> list[Row]:
    """One record per object (and per input that could not be read) of ``root``, in load order, for
    an API server of ``kube_version`` started with ``--runtime-config runtime_config`` ("" = its
    defaults); ``semantic`` adds the API server's rules to the schema."""
    from dractl.io import load_paths
    from dractl.validate.engine import check_doc
    from dractl.validate.options import ValidateOptions
    from dractl.validate.versions import RuntimeConfig

    opts = ValidateOptions(
        kube_version=kube_version, semantic=semantic, runtime=RuntimeConfig.parse(runtime_config)
    )
    loaded = load_paths([str(root)])
    rows: list[Row] = []
    for doc in loaded.docs:
        result, findings = check_doc(doc, opts)
        row: Row = {"file": _rel(doc.origin.file, root), "document": doc.origin.document}
        if doc.origin.item is not None:
            row["item"] = doc.origin.item
        row.update({"kind": result.kind, "name": result.name, "verdict": result.status})
        row["findings"] = [
            {"rule": f.rule, "severity": f.severity.value, "line": f.line, "path": f.path}
            for f in sorted(findings, key=lambda f: (f.line or 0, f.rule, f.path))
        ]
        rows.append(row)
    for err in loaded.errors:
        src = err.source
        rows.append(
            {
                "file": _rel(src.file, root) if src else "",
                "document": src.document if src else 0,
                "verdict": "input-error",
                "line": src.line if src else None,
                "message": err.message,
            }
        )
    return rows


def _rel(file: str, root: Path) -> str:
    return os.path.relpath(file, root).replace(os.sep, "/")


def key(row: Row, finding: Row | None = None) -> tuple[Any, ...]:
    base = (row["file"], row["document"], row.get("item"))
    return base + ((finding["rule"], finding["path"]) if finding else ("input-error",))


def load_expected(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def strip_why(rows: Iterable[Row], also: tuple[str, ...] = ()) -> list[Row]:
    """The rows without the reviewed reasons (and without the row keys in ``also``): what the
    tests compare."""
    drop = ("why", *also)
    out = []
    for row in rows:
        row = {k: v for k, v in row.items() if k not in drop}
        if "findings" in row:
            row["findings"] = [{k: v for k, v in f.items() if k != "why"} for f in row["findings"]]
        out.append(row)
    return out


def update(
    expected: Path, rows: list[Row], default_why: Callable[[Row], str] = lambda finding: "TODO"
) -> int:
    """Rewrite ``expected`` with ``rows``, keeping every reviewed ``why`` that still applies (of an
    input error, of a finding, or a note on a row's verdict while the verdict holds); an error
    finding without one gets ``default_why(finding)``.  1 when some error still needs a review."""
    whys: dict[tuple[Any, ...], str] = {}
    if expected.exists():
        for row in load_expected(expected):
            if row["verdict"] == "input-error":
                whys[key(row)] = row.get("why", "TODO")
            elif "why" in row:
                whys[(*key(row), row["verdict"])] = row["why"]
            for f in row.get("findings", []):
                if "why" in f:
                    whys[key(row, f)] = f["why"]
    todo = 0
    for row in rows:
        if row["verdict"] == "input-error":
            row["why"] = whys.get(key(row), "TODO")
            todo += row["why"] == "TODO"
        elif (*key(row), row["verdict"]) in whys:
            row["why"] = whys[(*key(row), row["verdict"])]
        for f in row.get("findings", []):
            if f["severity"] == "error":
                f["why"] = whys.get(key(row, f), default_why(f))
                todo += f["why"] == "TODO"
    expected.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} records to {expected}; {todo} errors need a reviewed 'why'")
    return 1 if todo else 0


def assert_matches(actual: list[Row], expected: list[Row]) -> None:
    """``actual`` is the reviewed table, row for row.  The loader's wording of an unreadable input
    may change (its file, document and line may not), and the reasons are not compared."""
    assert len(actual) == len(expected)
    for got, want in zip(strip_why(actual, ("message",)), strip_why(expected, ("message",)), strict=True):
        assert got == want


def assert_reviewed(rows: list[Row]) -> None:
    """Every error (and every unreadable input) of the table has a reviewed ``why``."""
    for row in rows:
        reasons = (
            [row.get("why")]
            if row["verdict"] == "input-error"
            else [f.get("why") for f in row["findings"] if f["severity"] == "error"]
        )
        for why in reasons:
            assert why and why != "TODO", f"{row['file']} document {row['document']}: no reviewed why"
