"""Never a partial view as if complete: every inventory view on a cluster whose ResourceSlices
cannot be read fails (exit 3, nothing on stdout); with ``--partial`` it shows what it has, and
says what is missing on stderr, in the table's footer and in the JSON ``context.missing``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster import transport

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas" / "output"
MISSING = "resourceslices.resource.k8s.io at the cluster scope: forbidden"
VIEWS = {
    "availability": ["availability"],
    "claims": ["claims", "-A"],
    "health": ["health"],
    "taints": ["taints"],
}


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "BACKOFF_BASE", 0.01)


@pytest.fixture
def no_slices(apiserver: LoopbackApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = frozenset({"list", "get", "watch"})
    apiserver.add_token("no-slices", Policy.reads_all_but("resourceslices", verbs=reads))
    monkeypatch.setenv("KUBECONFIG", str(apiserver.kubeconfig(tmp_path / "kc", "no-slices")))


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_a_view_missing_a_read_fails_or_says_so(run_cli: Any, no_slices: None, view: str) -> None:
    argv = VIEWS[view]
    failed = run_cli(argv)
    assert failed.exit_code == 3 and failed.stdout == ""
    assert f"cannot list {MISSING}" in failed.stderr
    doc_run = run_cli([*argv, "--partial", "-o", "json"])
    assert doc_run.exit_code == 0, doc_run.stderr
    assert f"Warning: could not read {MISSING}" in doc_run.stderr
    doc = json.loads(doc_run.stdout)
    assert doc["context"]["missing"] == [MISSING]
    jsonschema.validate(doc, json.loads((SCHEMAS / f"{view}-report.schema.json").read_text()))
    table = run_cli([*argv, "--partial"]).stdout.rstrip("\n").splitlines()
    assert table[-2] == f"Incomplete: could not read {MISSING}."


def test_a_complete_read_says_nothing_of_the_kind(run_cli: Any, kubeconfig: Path) -> None:
    doc = json.loads(run_cli(["availability", "-o", "json"]).stdout)
    assert "missing" not in doc["context"]
    assert "Incomplete" not in run_cli(["availability"]).stdout


@pytest.mark.parametrize(
    "argv, field",
    [
        (["explain-allocation", "--claim", "default/single-gpu"], "warnings"),
        (["capacity", "--claim", "default/single-gpu"], "notes"),
    ],
)
def test_explain_and_capacity_say_what_they_could_not_read(
    run_cli: Any, no_slices: None, argv: list[str], field: str
) -> None:
    # Without --partial: a failure (exit 3, nothing on stdout), or — explain, whose target names a
    # namespace, reads as a least-privileged user — an answer that says what it did not see.
    for flags in ([], ["--partial"]):
        result = run_cli([*argv, *flags, "-o", "json"])
        if result.exit_code == 3 and not flags:
            assert result.stdout == "" and f"cannot list {MISSING}" in result.stderr
            continue
        assert result.exit_code in (0, 1), result.stderr
        doc = json.loads(result.stdout)
        assert f"incomplete: could not read {MISSING}; the answer does not include them" in doc[field]
