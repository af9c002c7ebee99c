"""``../shared/realworld`` (64 real DRA manifests, provenance in its index.jsonl): dractl's reviewed
verdict for every object, as ``dractl validate`` at Kubernetes 1.37 on a default API server.

``expected.jsonl`` holds one record per object; every error carries a one-line ``why`` saying what
the API server (or kubectl's strict decoding) answers and why.  Regenerate with
``python tests/realworld/realworld_verdicts.py --update`` and review every new ``why``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from realworld_verdicts import REALWORLD, load_expected, verdicts
from verdict_table import assert_matches, assert_reviewed

pytestmark = pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/realworld is not checked out")


@pytest.fixture(scope="module")
def actual() -> list[dict[str, Any]]:
    return verdicts()


def test_matches_reviewed_expectations(actual: list[dict[str, Any]]) -> None:
    assert_matches(actual, load_expected())


def test_every_error_has_a_reviewed_why() -> None:
    assert_reviewed(load_expected())


def test_every_file_has_provenance_and_a_verdict(actual: list[dict[str, Any]]) -> None:
    index = [
        json.loads(line) for line in (REALWORLD / "index.jsonl").read_text().splitlines() if line.strip()
    ]
    indexed = {e["file"] for e in index}
    assert len(indexed) == 64
    seen = {r["file"] for r in actual}
    assert indexed <= seen
    # glue/ holds the one non-verbatim file (a Helm template rendered by hand), documented in the README
    assert {f for f in seen - indexed} == {f for f in seen if f.startswith("glue/")}


def _errors(row: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in row.get("findings", []) if f["severity"] == "error"}


def test_beta_manifests_pass_where_the_cluster_enables_the_betas(actual: list[dict[str, Any]]) -> None:
    """With --runtime-config enabling both betas, only the served-version verdicts change."""
    enabled = verdicts(runtime_config="resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true")
    changed = [(a, b) for a, b in zip(actual, enabled, strict=True) if a != b]
    assert changed
    for before, after in changed:
        assert "API-VERSION-NOT-ENABLED" in _errors(before) and "API-VERSION-NOT-ENABLED" not in _errors(
            after
        )
        assert _errors(before) - {"API-VERSION-NOT-ENABLED"} == _errors(after)


@pytest.mark.parametrize(
    "fragment, rule",
    [
        ("e2e-example-pod-inline-v1alpha2.yaml", "POD-CLAIM-SOURCE"),
        ("list-resourceslice-placeholder-device.yaml", "SCHEMA-TYPE"),
        ("schedperf-deviceclass-consumablecapacity-v1beta2.yaml", "API-VERSION-NOT-ENABLED"),
        ("rct-mpi-config-misplaced.yaml", "SCHEMA-UNKNOWN-FIELD"),
    ],
)
def test_notable_broken_files_get_an_error(actual: list[dict[str, Any]], fragment: str, rule: str) -> None:
    rows = [r for r in actual if r["file"].endswith(fragment)]
    assert rows and any(rule in _errors(r) for r in rows)
