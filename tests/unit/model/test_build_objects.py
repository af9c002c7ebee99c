"""build_object: v1, v1beta1 and v1beta2 inputs become the same v1 model objects."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.io import load_paths
from dractl.model import objects as o
from dractl.model.build import build_object
from dractl.model.quantity import Quantity, QuantityError

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus not present")

V1_SLICE = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu, labels: {team: ml}}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 3, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: NVIDIA H100}
      index: {int: 0}
      driverVersion: {version: 580.82.7}
      mig: {bool: false}
    capacity:
      memory: {value: 80Gi}
    taints:
    - {key: maintenance, value: "true", effect: NoSchedule}
"""

V1BETA1_SLICE = """
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: node-a-gpu, labels: {team: ml}}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 3, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        productName: {string: NVIDIA H100}
        index: {int: 0}
        driverVersion: {version: 580.82.7}
        mig: {bool: false}
      capacity:
        memory: {value: 80Gi}
      taints:
      - {key: maintenance, value: "true", effect: NoSchedule}
"""

V1_CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.nvidia.com
        allocationMode: ExactCount
        count: 2
        selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].index < 4"}}]
        tolerations: [{key: maintenance, operator: Exists}]
    - name: any
      firstAvailable:
      - {name: big, deviceClassName: gpu.nvidia.com, count: 1}
      - {name: small, deviceClassName: mig.nvidia.com, allocationMode: All}
    constraints:
    - {requests: [gpus], matchAttribute: gpu.nvidia.com/pcieRoot}
"""

V1BETA1_CLAIM = """
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ml}
spec:
  devices:
    requests:
    - name: gpus
      deviceClassName: gpu.nvidia.com
      allocationMode: ExactCount
      count: 2
      selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].index < 4"}}]
      tolerations: [{key: maintenance, operator: Exists}]
    - name: any
      firstAvailable:
      - {name: big, deviceClassName: gpu.nvidia.com, count: 1}
      - {name: small, deviceClassName: mig.nvidia.com, allocationMode: All}
    constraints:
    - {requests: [gpus], matchAttribute: gpu.nvidia.com/pcieRoot}
