"""The corpus (``../shared/corpus``) under the API server's semantic rules, Kubernetes 1.37, on create.

``expected-semantic.jsonl`` holds, per object with semantic findings, what dractl's rules
(``dractl.validate.rules``, through the engine) report beyond the schema; every error has a
reviewed ``why`` (what the 1.37 API server answers and why).  Warnings are recorded but don't
count.  The scheduler_perf ``.yaml.tmpl`` files are rendered with ``Index=0`` first.
Regenerate with ``python tests/corpus/test_corpus_semantic.py --update`` (keeps reviewed whys;
new errors get "TODO", which the test rejects).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"
EXPECTED = Path(__file__).with_name("expected-semantic.jsonl")
KUBE_VERSION = "1.37"
ENGINE_PREFIXES = frozenset({"SCHEMA", "API", "POD"})

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not checked out")

_PLACEHOLDER = "every-field fixture of kubernetes/api: the placeholder "
# Reviewed reasons, by (folder or file, rule).  Each says what the 1.37 API server answers on create.
WHY: dict[tuple[str, str], str] = {
    ("k8s-api-testdata", "META-NAME-FMT"): _PLACEHOLDER
    + "name 'nameValue' has upper case: not a DNS subdomain",
    ("k8s-api-testdata", "META-GENNAME"): _PLACEHOLDER
    + "generateName 'generateNameValue' is not a DNS prefix",
    ("k8s-api-testdata", "META-NS-REQ"): _PLACEHOLDER + "namespace 'namespaceValue' is not a DNS label",
    ("k8s-api-testdata", "RCT-TMPL-META"): _PLACEHOLDER + "template metadata sets fields other than labels/"
    "annotations; ValidateTemplateObjectMeta forbids each",
    ("k8s-api-testdata", "RC-REQ-NAME"): _PLACEHOLDER + "request name 'nameValue' is not a DNS label",
    ("k8s-api-testdata", "RC-REQ-ONEOF"): _PLACEHOLDER + "request sets both exactly and firstAvailable "
    "(v1beta1: flat fields plus firstAvailable)",
    ("k8s-api-testdata", "RC-REF"): _PLACEHOLDER + "'requestsValue' is not a DNS label and names no request",
    ("k8s-api-testdata", "RC-CON-ATTR"): _PLACEHOLDER + "matchAttribute 'matchAttributeValue' has no domain",
    ("k8s-api-testdata", "RC-CEL-COMPILE"): _PLACEHOLDER + "selector 'expressionValue' is an undeclared "
    "reference: compilation fails",
    ("k8s-api-testdata", "DC-EXTRES"): _PLACEHOLDER + "'extendedResourceNameValue' has no domain: not an "
    "extended resource name",
    ("k8s-api-testdata", "DTR-SEL-FIELDS"): _PLACEHOLDER + "pool/device names have upper case",
    ("k8s-api-testdata", "DTR-TAINT"): _PLACEHOLDER
    + "taint effect 'effectValue' is not NoSchedule/NoExecute/None",
    ("k8s-api-testdata", "RS-PARTTYPE"): _PLACEHOLDER + "partitionTypeAttribute is Forbidden while the alpha "
    "gate DRAPartitionableDevicesType is off (1.37 default)",
    ("k8s-api-testdata", "RS-POOL-NAME"): _PLACEHOLDER + "pool name 'nameValue' is not a DNS subdomain",
    ("k8s-api-testdata", "RS-NODENAME-FMT"): _PLACEHOLDER + "nodeName 'nodeNameValue' is not a DNS subdomain",
    ("k8s-api-testdata", "CORE-NS-EXPR-OP"): _PLACEHOLDER
    + "node selector operator 'operatorValue' is unknown",
    ("k8s-api-testdata", "CORE-NS-FIELDS"): _PLACEHOLDER + "matchFields needs key metadata.name and In/NotIn",
    ("k8s-api-testdata", "RS-NODESEL-ONE"): _PLACEHOLDER
    + "all four node-selection fields are set; exactly one "
    "is allowed",
    ("k8s-api-testdata", "RS-DEVICES-XOR-COUNTERS"): _PLACEHOLDER + "devices and sharedCounters in one slice "
    "(rejected since 1.35)",
    ("k8s-api-testdata", "RS-DEV-NAME"): _PLACEHOLDER + "device name 'nameValue' is not a DNS label",
    ("k8s-api-testdata", "RS-ATTR-VERSION"): _PLACEHOLDER + "version 'versionValue' is not SemVer",
    ("k8s-api-testdata", "RS-ATTR-ONEOF"): _PLACEHOLDER
    + "attribute sets int, bool, string and version at once "
    "(list forms are dropped: DRAListTypeAttributes is off)",
    ("k8s-api-testdata", "RS-CAP-POLICY-ONEOF"): _PLACEHOLDER
    + "requestPolicy sets validValues and validRange",
    ("k8s-api-testdata", "RS-TAINT-EFFECT"): _PLACEHOLDER + "device taint effect 'effectValue' is unknown",
    ("k8s-api-testdata", "RS-CONSUMES-SET"): _PLACEHOLDER + "counterSet 'counterSetValue' is not a DNS label",
    ("k8s-api-testdata", "RS-CONSUMES-COUNTERS"): _PLACEHOLDER + "counter 'countersKey' is not a DNS label",
    ("k8s-api-testdata", "RS-DEV-NODESEL-PERDEV"): _PLACEHOLDER
    + "device sets nodeName, nodeSelector and allNodes "
    "(exactly one allowed); nodeName has upper case",
    ("k8s-api-testdata", "RS-COUNTERSET-NAME"): _PLACEHOLDER
    + "counter set name 'nameValue' is not a DNS label",
    ("k8s-api-testdata", "RS-COUNTERSET-COUNTERS"): _PLACEHOLDER + "counter 'countersKey' is not a DNS label",
    (
        "amd-rocm-gpu-dra-driver/docs__demo__L72-108.yaml",
        "RS-POOL-NAME",
    ): "the console excerpt omits spec.pool: the server decodes an empty pool name (Required)",
    (
        "amd-rocm-gpu-dra-driver/docs__demo__L72-108.yaml",
        "RS-POOL-COUNT",
    ): "the console excerpt omits spec.pool: resourceSliceCount decodes as 0 (must be greater than zero)",
    (
        "amd-rocm-gpu-dra-driver/docs__demo__L72-108.yaml",
        "RS-NODESEL-ONE",
    ): "the console excerpt omits nodeName/nodeSelector/allNodes: exactly one is required",
    (
        "dra-driver-cpu",
        "RS-ATTR-ONEOF",
    ): "pcieRoot is published as 'strings' (a list attribute); DRAListTypeAttributes is alpha/off in 1.37, so "
    "the server drops the list and the attribute is left without a value",
    (
        "kubernetes-scheduler-perf",
        "RS-DEVICES-XOR-COUNTERS",
    ): "older scheduler_perf template: sharedCounters and devices in one slice, rejected since 1.35",
}


def _why(row: dict[str, Any], rule: str) -> str:
    file = row["file"]
    for key in (file, file.split("/")[0]):
        if (key, rule) in WHY:
            return WHY[(key, rule)]
    return "TODO"


def _rel(file: str) -> str:
    return os.path.relpath(file, CORPUS).replace(os.sep, "/")


def _templates() -> list[Any]:
    """The scheduler_perf templates rendered with Index=0, as loaded documents."""
    from dractl.io.loader import load_paths

    out = []
    for tmpl in sorted(CORPUS.glob("kubernetes-scheduler-perf/*.yaml.tmpl")):
        text = tmpl.read_text().replace("{{.Index}}", "0")
        from tempfile import TemporaryDirectory

        with TemporaryDirectory() as tmp:
            path = Path(tmp) / tmpl.name.removesuffix(".tmpl")
            path.write_text(text)
            for doc in load_paths([str(path)]).docs:
                out.append((_rel(str(tmpl)), doc))
    return out


def actual_rows() -> list[dict[str, Any]]:
    """One row per object that has semantic findings (plus rendered templates), in load order."""
    from dractl.io.loader import load_paths
    from dractl.validate.engine import check_doc
    from dractl.validate.options import ValidateOptions

    opts = ValidateOptions(kube_version=KUBE_VERSION)
    docs = [(_rel(d.origin.file), d) for d in load_paths([str(CORPUS)]).docs] + _templates()
    rows = []
    for file, doc in docs:
        result, findings = check_doc(doc, opts)
        # the engine's own schema, API-version and Pod rules are not the API server's semantic rules
        semantic = [f for f in findings if f.rule.split("-", 1)[0] not in ENGINE_PREFIXES]
        if not semantic:
            continue
        row: dict[str, Any] = {
            "file": file,
            "document": doc.origin.document,
            "kind": result.kind,
            "name": result.name,
        }
        row["findings"] = [
            {
                "rule": f.rule,
                "severity": f.severity.value,
                "errorType": f.error_type,
                "line": f.line,
                "path": f.path,
            }
            for f in sorted(semantic, key=lambda f: (f.line or 0, f.rule, f.path, f.message))
        ]
        rows.append(row)
    return rows


def load_expected() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXPECTED.read_text().splitlines() if line.strip()]


def _strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**r, "findings": [{k: v for k, v in f.items() if k != "why"} for f in r["findings"]]} for r in rows
    ]


def update() -> int:
    rows = actual_rows()
    todo = 0
    for row in rows:
        for f in row["findings"]:
            if f["severity"] == "error":
                f["why"] = _why(row, f["rule"])
                todo += f["why"] == "TODO"
    EXPECTED.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} records; {todo} errors need a reviewed 'why'")
    return 1 if todo else 0


@pytest.fixture(scope="module")
def actual() -> list[dict[str, Any]]:
    return actual_rows()


def test_matches_reviewed_expectations(actual: list[dict[str, Any]]) -> None:
    assert _strip(actual) == _strip(load_expected())


def test_every_error_has_a_reviewed_why() -> None:
    for row in load_expected():
        for f in row["findings"]:
            if f["severity"] == "error":
                assert f.get("why") and f["why"] != "TODO", (row["file"], f["rule"])


def _errors(actual: list[dict[str, Any]], fragment: str) -> set[str]:
    return {
        f["rule"] for r in actual if fragment in r["file"] for f in r["findings"] if f["severity"] == "error"
    }


def test_every_api_testdata_object_is_rejected(actual: list[dict[str, Any]]) -> None:
    served = [p for p in (CORPUS / "k8s-api-testdata").glob("*.yaml") if "v1alpha3" not in p.name]
    for path in served:
        assert _errors(actual, path.name), path.name  # semantically invalid by design


@pytest.mark.parametrize(
    "fragment, rule",
    [
        ("resourceslice-partitionable.yaml.tmpl", "RS-DEVICES-XOR-COUNTERS"),
        ("testdata__HEAD__resource.k8s.io.v1.DeviceClass.yaml", "RC-CEL-COMPILE"),
        ("testdata__HEAD__resource.k8s.io.v1.ResourceSlice.yaml", "RS-NODESEL-ONE"),
        ("testdata__HEAD__resource.k8s.io.v1beta1.ResourceClaim.yaml", "RC-REQ-ONEOF"),
    ],
)
def test_known_bad_files_get_the_right_rule(actual: list[dict[str, Any]], fragment: str, rule: str) -> None:
    assert rule in _errors(actual, fragment)


def test_duplicate_tpu_uuid_is_linted() -> None:
    from dractl.io.loader import load_paths
    from dractl.validate.lint import lint
    from dractl.validate.options import ValidateOptions

    docs = load_paths([str(CORPUS / "dra-driver-google-tpu" / "README__L67-105.yaml")]).docs
    assert "LINT-DUPLICATE-UUID" in {f.rule for f in lint(docs, ValidateOptions())}


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/corpus/test_corpus_semantic.py --update")
    sys.path.insert(0, str(REPO))
    sys.exit(update())
