"""Cross-object checks that evaluate selectors on the devices of the inputs (through the CEL layer).

A request whose class and request selectors match none of the N devices in the
inputs can never be allocated from them; a request for more devices than any one
node offers can't be either.  Both are warnings: the cluster may have more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
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


def _devices(index: Index) -> list[Placed]:
    from dractl.model.build import device as build_device

    out: list[Placed] = []
    for e in index.slices():
        spec = e.spec
        driver, pool = as_str(spec.get("driver")), as_str(as_map(spec.get("pool")).get("name"))
        for _, raw in devices_of(spec):
            try:
                dev = build_device(raw, driver, pool)
            except Exception:  # malformed fields (the schema's finding): the device can't be matched
                continue
            out.append((_node_key(spec, as_map(raw), e.name), dev))
    return out


def _node_key(spec: Mapping[str, Any], dev: Mapping[str, Any], slice_name: str) -> str:
    source = dev if spec.get("perDeviceNodeSelection") is True else spec
    if as_str(source.get("nodeName")):
        return "node:" + as_str(source.get("nodeName"))
    if source.get("allNodes") is True:
        return "*"
    return "selector:" + slice_name


def _matches(selectors: list[Any], device: Any) -> bool:
    for sel in selectors:
        try:
            if not sel.matches(device):
                return False
        except Exception:  # a runtime error fails the allocation: no match
            return False
    return True


def max_per_node(placed: list[str]) -> int:
    counts = Counter(placed)
    shared = counts.pop("*", 0)
    return max(counts.values(), default=0) + shared


def check_matches(index: Index, emit: Emit, features: Features) -> None:
    if not any(True for _ in index.claim_specs()):
        return  # nothing to match (and no CEL import: keeps one-file runs fast)
    devices = _devices(index)
    if not devices:
        return
    compile_one = _compiler(features)
    if compile_one is None:
        return
    classes = index.classes()
    for e, spec, path in index.claim_specs():
        for req, rpath, ref in requests_of(spec, path):
            cls = classes.get(as_str(req.get("deviceClassName")))
            if cls is None:
                continue  # unknown class (ADV-CLASS-EXISTS): nothing to judge the request against
            of_class = _select(compile_one, [x for x, _ in selector_exprs(cls.spec, "spec")], devices)
            if of_class is None or not of_class:
                continue  # the inputs hold no device of this class (another driver): no verdict
            hits = _select(compile_one, [x for x, _ in selector_exprs(req, rpath)], of_class)
            if hits is None:
                continue
            if not hits:
                emit(
                    e,
                    "LINT-SELECTOR-NO-MATCH",
                    rpath,
                    f"request {ref!r} matches 0 of the {len(of_class)} devices of class {cls.name!r} "
                    "in the inputs",
                )
                continue
            _count_check(e, req, rpath, ref, [node for node, _ in hits], emit)


def _select(
    compile_one: Callable[[str], Any], exprs: list[str], devices: list[Placed]
) -> list[Placed] | None:
    """The devices all ``exprs`` match; None when one of them doesn't compile."""
    selectors = [compile_one(x) for x in exprs]
    if any(s is None for s in selectors):
        return None
    return [(node, dev) for node, dev in devices if _matches(selectors, dev)]


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
