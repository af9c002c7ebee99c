"""The blocking step of a request in plain words, with a suggestion.

One function per reason code; each gets a :class:`Blocked` (what the funnel saw)
and returns ``(what happened at this step, what to do)``.  :func:`blocking` adds
what earlier steps took away and how many candidates are left.  To support a new
reason, add a function and register it in ``_BY_REASON``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from dractl.explain.catalog import Catalog, attribute_value
from dractl.explain.report import Blocking
from dractl.explain.selectors import advice
from dractl.matcher.taints import effective_taints
from dractl.model import objects as o

Rejections = tuple[tuple[str, str], ...]  # (device id, matcher detail)
_DRIVER_LITERAL = re.compile(r"""device\s*\.\s*driver\s*==\s*(["'])([^"']+)\1""")


@dataclass(frozen=True)
class Blocked:
    """A request's funnel at its blocking step.  ``devices`` are the ids rejected
    for ``reason``; ``evaluated`` the devices this step and later ones looked at;
    ``available`` how many candidates were left before it; ``earlier`` the
    rejections of the steps before (reason, devices)."""

    catalog: Catalog
    node: str
    reason: str
    needed: int | None  # None: allocationMode All
    available: int
    remaining: int
    devices: Rejections
    evaluated: tuple[str, ...]
    device_class: str
    selectors: tuple[str, ...]
    constraint_attrs: tuple[str, ...] = ()
    earlier: tuple[tuple[str, Rejections], ...] = ()

    def objects(self, ids: tuple[str, ...] | list[str]) -> list[o.Device]:
        return [d for d in (self.catalog.device(i) for i in ids) if d is not None]

    def class_selectors(self) -> tuple[str, ...]:
        cls = self.catalog.world.device_class(self.device_class)
        return cls.selectors if cls else ()


def blocking(b: Blocked) -> Blocking:
    """The blocking step in words: this step, what earlier steps removed, what is left."""
    message, suggestion = _BY_REASON.get(b.reason, _generic)(b)
    parts = [message]
    before = [_phrase(b.catalog, r, devs) for r, devs in b.earlier if r != "class-selector-false" and devs]
    if before:
        parts.append("before that, " + ", ".join(before))
    if b.remaining > 0 and b.reason not in _NO_TAIL:
        parts.append(f"{b.remaining} left, needs {_need(b)}")
    return Blocking(b.reason, "; ".join(parts), suggestion, SUMMARY.get(b.reason, b.reason))


SUMMARY = {
    "in-use": "the matching devices are in use",
    "class-selector-false": "too few devices match the DeviceClass",
    "request-selector-false": "too few devices match the request's selectors",
    "cel-runtime-error": "a selector fails with a CEL error",
    "cel-compile-error": "a selector does not compile",
    "taint-not-tolerated": "the matching devices carry taints the request does not tolerate",
    "counters-exhausted": "the shared counters of the matching devices are used up",
    "constraint-mismatch": "the claim's constraints cannot be met",
    "pool-incomplete": "the pool is incomplete",
    "pool-invalid": "the pool is invalid",
    "capacity-insufficient": "not enough capacity left",
    "capacity-undefined": "the devices lack the requested capacity",
    "no-candidates": "no devices for this request here",
    "too-few-devices": "fewer devices here than the request asks for",
    "node-mismatch": "the devices are not reachable from the node",
    "feature-disabled": "the devices need a disabled feature",
    "binding-conditions-disabled": "the devices need a disabled feature",
}


_NO_TAIL = {"cel-runtime-error", "cel-compile-error", "no-candidates", "pool-invalid", "too-few-devices"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _short(device_id: str) -> str:
    return device_id.split("/", 2)[-1] if device_id.count("/") >= 2 else device_id


def _names(ids: list[str] | tuple[str, ...], limit: int = 4) -> str:
    shown = ", ".join(_short(i) for i in list(ids)[:limit])
    return shown + (f", … {len(ids) - limit} more" if len(ids) > limit else "")


def _need(b: Blocked) -> str:
    return "all matching devices" if b.needed is None else _plural(b.needed, "device")


def _holders(catalog: Catalog, devices: Rejections) -> str:
    holders: Counter[str] = Counter()
    for dev_id, _ in devices:
        for claim in catalog.holders.get(dev_id, ["another request of this allocation"]):
            holders[claim] += 1
    return ", ".join(f"{c} ({n})" if n > 1 else c for c, n in holders.most_common(5))


def _phrase(catalog: Catalog, reason: str, devices: Rejections) -> str:
    """A short account of an earlier step ("2 in use by default/a")."""
    n = len(devices)
    if reason == "in-use":
        return f"{n} in use by {_holders(catalog, devices)}"
    words = {
        "request-selector-false": "do not match the request's selectors",
        "taint-not-tolerated": "carry a taint that is not tolerated",
        "counters-exhausted": "share used-up counters",
        "constraint-mismatch": "break a constraint",
    }
    return f"{n} {words.get(reason, f'rejected ({reason})')}"


def _in_use(b: Blocked) -> tuple[str, str]:
    n = len(b.devices)
    lead = (
        f"all {_plural(n, 'matching device')} are"
        if b.remaining == 0
        else f"{_plural(n, 'matching device')} {'is' if n == 1 else 'are'}"
    )
    return (
        f"{lead} in use by {_holders(b.catalog, b.devices)}",
        "wait for those claims to be deallocated, or see what would fit with --ignore-allocations",
    )


def _class(b: Blocked) -> tuple[str, str]:
    wanted = {m.group(2) for s in b.class_selectors() for m in _DRIVER_LITERAL.finditer(s)}
    have = sorted({d.driver for d in b.objects([i for i, _ in b.devices])})
    if wanted and have and not wanted & set(have):
        return (
            f"this node has no {' or '.join(sorted(wanted))} devices (only {', '.join(have)}), "
            f"which DeviceClass {b.device_class} needs",
            "run it on a node where that driver publishes devices",
        )
    hints = advice(list(b.class_selectors()), b.objects(b.evaluated))
    msg = (
        f"none of the {b.available} devices here match DeviceClass {b.device_class}"
        if b.remaining == 0
        else f"{len(b.devices)} of {b.available} devices do not match DeviceClass {b.device_class}"
    )
    return msg, "; ".join(hints) or "check the class's selectors and which driver publishes the devices"


def _request(b: Blocked) -> tuple[str, str]:
    hints = advice(list(b.selectors), b.objects(b.evaluated))
    which = f"selector `{b.selectors[0]}`" if len(b.selectors) == 1 else f"{len(b.selectors)} selectors"
    if b.remaining == 0:
        msg = (
            f"the request's {which} {'is' if len(b.selectors) == 1 else 'are'} false on all "
            f"{_plural(b.available, 'device')} of class {b.device_class}"
        )
    else:
        msg = (
            f"the request's {which} rule out {len(b.devices)} of {b.available} devices "
            f"of class {b.device_class}"
        )
    return msg, "; ".join(hints) or "relax the selector"


def _cel_error(b: Blocked) -> tuple[str, str]:
    dev, detail = b.devices[0] if b.devices else ("?", "")
    hints = advice(list(b.class_selectors()) + list(b.selectors), b.objects(b.evaluated))
    return (
        f"a selector fails on device {_short(dev)}: {detail}",
        "; ".join(hints) or "guard attribute look-ups with has() or `.?name.orValue(…)`",
    )


def _taint(b: Blocked) -> tuple[str, str]:
    by_taint: dict[str, list[str]] = {}
    for dev_id, detail in b.devices:
        dev = b.catalog.device(dev_id)
        found = [
            t
            for t in (effective_taints(dev, b.catalog.world.taint_rules) if dev else ())
            if t.taint.effect in ("NoSchedule", "NoExecute")
        ]
        text = detail
        if found:
            t = found[0].taint
            text = f"taint `{t.key}={t.value}:{t.effect}`" if t.value else f"taint `{t.key}:{t.effect}`"
            text += f" from DeviceTaintRule `{found[0].rule}`" if found[0].rule else " (set by the driver)"
        by_taint.setdefault(text, []).append(dev_id)
    parts = [f"{_names(ids)} {'carries' if len(ids) == 1 else 'carry'} {t}" for t, ids in by_taint.items()]
    lead = "the only matching devices are tainted: " if b.remaining == 0 else ""
    rule = any("DeviceTaintRule" in t for t in by_taint)
    fix = "add a toleration to the request" + (
        " or remove the taint (the DeviceTaintRule)" if rule else " or have the driver clear the taint"
    )
    return lead + "; ".join(parts), fix + "; --ignore-taints shows what would fit"


def _counters(b: Blocked) -> tuple[str, str]:
    sharers: list[str] = []
    for dev_id, _ in b.devices:
        dev, pool = b.catalog.device(dev_id), dev_id.rsplit("/", 1)[0]
        for use in dev.consumes_counters if dev else ():
            for other in b.catalog.counter_set_users(pool, use.counter_set):
                for claim in b.catalog.holders.get(other, []):
                    entry = f"{_short(other)} ({claim})"
                    if entry not in sharers:
                        sharers.append(entry)
    who = f"; partitions already allocated: {', '.join(sharers[:4])}" if sharers else ""
    n = len(b.devices)
    return (
        f"{_plural(n, 'device')} ({_names([d for d, _ in b.devices], 3)}) "
        f"{'needs' if n == 1 else 'need'} shared counters that are used up{who}",
        "choose a partition that fits what is left, or free the partitions that hold the counters",
    )


def _constraint(b: Blocked) -> tuple[str, str]:
    parts = []
    rejected = {i for i, _ in b.devices}
    drivers = {d.driver for d in b.objects(list(rejected) + list(b.evaluated))}
    pool = [
        d for d in b.catalog.node_devices(b.node) if d.driver in drivers and d.id not in b.catalog.holders
    ]
    for attr in b.constraint_attrs:
        values: Counter[str] = Counter(str(attribute_value(d, attr)) for d in pool)
        shown = ", ".join(f"{v} ({n})" for v, n in values.most_common(4))
        parts.append(f"`{attr}` of the free candidates: {shown}" if shown else f"`{attr}`")
    return (
        f"no {_need(b)} together satisfy the claim's constraints ({'; '.join(parts)})",
        "use fewer devices per request, or change the matchAttribute/distinctAttribute constraint",
    )


def _pool(b: Blocked) -> tuple[str, str]:
    pools = sorted({d for d, _ in b.devices})
    if b.reason == "pool-incomplete":
        facts = []
        for p in pools:
            seen, count = b.catalog.pool_slices(p)
            facts.append(f"{p} ({seen} of {count} slices published)" if count else p)
        return (
            f"pool {', '.join(facts)} is incomplete, so its devices are not used",
            "wait for the driver to publish every slice of the pool, or check resourceSliceCount",
        )
    detail = b.devices[0][1] if b.devices else ""
    return f"pool {', '.join(pools)} is invalid: {detail}", "fix the driver's ResourceSlices"


def _capacity(b: Blocked) -> tuple[str, str]:
    detail = next((d for _, d in b.devices if d), "")
    lead = f"{_plural(len(b.devices), 'device')} cannot provide the requested capacity"
    return (f"{lead} ({detail})" if detail else lead), "request less capacity, or use devices with more"


def _no_candidates(b: Blocked) -> tuple[str, str]:
    local = b.catalog.node_devices(b.node)
    if not local:
        return (
            "no device is published for this node (no ResourceSlice names it, and no "
            "network-attached pool reaches it)",
            "check that the DRA driver runs on this node",
        )
    drivers = sorted({d.driver for d in local})
    return (
        f"no device here can serve DeviceClass {b.device_class} "
        f"(this node's devices come from {', '.join(drivers)})",
        "use a class that selects these devices",
    )


def _too_few(b: Blocked) -> tuple[str, str]:
    return (
        f"only {_plural(b.remaining, 'device')} here can serve the request, which needs {_need(b)}",
        "ask for fewer devices, or run it where more devices of this class are published",
    )


def _generic(b: Blocked) -> tuple[str, str]:
    detail = next((d for _, d in b.devices if d), "")
    one = len(b.devices) == 1
    text = {
        "node-mismatch": f"{'is' if one else 'are'} not reachable from this node",
        "feature-disabled": f"{'consumes' if one else 'consume'} shared counters, "
        "but DRAPartitionableDevices is off",
        "binding-conditions-disabled": f"{'has' if one else 'have'} binding conditions, "
        "but DRADeviceBindingConditions is off",
    }.get(b.reason, f"{'was' if one else 'were'} rejected ({b.reason})")
    msg = f"{_plural(len(b.devices), 'device')} {text}"
    if detail and b.reason not in ("feature-disabled", "binding-conditions-disabled"):
        msg += f": {detail}"
    fix = {
        "feature-disabled": "enable it with --feature-gates DRAPartitionableDevices=true",
        "binding-conditions-disabled": "enable it with --feature-gates DRADeviceBindingConditions=true",
    }
    return msg, fix.get(b.reason, "")


_BY_REASON: dict[str, Callable[[Blocked], tuple[str, str]]] = {
    "in-use": _in_use,
    "class-selector-false": _class,
    "request-selector-false": _request,
    "cel-runtime-error": _cel_error,
    "cel-compile-error": _cel_error,
    "taint-not-tolerated": _taint,
    "counters-exhausted": _counters,
    "constraint-mismatch": _constraint,
    "pool-incomplete": _pool,
    "pool-invalid": _pool,
    "capacity-insufficient": _capacity,
    "capacity-undefined": _capacity,
    "no-candidates": _no_candidates,
    "too-few-devices": _too_few,
}
