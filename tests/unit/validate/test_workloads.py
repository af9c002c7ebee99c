"""Pod templates inside workloads (issue 14 item 1): checked as Pods, located at their real path."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.io import load_paths
from dractl.model.objects import Origin
from dractl.validate.engine import validate_docs
from dractl.validate.options import ValidateOptions
from dractl.validate.rules.workloads import TEMPLATE_PATHS, pod_templates, relocate


@dataclass
class FakeDoc:
    raw: dict[str, Any]
    origin: Origin = field(default_factory=lambda: Origin("in.yaml", 0))
    duplicate_keys: tuple[tuple[str, int, int], ...] = ()

    def position(self, path: str = "") -> tuple[int | None, int | None]:
        return None, None


POD_SPEC: dict[str, Any] = {
    "resourceClaims": [{"name": "gpu", "source": {"resourceClaimTemplateName": "gpu-template"}}],
    "containers": [{"name": "ctr", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}],
}


def _template(spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "a"}}, "spec": copy.deepcopy(spec or POD_SPEC)}


WORKLOADS: list[tuple[str, str, dict[str, Any], str]] = [
    ("apps/v1", "Deployment", {"spec": {"template": _template()}}, "spec.template"),
    ("apps/v1", "StatefulSet", {"spec": {"template": _template()}}, "spec.template"),
    ("apps/v1", "DaemonSet", {"spec": {"template": _template()}}, "spec.template"),
    ("apps/v1", "ReplicaSet", {"spec": {"template": _template()}}, "spec.template"),
    ("batch/v1", "Job", {"spec": {"template": _template()}}, "spec.template"),
    (
        "batch/v1",
        "CronJob",
        {"spec": {"jobTemplate": {"spec": {"template": _template()}}}},
        "spec.jobTemplate.spec.template",
    ),
    ("v1", "PodTemplate", {"template": _template()}, "template"),
    (
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        {"spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": _template()}}}]}},
        "spec.replicatedJobs[0].template.spec.template",
    ),
    (
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        {"spec": {"leaderWorkerTemplate": {"workerTemplate": _template()}}},
        "spec.leaderWorkerTemplate.workerTemplate",
    ),
]


def _load(tmp_path: Path, *objs: dict[str, Any]) -> Any:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(objs, sort_keys=False))
    return load_paths([str(path)])


@pytest.mark.parametrize("api_version, kind, body, where", WORKLOADS, ids=[w[1] for w in WORKLOADS])
def test_removed_claim_source_in_a_template_is_an_error_at_its_real_line(
    tmp_path: Path, api_version: str, kind: str, body: dict[str, Any], where: str
) -> None:
    obj = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w", "namespace": "ns"}, **body}
    loaded = _load(tmp_path, obj)
    before = copy.deepcopy(loaded.docs[0].raw)
    report = validate_docs(loaded.docs, ValidateOptions())
    assert loaded.docs[0].raw == before
    (f,) = [f for f in report.findings if f.rule == "POD-CLAIM-SOURCE"]
    assert f.path == f"{where}.spec.resourceClaims[0].source"
    text = (tmp_path / "in.yaml").read_text().splitlines()
    assert f.line is not None and text[f.line - 1].strip().startswith("source:")
    assert (f.kind, f.name, f.namespace) == (kind, "w", "ns")
    assert report.objects[0].status == "invalid" and report.summary.skipped == {}


def test_every_table_entry_has_a_case() -> None:
    kinds = {k for _, k, _, _ in WORKLOADS}
    assert kinds >= {k for _, k in TEMPLATE_PATHS} - {"ReplicationController"}


def test_pod_rules_apply_to_templates(tmp_path: Path) -> None:
    spec = {
        "resourceClaims": [
            {"name": "gpu", "resourceClaimTemplateName": "t"},
            {"name": "gpu", "resourceClaimName": "c", "resourceClaimTemplateName": "t"},
            {"name": "Bad_Name"},
        ],
        "containers": [
            {"name": "a", "resources": {"claims": [{"name": "gpu"}, {"name": "nic"}, {"name": "gpu"}]}}
        ],
    }
    obj = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "d"},
        "spec": {"template": {"spec": spec}},
    }
    report = validate_docs(_load(tmp_path, obj).docs, ValidateOptions())
    got = sorted((f.rule, f.error_type, f.path) for f in report.findings)
    base = "spec.template.spec"
    assert got == [
        ("POD-CLAIM-NAME", "Duplicate", f"{base}.resourceClaims[1].name"),
        ("POD-CLAIM-NAME", "Invalid", f"{base}.resourceClaims[2].name"),
        ("POD-CLAIM-ONEOF", "Invalid", f"{base}.resourceClaims[1]"),
        ("POD-CLAIM-ONEOF", "Invalid", f"{base}.resourceClaims[2]"),
        ("POD-CLAIM-REF", "Duplicate", f"{base}.containers[0].resources.claims[2]"),
        ("POD-CLAIM-REF", "NotFound", f"{base}.containers[0].resources.claims[1]"),
    ]
    ref = next(f for f in report.findings if f.error_type == "NotFound")
    assert (
        ref.message == 'Not found: "nic": must be one of the names in pod.spec.resourceClaims: Bad_Name, gpu'
    )


def test_a_valid_pod_has_no_findings() -> None:
    from dractl.validate.rules.pod import check_pod

    pod = {
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
            "initContainers": [{"name": "i", "resources": {"claims": [{"name": "gpu"}]}}],
            "containers": [{"name": "a", "resources": {"claims": [{"name": "gpu", "request": "r"}]}}],
        }
    }
    assert check_pod(pod, ValidateOptions()) == []
    empty = check_pod(
        {"spec": {"containers": [{"resources": {"claims": [{"name": "x"}]}}]}}, ValidateOptions()
    )
    assert [f.message for f in empty] == [
        'Not found: "x": must be one of the names in pod.spec.resourceClaims which is empty'
    ]


@pytest.mark.parametrize(
    "raw",
    [
        {"apiVersion": "apps/v1", "kind": "Deployment"},
        {"apiVersion": "apps/v1", "kind": "Deployment", "spec": None},
        {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": "x"}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": [1]}}},
        {"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": []}},
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": {"replicatedJobs": {"a": 1}}},
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": {"replicatedJobs": [None, 3]}},
    ],
)
def test_malformed_workloads_never_raise(raw: dict[str, Any]) -> None:
    report = validate_docs([FakeDoc(raw)], ValidateOptions())
    assert all(f.rule.startswith("SCHEMA-") for f in report.findings)


def test_templates_of_other_kinds_and_relocation() -> None:
    assert pod_templates({"apiVersion": "v1", "kind": "ConfigMap", "spec": {"template": {}}}) == []
    ((path, pod),) = pod_templates(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"namespace": "n"},
            "spec": {"template": {"spec": {"containers": []}}},
        }
    )
    assert path == "spec.template" and pod["metadata"]["namespace"] == "n" and pod["kind"] == "Pod"
    from dractl.validate.findings import Finding, Severity

    moved = relocate(Finding(Severity.ERROR, "X", "spec.a: Required value", "spec.a"), "spec.template")
    assert (moved.path, moved.message) == ("spec.template.spec.a", "spec.template.spec.a: Required value")


HELM = Path(__file__).resolve().parents[2] / "fixtures" / "workloads" / "helm-render.yaml"


def test_helm_render_with_a_daemonset_is_checked_like_pods() -> None:
    """`helm template … | dractl lint -`: the DaemonSet's removed `source:` shape fails (as at apply),
    the Deployment's claim reference and template name are caught, each at its real line."""
    from dractl.validate.lint import lint

    loaded = load_paths([str(HELM)])
    opts = ValidateOptions()
    found = list(validate_docs(loaded.docs, opts).findings) + lint(loaded.docs, opts)
    lines = HELM.read_text().splitlines()
    got = {(f.kind, f.rule, f.severity.value, lines[(f.line or 1) - 1].strip()) for f in found}
    assert got == {
        ("DaemonSet", "POD-CLAIM-SOURCE", "error", "source:"),
        ("Deployment", "POD-CLAIM-REF", "error", "- name: gpus"),
        ("Deployment", "ADV-TEMPLATE-EXISTS", "warning", "resourceClaimTemplateName: inference-gpus"),
        (
            "Deployment",
            "ADV-CLASS-EXISTS",
            "warning",
            'deviceclass.resource.kubernetes.io/nic.example.com: "1"',
        ),
    }


def test_template_in_another_namespace_is_not_found(tmp_path: Path) -> None:
    from dractl.validate.lint import lint

    rct = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "a"},
        "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "c"}}]}}},
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "b"},
        "spec": {"template": {"spec": {"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "t"}]}}},
    }
    loaded = _load(tmp_path, rct, job)
    assert [f.rule for f in lint(loaded.docs, ValidateOptions()) if f.kind == "Job"] == [
        "ADV-TEMPLATE-EXISTS"
    ]
    same = _load(tmp_path, rct, {**job, "metadata": {"name": "j", "namespace": "a"}})
    assert [f.rule for f in lint(same.docs, ValidateOptions()) if f.kind == "Job"] == []
