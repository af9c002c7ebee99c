"""dractl's schema-level verdict for every object of ``../shared/corpus`` (shared by the test
and by ``python tests/corpus/corpus_verdicts.py --update``, which rewrites expected.jsonl
keeping the reviewed ``why`` of every error that is still there; a new error gets
``"why": "TODO"``, which the test rejects until someone reviews it)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"
EXPECTED = Path(__file__).with_name("expected.jsonl")
KUBE_VERSION = "1.37"


def verdicts(
    corpus: Path = CORPUS, kube_version: str = KUBE_VERSION, runtime_config: str = ""
) -> list[dict[str, Any]]:
    """One record per object (and per input that could not be read), in load order, for an API
    server of ``kube_version`` started with ``--runtime-config runtime_config`` ("" = defaults)."""
    from dractl.io import load_paths
    from dractl.validate.engine import check_doc
    from dractl.validate.options import ValidateOptions
    from dractl.validate.versions import RuntimeConfig

    opts = ValidateOptions(
        kube_version=kube_version, semantic=False, runtime=RuntimeConfig.parse(runtime_config)
    )
    loaded = load_paths([str(corpus)])
    rows: list[dict[str, Any]] = []
    for doc in loaded.docs:
        result, findings = check_doc(doc, opts)
        row: dict[str, Any] = {"file": _rel(doc.origin.file, corpus), "document": doc.origin.document}
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
                "file": _rel(src.file, corpus) if src else "",
                "document": src.document if src else 0,
                "verdict": "input-error",
                "line": src.line if src else None,
                "message": err.message,
            }
        )
    return rows


def _rel(file: str, corpus: Path) -> str:
    return os.path.relpath(file, corpus).replace(os.sep, "/")


def key(row: dict[str, Any], finding: dict[str, Any] | None = None) -> tuple[Any, ...]:
    base = (row["file"], row["document"], row.get("item"))
    return base + ((finding["rule"], finding["path"]) if finding else ("input-error",))


def load_expected(path: Path = EXPECTED) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def strip_why(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        row = {k: v for k, v in row.items() if k != "why"}
        if "findings" in row:
            row["findings"] = [{k: v for k, v in f.items() if k != "why"} for f in row["findings"]]
        out.append(row)
    return out


# The one reason every API-VERSION-NOT-ENABLED error has (issue 14 item 2 changed these verdicts).
NOT_ENABLED_WHY = (
    "a default 1.37 API server serves no beta/alpha version of resource.k8s.io (KEP-3136): "
    "kubectl apply answers 'no matches for kind' unless --runtime-config enables it"
)


def update() -> int:
    whys: dict[tuple[Any, ...], str] = {}
    if EXPECTED.exists():
        for row in load_expected():
            if row["verdict"] == "input-error":
                whys[key(row)] = row.get("why", "TODO")
            elif "why" in row:  # a reviewed note on a changed verdict (kept while the verdict holds)
                whys[(*key(row), row["verdict"])] = row["why"]
            for f in row.get("findings", []):
                if "why" in f:
                    whys[key(row, f)] = f["why"]
    rows = verdicts()
    todo = 0
    for row in rows:
        if row["verdict"] == "input-error":
            row["why"] = whys.get(key(row), "TODO")
            todo += row["why"] == "TODO"
        elif (*key(row), row["verdict"]) in whys:
            row["why"] = whys[(*key(row), row["verdict"])]
        for f in row.get("findings", []):
            if f["severity"] == "error":
                default = NOT_ENABLED_WHY if f["rule"] == "API-VERSION-NOT-ENABLED" else "TODO"
                f["why"] = whys.get(key(row, f), default)
                todo += f["why"] == "TODO"
    EXPECTED.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} records to {EXPECTED.relative_to(REPO)}; {todo} errors need a reviewed 'why'")
    return 1 if todo else 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/corpus/corpus_verdicts.py --update")
    sys.exit(update())
