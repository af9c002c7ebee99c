"""From the matcher's trace to per-request funnels with a named blocking step.

For every request (and subrequest) the allocator looked at, the candidate devices
are walked through the checks in the allocator's own order; each stage says how
many devices it rejected and how many remain.  The first stage that leaves fewer
than the request needs is the blocking step, put into words by
:mod:`dractl.explain.suggest`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from dractl.explain.catalog import Catalog
from dractl.explain.report import Blocking, RequestFunnel, Stage
from dractl.explain.suggest import Blocked, blocking
from dractl.matcher.api import CHECKS, Decision, NodeOutcome, Reason, RequestCount
from dractl.model import objects as o

_REASON_ORDER = {r: i for i, r in enumerate(Reason)}
_VALUE = {r: r.value for r in Reason}  # enum attribute access is slow; this runs per decision
Key = tuple[str, str, "str | None"]


def _order(check: str, reason: Reason) -> tuple[int, int]:
    c = CHECKS.index(check) if check in CHECKS else len(CHECKS)
    return c, _REASON_ORDER.get(reason, len(_REASON_ORDER))


Probe = Callable[[o.Device, str, tuple[str, ...]], "bool | str"]
"""Evaluates a class's and a request's selectors on a device the allocator skipped:
True/False, or the CEL error text."""


def build(
    outcome: NodeOutcome,
    claims: Sequence[o.ResourceClaim],
    catalog: Catalog,
    examples: int = 3,
    probe: Probe | None = None,
    warnings: list[str] | None = None,
    probe_fitting: bool = True,
) -> tuple[RequestFunnel, ...]:
    """One funnel per (claim, request, subrequest) the allocator considered, in its order.

    With ``probe``, on a node where the claims do not fit, devices rejected as in use are
    also checked against the selectors, so the explanation can say which of them would
    have matched; CEL errors found that way are appended to ``warnings`` (the allocator
    never evaluates those devices).  ``probe_fitting`` extends that to nodes where they fit
    (only for the warnings; the engine turns it off for big clusters, where it would cost
    a CEL evaluation per device in use)."""
    by_claim = {c.meta.key: c for c in claims}
    decisions: dict[Key, list[Decision]] = defaultdict(list)
    for d in outcome.trace.decisions:
        decisions[(d.claim, d.request, d.subrequest)].append(d)
    failed = outcome.status != "allocated"
    funnels = []
    ctx = _Ctx(catalog, outcome.node, failed, examples, probe if failed or probe_fitting else None, warnings)
    pools = decisions.get(("", "", None), [])
    seen = set()
    for count in outcome.trace.counts:
        key = (count.claim, count.request, count.subrequest)
        seen.add(key[:2])
        spec = _spec(by_claim.get(count.claim), count.request, count.subrequest)
        funnels.append(_funnel(count, spec, by_claim.get(count.claim), decisions.get(key, []), ctx))
    if failed and outcome.status != "error":
        funnels.extend(_unseen(claims, seen, pools, ctx))
    _incomplete_pools(claims, pools, ctx)
    _in_use_elsewhere(claims, ctx)
    result = tuple(funnels)
    return together(result, claims, catalog, outcome.node) if failed and outcome.status != "error" else result


@dataclass
class _Ctx:
    catalog: Catalog
    node: str
    failed: bool
    examples: int
    probe: Probe | None
    warnings: list[str] | None

    def matching(
        self, ds: list[Decision], cls: str, selectors: tuple[str, ...], where: str
    ) -> list[Decision]:
        """The decisions whose devices pass the selectors (all of them without a probe)."""
        if self.probe is None:
            return ds
        out = []
        for d in ds:
            dev = self.catalog.device(d.device_id or "")
            verdict = self.probe(dev, cls, selectors) if dev is not None else True
            if isinstance(verdict, str):
                if self.warnings is not None:
                    text = (
                        f"device {d.device_id} ({where}, so the allocator does not evaluate it): "
                        f"a selector would fail: {verdict}"
                    )
                    if text not in self.warnings:
                        self.warnings.append(text)
            elif verdict:
                out.append(d)
        return out


def _in_use_elsewhere(claims: Sequence[o.ResourceClaim], ctx: _Ctx) -> None:
    """Latent CEL errors on this node's devices in use that the search never reached."""
    held = [d.id for d in ctx.catalog.node_devices(ctx.node) if d.id in ctx.catalog.holders]
    _probe_all(claims, held, "in use", ctx)


