"""ResourceSlices for test clusters (``dractl generate slice``): from a compact device list, or
stamped out per node from an existing pool (``--like``).

Layout follows the release: up to 128 devices per slice (64 when devices consume counters),
and — from 1.35 on, where a slice holds devices or shared counters but not both — counter
sets in their own slices (at most 8 sets each) beside the devices of the same pool, every
slice of a pool carrying the pool's ``resourceSliceCount``.  1.34 (alpha partitionable devices,
behind a gate) gets the same split layout, so the slices stay valid after an upgrade.
"""

from __future__ import annotations

import copy
import csv
import io
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from dractl.errors import UsageError
from dractl.generate.claim import API_VERSION, check_name

MAX_NODES = 10_000
_RANGE = re.compile(r"\{(\d+)\.\.(\d+)\}")
_TYPED = ("string", "int", "bool", "version")


@dataclass(frozen=True)
class SliceSpec:
    driver: str
    nodes: tuple[str, ...]
    pool: str | None = None  # default: the node name
    kube_version: str = "1.37"


@dataclass(frozen=True)
class LikeSpec:
    nodes: tuple[str, ...]
    count: int | None = None  # physical devices (counter set + its devices) per node
    kube_version: str = "1.37"


def expand_nodes(patterns: Sequence[str]) -> tuple[str, ...]:
    """``node-{0..99}`` (one brace range per word) and comma lists → node names, in order."""
    out: list[str] = []
    for pattern in patterns:
        for word in filter(None, (w.strip() for w in pattern.split(","))):
            m = _RANGE.search(word)
            if m is None:
                out.append(word)
                continue
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo or hi - lo + 1 > MAX_NODES:
                raise UsageError(f"--nodes: bad range {m.group(0)} (low..high, at most {MAX_NODES} names)")
            width = len(m.group(1)) if m.group(1).startswith("0") and len(m.group(1)) > 1 else 0
            out += [word[: m.start()] + str(i).zfill(width) + word[m.end() :] for i in range(lo, hi + 1)]
    if len(out) > MAX_NODES:
        raise UsageError(f"--nodes: at most {MAX_NODES} nodes")
    if len(set(out)) != len(out):
        raise UsageError("--nodes: a node is named twice")
    for node in out:
        check_name(node, "--nodes")
    return tuple(out)


# -- compact device lists ---------------------------------------------------------------------


def parse_device_list(text: str, source: str) -> tuple[str | None, dict[str, Any], list[dict[str, Any]]]:
    """``(driver, counterSets, devices)`` from a compact YAML or CSV list (see ``--help``)."""
    stripped = text.lstrip()
    if source.endswith(".csv") or (
        stripped and not stripped.startswith(("-", "{", "[", "#")) and ":" not in stripped.splitlines()[0]
    ):
        return None, {}, _csv(text, source)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        raise UsageError(f"{where}: not YAML: {getattr(e, 'problem', None) or e}") from None
    if isinstance(data, list):
        data = {"devices": data}
    if not isinstance(data, dict) or not isinstance(data.get("devices"), list) or not data["devices"]:
        raise UsageError(
            f"{source}: expected a list of devices, or a mapping with 'devices:' "
            "(and optional 'driver:' and 'counterSets:')"
        )
    driver = data.get("driver")
    sets = data.get("counterSets") or {}
    if not isinstance(sets, dict):
        raise UsageError(f"{source}: counterSets: expected SET: {{COUNTER: QUANTITY}}")
    devices = [_device(d, source, f"devices[{i}]") for i, d in enumerate(data["devices"])]
    return (
        (str(driver) if driver else None),
        {str(k): _quantities(v, source, f"counterSets.{k}") for k, v in sets.items()},
        devices,
    )


def _csv(text: str, source: str) -> list[dict[str, Any]]:
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if r and not r[0].lstrip().startswith("#")]
    if not rows or "name" not in rows[0]:
        raise UsageError(f"{source}:1: a CSV device list needs a header row with a 'name' column")
    header = [h.strip() for h in rows[0]]
    devices = []
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise UsageError(f"{source}:{n}: {len(row)} fields, the header has {len(header)}")
        item: dict[str, Any] = {"attributes": {}, "capacity": {}, "consumes": {}}
        for col, cell in zip(header, (c.strip() for c in row), strict=True):
            if col == "name":
                item["name"] = cell
            elif not cell:
                continue
            elif col.startswith("capacity."):
                item["capacity"][col.removeprefix("capacity.")] = cell
            elif col.startswith("consumes."):
                cset, _, counter = col.removeprefix("consumes.").partition(".")
                item["consumes"].setdefault(cset, {})[counter] = cell
            else:
                item["attributes"][col.removeprefix("attributes.")] = _cell(cell)
        devices.append(_device(item, source, f"line {n}"))
    if not devices:
        raise UsageError(f"{source}: no devices (only a header)")
    return devices


