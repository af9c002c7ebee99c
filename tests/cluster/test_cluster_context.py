"""The live cluster as context for the cross-object lint checks."""

from __future__ import annotations

from pathlib import Path

from dractl.cluster.context import context_docs
from dractl.cluster.options import ClusterOptions
from dractl.io.loader import load_paths
from dractl.model.features import Features
from dractl.validate.lint import lint
from dractl.validate.options import ValidateOptions

CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].productName == 'B200'"}}]
"""


def test_cluster_objects_are_lint_context(kubeconfig: Path, tmp_path: Path) -> None:
    described, version, docs = context_docs(ClusterOptions(all_namespaces=True))
    assert described.startswith("cluster: context loopback") and version == "v1.37.1"
    assert {d.kind for d in docs} >= {"DeviceClass", "ResourceSlice", "Node"}
    assert all(d.origin.file == "cluster:loopback" for d in docs)
    (tmp_path / "claim.yaml").write_text(CLAIM)
    inputs = load_paths([str(tmp_path / "claim.yaml")]).docs
    opts = ValidateOptions(kube_version="1.37", features=Features.for_version("1.37"))
    with_cluster = lint(inputs, opts, context_docs=docs)
    without = lint(inputs, opts)
    assert [f.rule for f in without] == ["ADV-CLASS-EXISTS"]  # no context: the class is unknown
    assert [(f.rule, f.message) for f in with_cluster] == [
        (
            "LINT-SELECTOR-NO-MATCH",
            "request 'gpu' matches 0 of the 6 devices of class 'gpu.nvidia.com' in the inputs",
        )
    ]
