"""The corpus (``../shared/corpus``: real public DRA manifests) at schema level, Kubernetes 1.37.

``expected.jsonl`` is dractl's reviewed verdict for every object: each error carries a
one-line ``why`` saying what ``kubectl apply --dry-run=server --validate=strict`` against a
1.37 API server with default settings would answer.  Regenerate with
``python tests/corpus/corpus_verdicts.py --update`` and review every new ``why``.
"""

from __future__ import annotations

from typing import Any

import pytest
from corpus_verdicts import CORPUS, load_expected, verdicts
from verdict_table import assert_matches, assert_reviewed

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not checked out")


@pytest.fixture(scope="module")
def actual() -> list[dict[str, Any]]:
    return verdicts()


def test_matches_reviewed_expectations(actual: list[dict[str, Any]]) -> None:
    assert_matches(actual, load_expected())


def test_every_error_has_a_reviewed_why() -> None:
    assert_reviewed(load_expected())


def _rows(actual: list[dict[str, Any]], folder: str) -> list[dict[str, Any]]:
    return [r for r in actual if r["file"].startswith(folder + "/") and r["verdict"] != "input-error"]


def _errors(row: dict[str, Any]) -> set[str]:
    return {f["rule"] for f in row["findings"] if f["severity"] == "error"}


BETAS_ON = "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"


@pytest.fixture(scope="module")
def betas_on() -> list[dict[str, Any]]:
    """The verdicts on a 1.37 cluster that enables both betas (kube-apiserver --runtime-config)."""
    return verdicts(runtime_config=BETAS_ON)


def test_api_testdata_is_schema_valid_except_versions_off_by_default(actual: list[dict[str, Any]]) -> None:
    rows = _rows(actual, "k8s-api-testdata")
    assert len(rows) >= 10
    for row in rows:
        allowed = (
            {"API-VERSION-ALPHA"}
            if "v1alpha3" in row["file"]
            else {"API-VERSION-NOT-ENABLED"}
            if "v1beta" in row["file"]
            else set()
        )
        assert _errors(row) <= allowed, row


def test_beta_objects_are_not_served_by_default_and_deprecated_where_enabled(
    actual: list[dict[str, Any]], betas_on: list[dict[str, Any]]
) -> None:
    beta = [
        r
        for r in betas_on
        if r.get("findings")
        and any(f["rule"] == "API-VERSION-DEPRECATED" for f in r["findings"])
        and "v1beta1" in r["file"]
    ]
    assert beta
    for row in beta:
        assert not _errors(row), row
    by_key = {(r["file"], r["document"], r.get("item")): r for r in actual}
    for row in beta:
        assert _errors(by_key[(row["file"], row["document"], row.get("item"))]) == {"API-VERSION-NOT-ENABLED"}


def test_enabling_the_betas_changes_only_the_served_verdicts(
    actual: list[dict[str, Any]], betas_on: list[dict[str, Any]]
) -> None:
    def without_served(rows: list[dict[str, Any]]) -> list[list[tuple[str, str]]]:
        ignore = {"API-VERSION-NOT-ENABLED", "API-VERSION-DEPRECATED"}
        return [
            [(f["rule"], f["path"]) for f in r.get("findings", []) if f["rule"] not in ignore] for r in rows
        ]

    assert without_served(actual) == without_served(betas_on)


@pytest.mark.parametrize(
    "fragment, rule",
    [
        ("content__en__examples__dra__resourceclaim.yaml", "SCHEMA-UNKNOWN-FIELD"),
        ("docs__driver-attributes__L85-92.yaml", "SCHEMA-NO-APIVERSION"),
        ("pod-inline-aligned-gpus.yaml", "SCHEMA-NO-APIVERSION"),
        ("pod-inline-multiple.yaml", "POD-CLAIM-SOURCE"),
        ("demo__specs__mig+mps__sharing-demo-claims.yaml", "API-VERSION-NOT-SERVED"),
        ("broken-resourceclass.yaml", "API-VERSION-NOT-SERVED"),
        ("devicetaintpolicy.yaml", "SCHEMA-UNKNOWN-FIELD"),
    ],
)
def test_notable_broken_files_get_an_error(actual: list[dict[str, Any]], fragment: str, rule: str) -> None:
    rows = [r for r in actual if r["file"].endswith(fragment) and r["verdict"] != "input-error"]
    assert rows and any(rule in _errors(r) for r in rows)


def test_missing_pool_generation_is_only_a_warning(actual: list[dict[str, Any]]) -> None:
    rows = [r for r in actual if any(f["rule"] == "SCHEMA-REQUIRED-DEFAULTED" for f in r.get("findings", []))]
    assert any("kwok" in r["file"] for r in rows)
    for row in rows:
        assert all(
            f["severity"] == "warning" for f in row["findings"] if f["rule"] == "SCHEMA-REQUIRED-DEFAULTED"
        )


def test_templates_are_not_picked_up_by_directory_walks(actual: list[dict[str, Any]]) -> None:
    assert not any(r["file"].endswith(".tmpl") for r in actual)


# Where kubernetes-validate (a pure OpenAPI validator) reports an error that the API server would not.
BASELINE_FALSE_ALARMS = {
    "dranet/examples__azure_aks_examples__gb300__resource-claim.yaml": "status.devices[].conditions[].lastTransitionTime missing: status is discarded on create",
    "dranet/examples__azure_aks_examples__gb300__resourceslice-dranet.yaml": "spec.pool.generation missing: the server decodes it as 0 (warning only)",
    "kwok/site__content__en__docs__examples__dra__L89-123.yaml": "spec.pool.generation missing: the server decodes it as 0 (warning only)",
}


def test_every_kubernetes_validate_error_is_caught_or_explained(betas_on: list[dict[str, Any]]) -> None:
    # kubernetes-validate checks the schema of every version it has, served or not: compare with the
    # betas enabled so that "not served by default" does not count as catching a schema error.
    actual = betas_on
    baseline = CORPUS / "kubernetes-validate-baseline.tsv"
    lines = [line.split("\t") for line in baseline.read_text().splitlines()[1:]]
    flagged = {row[0].removeprefix("corpus/") for row in lines if row[1] == "1.37.0" and int(row[3]) > 0}
    assert flagged
    for file in sorted(flagged):
        rows = [r for r in actual if r["file"] == file]
        caught = any(r["verdict"] in ("invalid", "input-error") for r in rows)
        assert caught != (file in BASELINE_FALSE_ALARMS), file


def test_older_releases_follow_the_api_lifecycle() -> None:
    """At 1.34 nothing is deprecated yet and DeviceTaintRule v1/v1beta2 do not exist."""
    rows = [
        r for r in verdicts(kube_version="1.34", runtime_config=BETAS_ON) if r["verdict"] != "input-error"
    ]
    rules = {f["rule"] for r in rows for f in r["findings"]}
    assert "API-VERSION-DEPRECATED" not in rules
    taint_rules = [r for r in rows if r["kind"] == "DeviceTaintRule" and "v1alpha3" not in r["file"]]
    assert taint_rules
    for row in taint_rules:
        assert "API-VERSION-NOT-SERVED" in _errors(row) or "API-VERSION-ALPHA" in _errors(row), row