def _probe_all(claims: Sequence[o.ResourceClaim], ids: list[str], where: str, ctx: _Ctx) -> None:
    if ctx.probe is None or not ids:
        return
    fake = [Decision("", "", None, i, "in-use", Reason.IN_USE) for i in ids]
    for claim in claims:
        for r in claim.spec.requests:
            for sub in (None,) if r.exactly else tuple(x.name for x in r.first_available):
                cls, selectors, *_ = _spec(claim, r.name, sub)
                ctx.matching(fake, cls, selectors, where)


def _incomplete_pools(claims: Sequence[o.ResourceClaim], pools: list[Decision], ctx: _Ctx) -> None:
    """Latent CEL errors on devices of incomplete pools (skipped by the allocator) as warnings."""
    for d in pools:
        if d.reason is not Reason.POOL_INCOMPLETE:
            continue
        ids = [dev.id for s in ctx.catalog.pools.get(d.device_id or "", ()) for dev in s.devices]
        _probe_all(claims, ids, "in an incomplete pool", ctx)


Spec = tuple[str, tuple[str, ...], str, int, tuple[o.DeviceToleration, ...]]


def _spec(claim: o.ResourceClaim | None, request: str, sub: str | None) -> Spec:
    """(class, selectors, allocation mode, count, tolerations) of a (sub)request."""
    for r in claim.spec.requests if claim else ():
        if r.name != request:
            continue
        if sub is None and r.exactly is not None:
            e = r.exactly
            return e.device_class_name, e.selectors, e.allocation_mode, e.count, e.tolerations
        for s in r.first_available:
            if s.name == sub:
                return s.device_class_name, s.selectors, s.allocation_mode, s.count, s.tolerations
    return "", (), "ExactCount", 1, ()


def _funnel(
    count: RequestCount, spec: Spec, claim: o.ResourceClaim | None, decisions: list[Decision], ctx: _Ctx
) -> RequestFunnel:
    cls, selectors, mode, n, _ = spec
    needed = None if mode == "All" else n
    by_reason: dict[tuple[str, Reason], list[Decision]] = defaultdict(list)
    # The search backtracks: a device rejected in an abandoned branch (a constraint that failed
    # against a device tried first) can still be chosen in the end.  A chosen device was not
    # rejected: its decisions leave the funnel, and the stage's count with them.
    chosen = set(count.chosen)
    unrejected: dict[Reason, set[str]] = defaultdict(set)
    for d in decisions:
        if d.device_id in chosen:
            unrejected[d.reason].add(d.device_id or "")
            continue
        by_reason[(d.check, d.reason)].append(d)
    ordered = sorted(by_reason, key=lambda k: _order(*k))
    stages: list[Stage] = []
    remaining = count.considered
    blocked = None
    for i, key in enumerate(ordered):
        ds = by_reason[key]
        reason = _VALUE[key[1]]
        rejected = max(count.rejected.get(key[1], len(ds)) - len(unrejected.pop(key[1], ())), len(ds))
        before, remaining = remaining, max(remaining - rejected, 0)
        ids = tuple(d.device_id or "" for d in ds[: ctx.examples])
        stages.append(Stage(key[0], reason, rejected, remaining, ids, ds[0].detail))
        if reason == "in-use":
            by_reason[key] = ctx.matching(ds, cls, selectors, "in use")
        short = remaining < (needed if needed is not None else 1) or reason in _FATAL
        if reason == "in-use" and not by_reason[key]:
            short = False  # none of the devices in use would match: a later step explains it
        if ctx.failed and blocked is None and short and not count.chosen:
            later = tuple(d.device_id for k in ordered[i:] for d in by_reason[k] if d.device_id)
            earlier = tuple((_VALUE[k[1]], _rej(by_reason[k])) for k in ordered[:i])
            info = Blocked(
                ctx.catalog,
                ctx.node,
                reason,
                needed,
                before,
                remaining,
                _rej(by_reason[key]),
                later + count.chosen,
                cls,
                selectors,
                _constraints(claim, count.request),
                earlier,
            )
            blocked = blocking(info)
    if ctx.failed and blocked is None and not count.chosen and needed is not None and 0 < remaining < needed:
        # Nothing rejected enough devices to block: there were too few candidates to begin with.
        blocked = blocking(
            Blocked(
                ctx.catalog,
                ctx.node,
                "too-few-devices",
                needed,
                count.considered,
                remaining,
                (),
                (),
                cls,
                selectors,
            )
        )
    if ctx.failed and blocked is None and not count.chosen and count.considered == 0:
        blocked = blocking(
            Blocked(ctx.catalog, ctx.node, "no-candidates", needed, 0, 0, (), (), cls, selectors)
        )
    return RequestFunnel(
        count.claim,
        count.request,
        count.subrequest,
        cls,
        "all" if needed is None else str(needed),
        count.considered,
        tuple(stages),
        count.chosen,
        blocked,
    )


