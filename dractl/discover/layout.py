"""Split one pool's devices and counter sets into ResourceSlices within the API limits.

Limits (``api-limits.json``): at most 128 devices per slice, 64 when any device
in it has taints, consumes counters or carries a list-type attribute (1.35+);
at most 8 counter sets per slice; from 1.35 shared counters and devices live in
different slices.  In 1.34 a counter set must sit in the slice of the devices
that consume it, with at most 32 counters in all sets of a slice and 1024
counter consumptions.  Every slice of the pool gets the same generation and
``resourceSliceCount``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

MAX_DEVICES = 128
MAX_DEVICES_ADVANCED = 64
MAX_COUNTER_SETS = 8
MAX_SHARED_COUNTERS_1_34 = 32
MAX_CONSUMPTIONS_1_34 = 1024
_LIST_TYPES = ("ints", "bools", "strings", "versions")


def is_advanced(device: dict[str, Any]) -> bool:
    """True when the device lowers the slice's device limit to 64 (taints, counters, lists)."""
    if device.get("taints") or device.get("consumesCounters"):
        return True
    return any(k in attr for attr in device.get("attributes", {}).values() for k in _LIST_TYPES)


def minor_version(kube_version: str) -> int:
    return int(kube_version.split(".")[1])


def chunk_devices(devices: list[dict[str, Any]], kube_minor: int) -> list[list[dict[str, Any]]]:
    """Greedy, order-keeping chunks of devices that each fit one slice."""
    chunks: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    advanced = False
    for dev in devices:
        adv = advanced or (kube_minor >= 35 and is_advanced(dev))
        limit = MAX_DEVICES_ADVANCED if adv else MAX_DEVICES
        if current and len(current) + 1 > limit:
            chunks.append(current)
            current, adv = [], kube_minor >= 35 and is_advanced(dev)
        current.append(dev)
        advanced = adv
    if current:
        chunks.append(current)
    return chunks


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for k in range(0, len(items), size):
        yield items[k : k + size]


def _consumptions(dev: dict[str, Any]) -> int:
    return sum(len(c.get("counters", {})) for c in dev.get("consumesCounters", []))


def _pack_1_34(devices: list[dict[str, Any]], sets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """1.34: each slice holds counter sets together with the devices consuming them."""
    by_set: dict[str, list[dict[str, Any]]] = {cs["name"]: [] for cs in sets}
    plain = []
    for dev in devices:
        used = [c["counterSet"] for c in dev.get("consumesCounters", [])]
        if used and used[0] in by_set:
            by_set[used[0]].append(dev)
        else:
            plain.append(dev)
    specs: list[dict[str, Any]] = []
    cur_sets: list[dict[str, Any]] = []
    cur_devs: list[dict[str, Any]] = []
    for cs in sets:
        group = by_set[cs["name"]]
        counters = sum(len(x["counters"]) for x in cur_sets) + len(cs["counters"])
        consumptions = sum(map(_consumptions, cur_devs + group))
        if cur_sets and (
            len(cur_sets) >= MAX_COUNTER_SETS
            or counters > MAX_SHARED_COUNTERS_1_34
            or consumptions > MAX_CONSUMPTIONS_1_34
            or len(cur_devs) + len(group) > MAX_DEVICES
        ):
            specs.append({"sharedCounters": cur_sets, "devices": cur_devs})
            cur_sets, cur_devs = [], []
        cur_sets.append(cs)
        cur_devs.extend(group)
    if cur_sets:
        specs.append({"sharedCounters": cur_sets, "devices": cur_devs})
    specs.extend({"devices": chunk} for chunk in chunk_devices(plain, 34))
    return specs


def _canonical(device: dict[str, Any]) -> dict[str, Any]:
    """An independent copy with map keys sorted as the API server writes them (stable output;
    no value is shared between devices, so YAML has no anchors and callers may edit freely)."""
    out = copy.deepcopy(device)
    for key in ("attributes", "capacity"):
        if key in out:
            out[key] = dict(sorted(out[key].items()))
    return out


def slice_name(node: str, driver: str, index: int) -> str:
    base = re.sub(r"[^a-z0-9.-]", "-", f"{node}-{driver}".lower()).strip("-.")
    return f"{base[:240]}-{index}"


def layout(
    driver: str,
    pool: str,
    node: str,
    devices: list[dict[str, Any]],
    counter_sets: list[dict[str, Any]],
    kube_version: str,
    generation: int = 1,
) -> list[dict[str, Any]]:
    """The ResourceSlices (v1 dicts) of one pool; [] when it has nothing to publish."""
    minor = minor_version(kube_version)
    specs: list[dict[str, Any]]
    if minor >= 35:
        specs = [{"sharedCounters": copy.deepcopy(c)} for c in _chunks(counter_sets, MAX_COUNTER_SETS)]
        specs += [{"devices": chunk} for chunk in chunk_devices([_canonical(d) for d in devices], minor)]
    else:
        specs = _pack_1_34([_canonical(d) for d in devices], copy.deepcopy(counter_sets))
    out = []
    for k, spec in enumerate(specs):
        body: dict[str, Any] = {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": pool, "generation": generation, "resourceSliceCount": len(specs)},
        }
        body.update({key: val for key, val in spec.items() if val})
        out.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": slice_name(node, driver, k)},
                "spec": body,
            }
        )
    return out
