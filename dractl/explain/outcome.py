"""One node's matcher outcome as a :class:`NodeExplanation`; ranking and grouping of nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dractl.explain import funnel
from dractl.explain.catalog import Catalog
from dractl.explain.funnel import Probe
from dractl.explain.report import ClaimAllocation, NodeExplanation, ReasonGroup
from dractl.explain.target import Target
from dractl.matcher.api import NodeOutcome
from dractl.model import objects as o

STATUS_ORDER = {"allocated": 0, "unschedulable": 1, "filtered": 2, "error": 3}
GROUP_EXAMPLES = 3


def node_explanation(
    name: str,
    target: Target,
    pending: Sequence[o.ResourceClaim],
    outcome: NodeOutcome | None,
    catalog: Catalog,
    examples: int,
    probe: Probe | None = None,
    warnings: list[str] | None = None,
    probe_fitting: bool = True,
) -> tuple[NodeExplanation, str | None]:
    """The explanation for one node and, when the scheduler would abort the pod, the error."""
    existing = tuple(_existing(tc.claim) for tc in target.claims if tc.claim.allocation is not None)
    if outcome is None:
        return NodeExplanation(
            name, "allocated", allocations=existing, score={"prioritizedListRank": 0}
        ), None
    funnels = funnel.build(outcome, pending, catalog, examples, probe, warnings, probe_fitting)
    if outcome.status == "allocated":
        dicts = outcome.results_dicts()
        new = tuple(ClaimAllocation(c.meta.key, _devices(d), d) for c, d in zip(pending, dicts, strict=False))
        return NodeExplanation(
            name,
            "allocated",
            allocations=new + existing,
            funnel=funnels,
            score={"prioritizedListRank": _priority(outcome)},
            steps=outcome.trace.steps,
        ), None
    if outcome.status == "error":
        fatal = outcome.error if outcome.error_scope != "node" else None
        return NodeExplanation(
            name, "error", funnel=funnels, error=outcome.error, steps=outcome.trace.steps
        ), fatal
    return NodeExplanation(name, "unschedulable", funnel=funnels, steps=outcome.trace.steps), None


def _existing(claim: o.ResourceClaim) -> ClaimAllocation:
    from dractl.matcher.results import allocation_to_dict

    assert claim.allocation is not None
    d = allocation_to_dict(claim.allocation)
    return ClaimAllocation(claim.meta.key, _devices(d), d, existing=True)


def _devices(result: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    rows = []
    for r in result.get("devices", {}).get("results", []):
        row = {k: r[k] for k in ("request", "driver", "pool", "device") if k in r}
        if r.get("shareID"):
            row["shareID"] = r["shareID"]
        rows.append(row)
    return tuple(rows)


def _priority(outcome: NodeOutcome) -> int:
    """kube-scheduler's preference among nodes for prioritized lists: the sum of the
    chosen subrequests' positions (0 = every request got its first choice)."""
    total = 0
    subs = {(c.claim, c.request): [] for c in outcome.trace.counts}  # type: dict[tuple[str, str], list[str]]
    for c in outcome.trace.counts:
        if c.subrequest is not None:
            subs[(c.claim, c.request)].append(c.subrequest)
    for c in outcome.trace.counts:
        if c.subrequest is not None and c.chosen:
            total += subs[(c.claim, c.request)].index(c.subrequest)
    return total


def rank_and_group(nodes: Sequence[NodeExplanation]) -> tuple[list[NodeExplanation], list[ReasonGroup]]:
    """Allocated nodes first (best rank, then name), then the others; and the
    non-fitting nodes grouped by their headline reason (biggest group first)."""
    fit = sorted((n for n in nodes if n.status == "allocated"), key=_fit_key)
    rest = sorted(
        (n for n in nodes if n.status != "allocated"), key=lambda n: (STATUS_ORDER[n.status], n.name)
    )
    ranked = [_with_rank(n, i + 1) for i, n in enumerate(fit)] + rest
    groups: dict[tuple[str, str], list[str]] = {}
    for n in rest:
        groups.setdefault((n.status, n.headline), []).append(n.name)
    out = [
        ReasonGroup(status, msg, len(names), tuple(names[:GROUP_EXAMPLES]))
        for (status, msg), names in groups.items()
    ]
    out.sort(key=lambda g: (-g.count, STATUS_ORDER[g.status], g.message))
    return ranked, out


def _fit_key(n: NodeExplanation) -> tuple[int, int, str]:
    score = n.score or {}
    return int(score.get("prioritizedListRank", 0)), int(score.get("bestFit", 0)), n.name


def _with_rank(n: NodeExplanation, rank: int) -> NodeExplanation:
    from dataclasses import replace

    return replace(n, rank=rank)