def _cell(cell: str) -> Any:
    kind, sep, rest = cell.partition(":")
    if sep and kind in _TYPED:
        return {
            kind: int(rest)
            if kind == "int" and re.fullmatch(r"-?\d+", rest)
            else (rest == "true")
            if kind == "bool"
            else rest
        }
    if re.fullmatch(r"-?\d+", cell):
        return int(cell)
    if cell in ("true", "false"):
        return cell == "true"
    return cell


def _device(raw: Any, source: str, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise UsageError(f"{source}: {where}: a device needs a name")
    dev: dict[str, Any] = {"name": raw["name"]}
    attrs = {
        str(k): _attribute(v, source, f"{where}.attributes.{k}")
        for k, v in (raw.get("attributes") or {}).items()
    }
    if attrs:
        dev["attributes"] = attrs
    caps = _quantities(raw.get("capacity") or {}, source, f"{where}.capacity")
    if caps:
        dev["capacity"] = caps
    consumes = raw.get("consumes") or {}
    if not isinstance(consumes, dict):
        raise UsageError(f"{source}: {where}.consumes: expected SET: {{COUNTER: QUANTITY}}")
    if consumes:
        dev["consumesCounters"] = [
            {"counterSet": str(k), "counters": _quantities(v, source, f"{where}.consumes.{k}")}
            for k, v in consumes.items()
        ]
    unknown = set(raw) - {"name", "attributes", "capacity", "consumes"}
    if unknown:
        raise UsageError(
            f"{source}: {where}: unknown field {sorted(unknown)[0]!r} "
            "(a device has name, attributes, capacity, consumes)"
        )
    return dev


def _attribute(value: Any, source: str, where: str) -> dict[str, Any]:
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _TYPED:
        return {str(k): v for k, v in value.items()}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, str):
        return {"string": value}
    raise UsageError(f"{source}: {where}: expected a string, integer, boolean or {{version: X.Y.Z}}")


def _quantities(raw: Any, source: str, where: str) -> dict[str, Any]:
    from dractl.model.quantity import Quantity, QuantityError

    if not isinstance(raw, dict):
        raise UsageError(f"{source}: {where}: expected NAME: QUANTITY pairs")
    out = {}
    for k, v in raw.items():
        value: Any = v.get("value") if isinstance(v, dict) else v
        try:
            Quantity.parse(value)
        except QuantityError:
            raise UsageError(f"{source}: {where}.{k}: {v!r} is not a quantity (e.g. 80Gi)") from None
        out[str(k)] = {"value": str(value)}
    return out


def slice_docs(text: str, source: str, spec: SliceSpec) -> list[dict[str, Any]]:
    """The slices of every node in ``spec.nodes`` publishing the devices of a compact list."""
    driver, sets, devices = parse_device_list(text, source)
    driver = spec.driver or driver
    if not driver:
        raise UsageError("--driver is required (or a 'driver:' key in the device list)")
    check_name(driver, "--driver")
    if not spec.nodes:
        raise UsageError("--nodes is required (e.g. --nodes node-{0..3})")
    counter_sets = [{"name": k, "counters": v} for k, v in sets.items()]
    out = []
    for node in spec.nodes:
        out += layout(
            driver,
            node,
            spec.pool or node,
            copy.deepcopy(devices),
            copy.deepcopy(counter_sets),
            spec.kube_version,
        )
    return out


def layout(
    driver: str,
    node: str,
    pool: str,
    devices: list[dict[str, Any]],
    counter_sets: list[dict[str, Any]],
    kube_version: str,
) -> list[dict[str, Any]]:
    """One pool's slices: devices in chunks, counter sets split out where the release requires."""
    advanced = bool(counter_sets) or any("consumesCounters" in d or "taints" in d for d in devices)
    per_slice = 64 if advanced and kube_version != "1.34" else 128
    bodies: list[dict[str, Any]] = []
    if counter_sets:
        bodies += [{"sharedCounters": counter_sets[i : i + 8]} for i in range(0, len(counter_sets), 8)]
    bodies += [{"devices": devices[i : i + per_slice]} for i in range(0, len(devices), per_slice)]
    slug = re.sub(r"[^a-z0-9.-]", "-", f"{node}-{driver}".lower())
    out = []
    for i, body in enumerate(bodies):
        spec = {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": pool, "generation": 1, "resourceSliceCount": len(bodies)},
            **body,
        }
        out.append(
            {
                "apiVersion": API_VERSION,
                "kind": "ResourceSlice",
                "metadata": {"name": f"{slug}-{i}"},
                "spec": spec,
            }
        )
    return out


