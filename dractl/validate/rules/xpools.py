"""Cross-object checks on ResourceSlices: pools, counters, duplicate devices and uuids."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from dractl.model.quantity import Quantity
from dractl.validate.rules.capacity import qty
from dractl.validate.rules.ctx import as_list, as_map, as_str
from dractl.validate.rules.xindex import Entry, Index, devices_of

Emit = Callable[[Entry, str, str, str], None]  # (entry, rule, path, message)


def _pool_key(e: Entry) -> tuple[str, str]:
    return as_str(e.spec.get("driver")), as_str(as_map(e.spec.get("pool")).get("name"))


def pools(index: Index) -> dict[tuple[str, str], list[Entry]]:
    out: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for e in index.slices():
        out[_pool_key(e)].append(e)
    return out


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def check_pools(index: Index, emit: Emit) -> None:
    for (driver, pool), slices in sorted(pools(index).items()):
        gens = {_int(as_map(e.spec.get("pool")).get("generation")) for e in slices}
        newest = max(gens)
        current = [e for e in slices if _int(as_map(e.spec.get("pool")).get("generation")) == newest]
        for e in slices:
            gen = _int(as_map(e.spec.get("pool")).get("generation"))
            if gen != newest and e.is_input:
                emit(
                    e,
                    "ADV-POOL-CONSISTENT",
                    "spec.pool.generation",
                    f"pool {driver}/{pool} has slices of generation {newest}; "
                    f"this slice (generation {gen}) is "
                    "outdated and ignored by the scheduler",
                )
        counts = {_int(as_map(e.spec.get("pool")).get("resourceSliceCount")) for e in current}
        if len(counts) > 1:
            for e in current:
                emit(
                    e,
                    "ADV-POOL-CONSISTENT",
                    "spec.pool.resourceSliceCount",
                    f"slices of pool {driver}/{pool} disagree on resourceSliceCount ({sorted(counts)})",
                )
        elif counts and (want := counts.pop()) > len(current):
            emit(
                current[0],
                "ADV-POOL-CONSISTENT",
                "spec.pool.resourceSliceCount",
                f"pool {driver}/{pool} is incomplete: {len(current)} of {want} slices of generation {newest} "
                "are present; the scheduler does not allocate from incomplete pools",
            )
        _duplicate_devices(driver, pool, current, emit)
        _counters(driver, pool, current, emit)


def _duplicate_devices(driver: str, pool: str, slices: list[Entry], emit: Emit) -> None:
    seen: dict[str, str] = {}
    for e in slices:
        for i, dev in devices_of(e.spec):
            name = as_str(as_map(dev).get("name"))
            if not name:
                continue
            if name in seen and seen[name] != e.name:
                emit(
                    e,
                    "ADV-DEVICE-UNIQUE-POOL",
                    f"spec.devices[{i}].name",
                    f"device {name!r} of pool {driver}/{pool} is also published by slice {seen[name]!r}",
                )
            seen.setdefault(name, e.name)


def _qty(value: Any) -> Quantity | None:
    return qty(as_map(value).get("value", "0"))


def _counters(driver: str, pool: str, slices: list[Entry], emit: Emit) -> None:
    sets: dict[str, Mapping[str, Any]] = {}
    for e in slices:
        for cs in as_list(e.spec.get("sharedCounters")):
            sets[as_str(as_map(cs).get("name"))] = as_map(as_map(cs).get("counters"))
    for e in slices:
        for i, dev in devices_of(e.spec):
            for j, use in enumerate(as_list(as_map(dev).get("consumesCounters"))):
                use = as_map(use)
                set_name = as_str(use.get("counterSet"))
                path = f"spec.devices[{i}].consumesCounters[{j}]"
                if set_name not in sets:
                    emit(
                        e,
                        "ADV-COUNTERSET-EXISTS",
                        f"{path}.counterSet",
                        f"counter set {set_name!r} is not defined by any slice of pool "
                        f"{driver}/{pool} in the inputs",
                    )
                    continue
                for counter, amount in as_map(use.get("counters")).items():
                    cpath = f"{path}.counters[{counter}]"
                    if counter not in sets[set_name]:
                        emit(
                            e,
                            "ADV-COUNTERSET-EXISTS",
                            cpath,
                            f"counter {counter!r} is not part of counter set {set_name!r}",
                        )
                        continue
                    need, have = _qty(amount), _qty(sets[set_name][counter])
                    if need is not None and have is not None and need.value > have.value:
                        emit(
                            e,
                            "LINT-COUNTER-EXCEEDS",
                            cpath,
                            f"consumes {need} of counter {set_name}/{counter}, "
                            f"but the set holds only {have}: "
                            "the device can never be allocated",
                        )


def check_uuids(index: Index, emit: Emit) -> None:
    """Duplicate ``uuid`` attribute values across devices of one driver.

    Only an attribute named exactly ``uuid`` identifies a device: references such as
    ``parentUUID`` are shared by design (every MIG device of one GPU carries its parent's)."""
    seen: dict[tuple[str, str, str], str] = {}
    for e in index.slices():
        driver = as_str(e.spec.get("driver"))
        for i, dev in devices_of(e.spec):
            dev = as_map(dev)
            for key, attr in as_map(dev.get("attributes")).items():
                ident = str(key).rsplit("/", 1)[-1].lower()
                value = as_map(attr).get("string")
                if ident != "uuid" or not isinstance(value, str) or not value:
                    continue
                where = f"{e.name}/{as_str(dev.get('name'))}"
                k = (driver, str(key), value)
                if k in seen and e.is_input:
                    emit(
                        e,
                        "LINT-DUPLICATE-UUID",
                        f"spec.devices[{i}].attributes[{key}]",
                        f"{key} {value!r} is also published by device {seen[k]}",
                    )
                seen.setdefault(k, where)


def check_mixed_slices(index: Index, emit: Emit, before_135: bool) -> None:
    if not before_135:
        return  # since 1.35 the server rejects it (RS-DEVICES-XOR-COUNTERS)
    for e in index.slices():
        if e.is_input and e.spec.get("sharedCounters") is not None and e.spec.get("devices") is not None:
            emit(
                e,
                "LINT-DEVICES-AND-COUNTERS",
                "spec",
                "sharedCounters and devices in one slice are rejected from Kubernetes 1.35 on; "
                "publish the counter sets in a separate slice of the same pool",
            )
