"""Hypothesis strategies for fuzzing everything that reads input.

Later issues import these for their own commands::

    from strategies import fuzz_inputs, write_input   # tests/property is on sys.path under pytest

``fuzz_inputs()`` yields *bytes*: random binary, random text, YAML-ish text built from
Kubernetes-like objects, and real manifests broken in the ways people break them
(truncated, re-indented, tabs, stray anchors/tags/templates, other encodings).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

MANIFESTS = [
    """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu-claim
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
        selectors:
        - cel:
            expression: device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100'
""",
    """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu}
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      index: {int: 0}
      resource.kubernetes.io/pcieRoot: {string: pci0000:00}
    capacity:
      memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
""",
    """{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"a": "b"}}},
  {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
   "spec": {"deviceSelector": {"driver": "d"}, "taint": {"key": "k", "effect": "NoSchedule"}}}
]}
""",
    """apiVersion: dractl/v1alpha1
kind: Snapshot
serverVersion: v1.37.0
featureGates: {DRADeviceTaints: true}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  resourceClaims: [{name: gpus, resourceClaimTemplateName: t}]
  containers: [{name: c, resources: {claims: [{name: gpus}]}}]
""",
]

# Fragments people (and templates) leave in YAML.
NOISE = [
    "\t",
    ":",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a",
    "*b",
    "!Ref ",
    "!!binary ",
    "!!python/name:os.system ",
    "<<: *a\n",
    "{{ .Index }}",
    "---\n",
    "...\n",
    "'",
    '"',
    "#",
    "|\n",
    ">-\n",
    "? ",
    "%YAML 1.1\n",
    "\x00",
    "\x07",
    "\ufeff",
    "\u2028",
    "=",
    "~",
    "0x1F",
    "1e3",
    "yes",
    "  ",
    "\n",
    "\r\n",
]

keys = st.one_of(
    st.sampled_from(
        [
            "apiVersion",
            "kind",
            "metadata",
            "name",
            "spec",
            "devices",
            "items",
            "gpu.nvidia.com/model",
            "<<",
            "=",
        ]
    ),
    st.text(min_size=1, max_size=12),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["yes", "no", "~", "0o17", "1e3", "2024-01-01", "=", ""]),
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=25,
)
objects = st.fixed_dictionaries(
    {
        "apiVersion": st.sampled_from(["resource.k8s.io/v1", "resource.k8s.io/v1beta1", "v1"]),
        "kind": st.sampled_from(["ResourceSlice", "ResourceClaim", "DeviceClass", "DeviceTaintRule", "List"]),
        "metadata": st.fixed_dictionaries({"name": st.text(max_size=10)}),
    },
    optional={"spec": values, "items": st.lists(values, max_size=3)},
)


@st.composite
def broken_manifests(draw: st.DrawFn) -> str:
    """A real manifest with a few random edits: inserted noise, deletions, truncation, re-indentation."""
    text = draw(st.sampled_from(MANIFESTS))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "truncate", "indent", "duplicate-line"]))
        at = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:at] + draw(st.sampled_from(NOISE)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 5)) :]
        elif op == "truncate":
            text = text[:at]
        elif op == "indent":
            lines = text.split("\n")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            lines[i] = draw(st.sampled_from(["", " ", "  ", "\t", "    "])) + lines[i].lstrip()
            text = "\n".join(lines)
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
    return text


def yaml_text(obj_list: list[Any]) -> str:
    return yaml.safe_dump_all(obj_list, sort_keys=False)


def fuzz_inputs() -> st.SearchStrategy[bytes]:
    """Bytes that a command reading YAML/JSON input must survive (errors allowed, tracebacks not)."""
    encodings = st.sampled_from(["utf-8", "utf-16", "utf-16-le", "utf-32", "latin-1"])
    return st.one_of(
        st.binary(max_size=512),
        st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")),
        st.lists(st.sampled_from([*NOISE, "a", "b", "1"]), max_size=40).map(lambda p: "".join(p).encode()),
        st.lists(objects, min_size=1, max_size=3).map(lambda o: yaml_text(o).encode()),
        broken_manifests().map(lambda s: s.encode("utf-8", "surrogatepass")),
        st.tuples(st.sampled_from(MANIFESTS), encodings).map(lambda t: t[0].encode(t[1], "replace")),
    )


def write_input(folder: Path, data: bytes, suffix: str = ".yaml") -> Path:
    """Write fuzz bytes to ``folder/input<suffix>`` (overwritten each example) and return the path."""
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    return path