"""


def raw(text: str) -> dict[str, Any]:
    value: dict[str, Any] = yaml.safe_load(text)
    return value


def test_v1_resource_slice() -> None:
    sl = build_object(raw(V1_SLICE), o.Origin("s.yaml", 2))
    assert isinstance(sl, o.ResourceSlice)
    assert sl.origin == o.Origin("s.yaml", 2)
    assert (sl.driver, sl.pool, sl.node_name) == ("gpu.nvidia.com", o.ResourcePool("node-a", 3, 1), "node-a")
    (dev,) = sl.devices
    assert dev.id == "gpu.nvidia.com/node-a/gpu-0"
    assert dev.attributes == {
        "productName": o.AttributeValue("string", "NVIDIA H100"),
        "index": o.AttributeValue("int", 0),
        "driverVersion": o.AttributeValue("version", "580.82.7"),
        "mig": o.AttributeValue("bool", False),
    }
    assert dev.capacity["memory"].value == Quantity.parse("80Gi")
    assert dev.capacity["memory"].value.value == 80 * 2**30
    assert dev.taints == (o.DeviceTaint("maintenance", "true", "NoSchedule"),)
    assert sl.meta.labels == {"team": "ml"}


def test_v1beta1_basic_devices_become_v1_devices() -> None:
    a = build_object(raw(V1_SLICE))
    b = build_object(raw(V1BETA1_SLICE))
    assert isinstance(a, o.ResourceSlice) and isinstance(b, o.ResourceSlice)
    assert b.devices == a.devices
    assert b.api_version == "resource.k8s.io/v1beta1"  # kept so the validator can warn


def test_v1beta1_flat_requests_become_exactly() -> None:
    a = build_object(raw(V1_CLAIM))
    b = build_object(raw(V1BETA1_CLAIM))
    assert isinstance(a, o.ResourceClaim) and isinstance(b, o.ResourceClaim)
    assert b.spec == a.spec
    gpus, anyr = b.spec.requests
    assert gpus.exactly is not None and gpus.first_available == ()
    assert (gpus.exactly.device_class_name, gpus.exactly.count) == ("gpu.nvidia.com", 2)
    assert gpus.exactly.selectors == ("device.attributes['gpu.nvidia.com'].index < 4",)
    assert gpus.exactly.tolerations == (o.DeviceToleration("maintenance", "Exists"),)
    assert anyr.exactly is None
    assert [(s.name, s.device_class_name, s.allocation_mode, s.count) for s in anyr.first_available] == [
        ("big", "gpu.nvidia.com", "ExactCount", 1),
        ("small", "mig.nvidia.com", "All", 0),
    ]


def test_v1beta2_is_already_v1_shaped() -> None:
    a = build_object(raw(V1_CLAIM))
    b = build_object(raw(V1_CLAIM.replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta2\n")))
    assert isinstance(a, o.ResourceClaim) and isinstance(b, o.ResourceClaim)
    assert b.spec == a.spec and b.api_version == "resource.k8s.io/v1beta2"


def test_template_with_v1beta1_requests() -> None:
    body = V1BETA1_CLAIM.split("spec:\n", 1)[1].replace("\n  ", "\n    ")
    text = (
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\n"
        "spec:\n  metadata:\n    labels: {a: b}\n  spec:\n  " + body
    )
    t = build_object(raw(text))
    c = build_object(raw(V1_CLAIM))
    assert isinstance(t, o.ResourceClaimTemplate) and isinstance(c, o.ResourceClaim)
    assert t.spec == c.spec
    assert t.template_labels == {"a": "b"}


def test_allocated_claim_status() -> None:
    text = (
        V1_CLAIM
        + """status:
  allocation:
    devices:
      results:
      - {request: gpus, driver: gpu.nvidia.com, pool: node-a, device: gpu-0}
      - {request: gpus, driver: gpu.nvidia.com, pool: node-a, device: gpu-1, consumedCapacity: {memory: 10Gi}}
    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-a]}]}]}
  reservedFor: [{resource: pods, name: p, uid: u}]
