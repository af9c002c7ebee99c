"""Acceptance: the attributes dractl publishes have the names and types real drivers publish.

The reference is the real captures in ../shared/corpus/: the NVIDIA driver's attribute
reference (GPU, MIG), the cloud captures of gpu.nvidia.com and dra.net slices, and
dra-driver-cpu's documented slices (grouped and individual mode).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from discover_support import CORPUS, H100

from dractl.discover import BuildOptions, Inventory, build
from dractl.discover.build_net import nic_devices

Types = dict[str, set[str]]
# Published by the drivers' current source but absent from the captured slices: (name, type, where).
KNOWN_EXTRAS = {
    "gpu": {"resource.kubernetes.io/numaNode": "int"},  # deviceinfo.go addNumaNodeAttribute
    "nic": {
        "dra.net/isSriovVf": "bool",  # dranet pkg/apis/attributes.go AttrIsSriovVf (only on VFs)
        "resource.kubernetes.io/numaNode": "int",
    },  # dranet inventory addPCIAttributes
}


def _devices(doc: Any) -> list[dict[str, Any]]:
    if isinstance(doc, list):
        return [d for d in doc if isinstance(d, dict)]
    if not isinstance(doc, dict):
        return []
    if doc.get("kind") == "List":
        return [d for item in doc.get("items", []) for d in _devices(item)]
    return list((doc.get("spec") or {}).get("devices") or [])


def corpus_types(pattern: str, keep: Any = lambda name: True) -> tuple[Types, Types]:
    attrs: Types = defaultdict(set)
    caps: Types = defaultdict(set)
    files = sorted(CORPUS.glob(pattern))
    assert files, f"no corpus files match {pattern} (is ../shared present?)"
    for path in files:
        for doc in yaml.safe_load_all(path.read_text()):
            for dev in _devices(doc):
                for name, value in (dev.get("attributes") or {}).items():
                    if keep(name):
                        attrs[name] |= set(value)
                for name in dev.get("capacity") or {}:
                    caps[name].add("quantity")
    return attrs, caps


def our_types(devices: list[dict[str, Any]], where: Any = lambda d: True) -> tuple[Types, Types]:
    attrs: Types = defaultdict(set)
    caps: Types = defaultdict(set)
    for dev in devices:
        if not where(dev):
            continue
        for name, value in dev.get("attributes", {}).items():
            attrs[name] |= set(value)
        for name in dev.get("capacity", {}):
            caps[name].add("quantity")
    return attrs, caps


def assert_matches(ours: Types, real: Types, extras: dict[str, str], require_all: bool = True) -> None:
    for name, types in ours.items():
        if name in real:
            assert types <= real[name], f"{name}: we publish {types}, real drivers {real[name]}"
        else:
            assert name in extras and types == {extras[name]}, (
                f"{name} ({types}) is not published by real drivers"
            )
    if require_all:
        missing = set(real) - set(ours)
        assert not missing, f"real drivers publish {sorted(missing)} that we do not"


def slices(inv: Inventory, **kw: Any) -> list[dict[str, Any]]:
    opts = BuildOptions(node=inv.node, **kw)
    return [d for s in build(inv, opts).slices for d in s["spec"].get("devices", [])]


def is_gpu(d: dict[str, Any]) -> bool:
    return d["attributes"]["type"] == {"string": "gpu"}


def is_mig(d: dict[str, Any]) -> bool:
    return d["attributes"]["type"] == {"string": "mig"}


GPU_CAPTURES = "dranet/examples__*resourceslice-gpu.yaml"
NV_DOC = "dra-driver-nvidia-gpu/site__content__docs__reference__resourceslice-attributes__L{}.yaml"


def test_full_gpu_attributes_match_real_nvidia_slices(h100: Inventory) -> None:
    real, real_caps = corpus_types(GPU_CAPTURES)
    doc, _ = corpus_types(NV_DOC.format("43-72"))
    for name, types in doc.items():
        real[name] |= types
    ours, caps = our_types(slices(h100, kinds=frozenset({"gpu"})), is_gpu)
    assert_matches(ours, real, KNOWN_EXTRAS["gpu"])
    assert set(caps) == set(real_caps) == {"memory"}


def test_mig_attributes_match_the_nvidia_reference(h100: Inventory) -> None:
    real, real_caps = corpus_types(NV_DOC.format("78-120"))
    ours, caps = our_types(slices(h100, kinds=frozenset({"gpu"})), is_mig)
    assert ours, "the fixture has MIG devices"
    assert_matches(ours, real, KNOWN_EXTRAS["gpu"])
    # Static MIG devices also carry one memorySlice<i> capacity per occupied slice (deviceinfo.go).
    assert {c for c in caps if not re.fullmatch(r"memorySlice\d", c)} == set(real_caps)


def test_partitionable_devices_use_the_same_names(h100: Inventory) -> None:
    real, real_caps = corpus_types(NV_DOC.format("78-120"))
    ours, caps = our_types(slices(h100, kinds=frozenset({"gpu"}), mig_mode="partitionable"), is_mig)
    assert_matches(ours, {**real, "uuid": set()}, KNOWN_EXTRAS["gpu"], require_all=False)
    assert "uuid" not in ours  # an abstract placement has no MIG UUID yet
    assert set(caps) == set(real_caps)


def test_nic_attributes_match_real_dranet_slices(connectx: Inventory) -> None:
    real, _ = corpus_types(
        "dranet/examples__*resourceslice-dranet.yaml",
        keep=lambda n: n.startswith(("dra.net/", "resource.kubernetes.io/")),
    )
    ours, caps = our_types(nic_devices(connectx, lambda m: None))
    assert not caps
    assert_matches(ours, real, KNOWN_EXTRAS["nic"], require_all=False)
    # Everything a real dranet slice shows is published, except what sysfs cannot tell.
    missing = set(real) - set(ours)
    assert missing == {"dra.net/ipv4", "dra.net/ebpf"}


@pytest.mark.parametrize(("mode", "capture"), [("grouped", "L84-142"), ("individual", "L150-211")])
def test_cpu_attributes_match_dra_driver_cpu(epyc: Inventory, mode: str, capture: str) -> None:
    real, real_caps = corpus_types(f"dra-driver-cpu/docs__user__device-attributes__{capture}.yaml")
    real.pop("resource.kubernetes.io/pcieRoot")  # only with --expose-pcie-roots and DRAListTypeAttributes
    devices = slices(epyc, kinds=frozenset({"cpu"}), cpu_mode=mode)
    ours, caps = our_types(devices)
    assert_matches(ours, real, {})
    assert set(caps) == set(real_caps)
    grouped = mode == "grouped"
    assert all(d.get("allowMultipleAllocations", False) is grouped for d in devices)


def test_the_corpus_is_the_one_in_shared() -> None:
    assert (CORPUS / "index.jsonl").is_file()
    assert Path(H100).is_dir()