def _unseen(
    claims: Sequence[o.ResourceClaim], seen: set[tuple[str, str]], pools: list[Decision], ctx: _Ctx
) -> list[RequestFunnel]:
    """Requests the allocator never got to consider a device for: nothing usable on the node
    (with the pool-level reasons when a pool was incomplete or invalid)."""
    out = []
    for claim in claims:
        for r in claim.spec.requests:
            if (claim.meta.key, r.name) in seen:
                continue
            cls, selectors, mode, n, _ = _spec(
                claim, r.name, None if r.exactly else r.first_available[0].name
            )
            needed = None if mode == "All" else n
            stages = tuple(
                Stage(
                    "pool",
                    d.reason.value,
                    _pool_size(ctx.catalog, d.device_id),
                    0,
                    (d.device_id or "",),
                    d.detail,
                )
                for d in pools
            )
            reason = pools[0].reason.value if pools else "no-candidates"
            rejected = tuple((d.device_id or "", d.detail) for d in pools if d.reason.value == reason)
            b = blocking(Blocked(ctx.catalog, ctx.node, reason, needed, 0, 0, rejected, (), cls, selectors))
            out.append(
                RequestFunnel(
                    claim.meta.key,
                    r.name,
                    None,
                    cls,
                    "all" if needed is None else str(needed),
                    0,
                    stages,
                    (),
                    b,
                )
            )
    return out


def _pool_size(catalog: Catalog, pool_id: str | None) -> int:
    return sum(len(s.devices) for s in catalog.pools.get(pool_id or "", ()))


_FATAL = ("cel-runtime-error", "cel-compile-error")


def _rej(ds: list[Decision]) -> tuple[tuple[str, str], ...]:
    return tuple((d.device_id or "", d.detail) for d in ds)


def _constraints(claim: o.ResourceClaim | None, request: str) -> tuple[str, ...]:
    """The attributes of the claim's constraints that apply to ``request``."""
    return tuple(
        a
        for c in (claim.spec.constraints if claim else ())
        for a in (c.match_attribute, c.distinct_attribute)
        if a and (not c.requests or request in c.requests)
    )


def together(
    funnels: tuple[RequestFunnel, ...], claims: Sequence[o.ResourceClaim], catalog: Catalog, node: str
) -> tuple[RequestFunnel, ...]:
    """When no request is short on its own, the requests fail together: say so on the last one."""
    if not funnels or any(f.blocking for f in funnels):
        return funnels
    last = funnels[-1]
    by_claim = {c.meta.key: c for c in claims}
    attrs = _constraints(by_claim.get(last.claim), last.request)
    constrained = any(s.reason == "constraint-mismatch" for f in funnels for s in f.stages)
    if constrained and attrs:
        b = blocking(
            Blocked(
                catalog,
                node,
                "constraint-mismatch",
                int(last.needed) if last.needed.isdigit() else None,
                last.considered,
                0,
                (),
                tuple(x for f in funnels for x in f.chosen),
                last.device_class,
                (),
                attrs,
            )
        )
    else:
        reason = "constraint-mismatch" if constrained else "in-use"
        b = Blocking(
            reason,
            "each request has enough candidates on its own, but not all of them together: "
            "the requests compete for the same devices or shared counters",
            "ask for fewer devices, or spread the requests over separate claims and nodes",
            "the requests cannot all be satisfied together",
        )
    return (*funnels[:-1], replace(last, blocking=b))