"""
    )
    c = build_object(raw(text))
    assert isinstance(c, o.ResourceClaim) and c.allocation is not None
    assert [r.device_id for r in c.allocation.results] == [
        "gpu.nvidia.com/node-a/gpu-0",
        "gpu.nvidia.com/node-a/gpu-1",
    ]
    assert c.allocation.results[1].consumed_capacity == {"memory": Quantity.parse("10Gi")}
    assert c.reserved_for == (o.ResourceClaimConsumerReference("pods", "p", "u"),)


@pytest.mark.parametrize("kind", ["DeviceClass", "DeviceTaintRule", "Node", "Pod"])
def test_other_kinds_build(kind: str) -> None:
    samples = {
        "DeviceClass": "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\n"
        "spec: {selectors: [{cel: {expression: 'true'}}], extendedResourceName: example.com/gpu}\n",
        "DeviceTaintRule": "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec: {deviceSelector: {driver: d, pool: p}, taint: {key: k, effect: NoExecute}}\n",
        "Node": "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
        "spec: {unschedulable: true, taints: [{key: k, effect: NoSchedule}]}\n",
        "Pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  nodeName: n\n"
        "  resourceClaims: [{name: gpus, resourceClaimTemplateName: t}]\n"
        "  containers: [{name: c, resources: {claims: [{name: gpus}], limits: {example.com/gpu: 1}}}]\n"
        "status: {resourceClaimStatuses: [{name: gpus, resourceClaimName: p-gpus}]}\n",
    }
    obj = build_object(raw(samples[kind]))
    assert obj.kind == kind
    if isinstance(obj, o.DeviceClass):
        assert obj.selectors == ("true",) and obj.extended_resource_name == "example.com/gpu"
    elif isinstance(obj, o.DeviceTaintRule):
        assert obj.device_selector == o.DeviceTaintSelector("d", "p")
        assert obj.taint == o.DeviceTaint("k", "", "NoExecute")
    elif isinstance(obj, o.Node):
        assert obj.unschedulable and obj.taints == (o.Taint("k", "", "NoSchedule"),)
    elif isinstance(obj, o.Pod):
        assert obj.resource_claims == (o.PodResourceClaim("gpus", None, "t"),)
        assert obj.containers[0].claims == (("gpus", None),)
        assert obj.containers[0].limits == {"example.com/gpu": "1"}
        assert obj.claim_statuses == {"gpus": "p-gpus"}


def test_unknown_kind_and_bad_quantity_raise() -> None:
    with pytest.raises(KeyError):
        build_object({"apiVersion": "apps/v1", "kind": "Deployment"})
    bad = raw(V1_SLICE.replace("80Gi", "80 GB"))
    with pytest.raises(QuantityError):
        build_object(bad)


def test_wrong_types_read_as_absent() -> None:
    obj = build_object(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": "oops",
            "spec": {"driver": 7, "devices": {"not": "a list"}, "pool": []},
        }
    )
    assert isinstance(obj, o.ResourceSlice)
    assert (obj.meta.name, obj.driver, obj.devices, obj.pool.name) == ("", "", (), "")


def test_build_does_not_mutate_its_input() -> None:
    for text in (V1BETA1_SLICE, V1BETA1_CLAIM):
        r = raw(text)
        before = copy.deepcopy(r)
        build_object(r)
        assert r == before


def _norm(spec: o.ResourceClaimSpec) -> o.ResourceClaimSpec:
    """The spec with CEL whitespace collapsed (one upstream pair re-indents a multi-line selector)."""

    def exprs(sel: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(" ".join(s.split()) for s in sel)

    reqs = []
    for r in spec.requests:
        exact = replace(r.exactly, selectors=exprs(r.exactly.selectors)) if r.exactly else None
        subs = tuple(replace(s, selectors=exprs(s.selectors)) for s in r.first_available)
        reqs.append(replace(r, exactly=exact, first_available=subs))
    return replace(spec, requests=tuple(reqs))


@needs_corpus
def test_nvidia_quickstart_v1beta1_and_v1_files_build_the_same_objects() -> None:
    folder = CORPUS / "dra-driver-nvidia-gpu"
    pairs = 0
    for beta in sorted(folder.glob("demo__specs__quickstart__v1beta1__*.yaml")):
        v1 = folder / beta.name.replace("__v1beta1__", "__v1__")
        a, b = load_paths([str(v1)]), load_paths([str(beta)])
        dra_a = [d for d in a.docs if (d.api_version or "").startswith("resource.k8s.io/")]
        dra_b = [d for d in b.docs if d.api_version == "resource.k8s.io/v1beta1"]
        if not v1.exists() or len(dra_a) != len(dra_b) or not dra_b:
            continue  # e.g. a v1alpha3 file stored under the v1beta1 name
        for da, db in zip(dra_a, dra_b, strict=True):
            oa, ob = build_object(da.raw), build_object(db.raw)
            assert isinstance(oa, o.ResourceClaim | o.ResourceClaimTemplate)
            assert isinstance(ob, o.ResourceClaim | o.ResourceClaimTemplate)
            assert _norm(ob.spec) == _norm(oa.spec), f"{beta.name} document {db.origin.document}"
            pairs += 1
    assert pairs >= 8


@needs_corpus
@pytest.mark.parametrize("kind", ["ResourceSlice", "DeviceClass"])
def test_api_testdata_fixtures_agree_across_versions(kind: str) -> None:
    built = {}
    for version in ("v1", "v1beta1", "v1beta2"):
        f = CORPUS / "k8s-api-testdata" / f"testdata__HEAD__resource.k8s.io.{version}.{kind}.yaml"
        (doc,) = load_paths([str(f)]).docs
        built[version] = build_object(doc.raw)
    if kind == "ResourceSlice":
        devices = {v: b.devices for v, b in built.items() if isinstance(b, o.ResourceSlice)}
        assert devices["v1beta1"] == devices["v1"] == devices["v1beta2"]
        assert len(devices["v1"]) == 1 and devices["v1"][0].attributes
    else:
        sel = {v: (b.selectors, b.config) for v, b in built.items() if isinstance(b, o.DeviceClass)}
        assert sel["v1beta1"] == sel["v1"] == sel["v1beta2"]
