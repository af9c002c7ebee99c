"""Cross-object checks that evaluate selectors on the devices of the inputs (through the CEL layer).

A request whose class and request selectors match none of the N devices in the
inputs can never be allocated from them; a request for more devices than any one
node offers can't be either.  Both are warnings: the cluster may have more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from dractl.model.features import Features
from dractl.validate.rules.ctx import as_map, as_str
from dractl.validate.rules.xindex import Entry, Index, devices_of, requests_of, selector_exprs

Emit = Callable[[Entry, str, str, str], None]
Placed = tuple[str, Any]  # (node key, model Device)


def _compiler(features: Features) -> Callable[[str], Any] | None:
    try:
        from dractl.cel import compile_selector
    except ImportError:
        return None
    cache: dict[str, Any] = {}

    def compile_one(expr: str) -> Any:
        if expr not in cache:
            try:
                cache[expr] = compile_selector(expr, env="new", features=features)
            except Exception:  # a broken selector is the server rules' finding
                cache[expr] = None
        return cache[expr]

    return compile_one


def _devices(index: Index) -> Iterator[Placed]:
    """Every device of the input slices, built one at a time (never all at once: a model device
    is about a kilobyte, and the inputs may hold hundreds of thousands)."""
    from dractl.model.build import device as build_device

    for e in index.slices():
        spec = e.spec
        driver, pool = as_str(spec.get("driver")), as_str(as_map(spec.get("pool")).get("name"))
        for _, raw in devices_of(spec):
            try:
                dev = build_device(raw, driver, pool)
            except Exception:  # malformed fields (the schema's finding): the device can't be matched
                continue
            yield _node_key(spec, as_map(raw), e.name), dev


def _node_key(spec: Mapping[str, Any], dev: Mapping[str, Any], slice_name: str) -> str:
    source = dev if spec.get("perDeviceNodeSelection") is True else spec
    if as_str(source.get("nodeName")):
        return "node:" + as_str(source.get("nodeName"))
    if source.get("allNodes") is True:
        return "*"
    return "selector:" + slice_name


def _matches(selectors: list[Any], device: Any, activations: Any = None) -> bool:
    for sel in selectors:
        try:
            if not (
                sel.matches(device, activations=activations)
                if activations is not None
                else sel.matches(device)
            ):
                return False
        except Exception:  # a runtime error fails the allocation: no match
            return False
    return True


def max_per_node(placed: list[str]) -> int:
    counts = Counter(placed)
    shared = counts.pop("*", 0)
    return max(counts.values(), default=0) + shared


@dataclass
class _Request:
    """One request to judge: where it is, its class and its own selectors (compiled)."""

    entry: Entry
    req: Mapping[str, Any]
    path: str
    ref: str
    cls: str
    selectors: list[Any]
    hits: list[str] = field(default_factory=list)  # node keys of the matching devices of its class


def check_matches(index: Index, emit: Emit, features: Features) -> None:
    if not any(True for _ in index.claim_specs()):
        return  # nothing to match (and no CEL import: keeps one-file runs fast)
    compile_one = _compiler(features)
    if compile_one is None:
        return
    classes = index.classes()
    class_selectors: dict[str, list[Any]] = {}
    requests: list[_Request] = []
    for e, spec, path in index.claim_specs():
        for req, rpath, ref in requests_of(spec, path):
            name = as_str(req.get("deviceClassName"))
            cls = classes.get(name)
            if cls is None:
                continue  # unknown class (ADV-CLASS-EXISTS): nothing to judge the request against
            if name not in class_selectors:
                class_selectors[name] = [compile_one(x) for x, _ in selector_exprs(cls.spec, "spec")]
            own = [compile_one(x) for x, _ in selector_exprs(req, rpath)]
            if any(s is None for s in class_selectors[name]) or any(s is None for s in own):
                continue  # a selector that doesn't compile (the server rules' finding): no verdict
            requests.append(_Request(e, req, rpath, ref, name, own))
    if not requests:
        return
    # One pass over the devices: each is built once and judged against every class and request.
    of_class: Counter[str] = Counter()
    by_class: dict[str, list[_Request]] = {}
    for r in requests:
        by_class.setdefault(r.cls, []).append(r)
    from dractl.cel import DeviceActivationCache

    # The device's CEL form, for the selectors judged on it in a row; a run-wide cache would keep
    # tens of thousands of devices (and their CEL forms) alive.
    activations = DeviceActivationCache(max_entries=4)
    for node, dev in _devices(index):
        for name, waiting in by_class.items():
            if not _matches(class_selectors[name], dev, activations):
                continue
            of_class[name] += 1
            for r in waiting:
                if _matches(r.selectors, dev, activations):
                    r.hits.append(node)
    for r in requests:
        total = of_class[r.cls]
        if not total:
            continue  # the inputs hold no device of this class (another driver): no verdict
        if not r.hits:
            emit(
                r.entry,
                "LINT-SELECTOR-NO-MATCH",
                r.path,
                f"request {r.ref!r} matches 0 of the {total} devices of class {r.cls!r} "
                + index.devices_from(),
            )
            continue
        _count_check(r.entry, r.req, r.path, r.ref, r.hits, emit)


def _count_check(e: Entry, req: Mapping[str, Any], rpath: str, ref: str, hits: list[str], emit: Emit) -> None:
    if (req.get("allocationMode") or "ExactCount") != "ExactCount":
        return
    count = req.get("count") or 1
    if not isinstance(count, int):
        return
    best = max_per_node(hits)
    if count > best:
        emit(
            e,
            "LINT-REQUEST-EXCEEDS-NODE",
            f"{rpath}.count",
            f"request {ref!r} asks for {count} devices, but at most {best} matching devices "
            "of the inputs are "
            "available on any one node",
        )