# -- --like: stamp an existing pool onto other nodes -----------------------------------------------


def like_docs(template: Sequence[dict[str, Any]], source: str, spec: LikeSpec) -> list[dict[str, Any]]:
    """Copies of the node-local pools in ``template`` (ResourceSlices, e.g. one node's slices of
    a snapshot) for every node of ``spec.nodes``; with ``spec.count``, each node gets that many
    physical devices, numbered from 0, cycling through the template's."""
    slices = [d for d in template if d.get("kind") == "ResourceSlice" and isinstance(d.get("spec"), dict)]
    pools: dict[tuple[str, str], dict[str, Any]] = {}
    for s in slices:
        sp = s["spec"]
        if not sp.get("nodeName"):
            continue
        key = (str(sp.get("driver")), str((sp.get("pool") or {}).get("name")))
        pool = pools.setdefault(key, {"node": sp["nodeName"], "devices": [], "sets": []})
        pool["devices"] += sp.get("devices") or []
        pool["sets"] += sp.get("sharedCounters") or []
    if not pools:
        raise UsageError(f"--like {source}: no ResourceSlice with a nodeName to copy")
    if not spec.nodes:
        raise UsageError("--nodes is required (e.g. --nodes node-{0..99})")
    out = []
    for node in spec.nodes:
        for (driver, pool_name), pool in pools.items():
            devices, sets = copy.deepcopy(pool["devices"]), copy.deepcopy(pool["sets"])
            if spec.count is not None:
                devices, sets = _renumber(devices, sets, spec.count, source)
            _retarget(devices, pool["node"], node)
            new_pool = (
                pool_name.replace(pool["node"], node) if pool["node"] in pool_name else f"{node}-{pool_name}"
            )
            out += layout(driver, node, new_pool, devices, sets, spec.kube_version)
    return out


def _groups(devices: list[dict[str, Any]], sets: list[dict[str, Any]]) -> list[tuple[list[Any], list[Any]]]:
    """Physical devices: each counter set with the devices consuming it; else each device alone."""
    if not sets:
        return [([d], []) for d in devices]
    groups = []
    for cset in sets:
        users = [
            d
            for d in devices
            if any(c.get("counterSet") == cset.get("name") for c in d.get("consumesCounters") or [])
        ]
        groups.append((users, [cset]))
    return groups


def _renumber(devices: list[Any], sets: list[Any], count: int, source: str) -> tuple[list[Any], list[Any]]:
    if not 1 <= count <= 1024:
        raise UsageError("--count must be between 1 and 1024")
    groups = _groups(devices, sets)
    if not groups:
        raise UsageError(f"--like {source}: the template pool has no devices")
    out_devices: list[Any] = []
    out_sets: list[Any] = []
    for k in range(count):
        group_devices, group_sets = copy.deepcopy(groups[k % len(groups)])
        renamed = {s["name"]: _number(s["name"], k) for s in group_sets}
        for s in group_sets:
            s["name"] = renamed[s["name"]]
        for d in group_devices:
            d["name"] = _number(d["name"], k)
            for c in d.get("consumesCounters") or []:
                c["counterSet"] = renamed.get(c.get("counterSet"), c.get("counterSet"))
            attrs = d.get("attributes") or {}
            if isinstance(attrs.get("index"), dict) and "int" in attrs["index"]:
                attrs["index"] = {"int": k}
        out_devices += group_devices
        out_sets += group_sets
    names = [d["name"] for d in out_devices]
    if len(set(names)) != len(names):
        raise UsageError(
            f"--like {source}: cannot number the devices (their names carry no index); "
            "give --count equal to the template's device count, or name devices like gpu-0"
        )
    return out_devices, out_sets


def _number(name: str, k: int) -> str:
    """The first number in a name becomes ``k`` (``gpu-0-mig-1g`` → ``gpu-3-mig-1g``)."""
    return re.sub(r"\d+", str(k), name, count=1) if re.search(r"\d", name) else f"{name}-{k}"


def _retarget(devices: list[Any], old_node: str, node: str) -> None:
    """Attributes naming the template node name the new one; every ``uuid`` is made unique."""
    for d in devices:
        for name, value in (d.get("attributes") or {}).items():
            if not isinstance(value, dict) or not isinstance(value.get("string"), str):
                continue
            if name == "uuid":
                prefix = value["string"].split("-", 1)[0] + "-" if "-" in value["string"] else ""
                value["string"] = prefix + str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{node}/{d.get('name')}"))
            elif old_node in value["string"]:
                value["string"] = value["string"].replace(old_node, node)
