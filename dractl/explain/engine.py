"""explain-allocation: the claims of one pod (or given claims) against every node.

For each node, in order: kube-scheduler's node filters (cordon, taints, node
selector and affinity) → the node selectors of claims that are already
allocated → the matcher on the claims that still need devices.  The outcome per
node is allocated, unschedulable (with the funnel of every request) or an
allocation error; an error that kube-scheduler treats as fatal for the pod is
reported apart, as "the scheduler would fail to schedule this pod".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from dractl.errors import InputError
from dractl.explain import target as tgt
from dractl.explain.catalog import Catalog
from dractl.explain.extended import extended_claim
from dractl.explain.funnel import Probe
from dractl.explain.nodes import NOT_MODELLED, pod_node_blockers, selector_matches
from dractl.explain.options import ExplainOptions
from dractl.explain.outcome import node_explanation, rank_and_group
from dractl.explain.report import Explanation, NodeExplanation
from dractl.explain.whatif import WhatIf, apply
from dractl.io.world import World
from dractl.matcher.api import AllocatedState
from dractl.matcher.engine import Allocator
from dractl.matcher.implementations import choose
from dractl.model import objects as o
from dractl.model.features import Features, gate_basis

# Devices in use are checked against the selectors for latent CEL errors (warnings) on every
# node of clusters up to this size; on bigger ones only where the claims do not fit.
PROBE_FITTING_NODES_UP_TO = 100


@dataclass(frozen=True)
class TargetSpec:
    """What the user asked about: claim objects from files, ``--claim`` references or a
    ``--pod`` reference (exactly one of the three kinds), and the default namespace."""

    claim_objects: tuple[o.ResourceClaim | o.ResourceClaimTemplate, ...] = ()
    claim_refs: tuple[str, ...] = ()
    pod_ref: str | None = None
    namespace: str = "default"


def resolve(
    world: World, spec: TargetSpec, whatif: WhatIf, features: Features | None = None
) -> tuple[World, tgt.Target]:
    """The target in the what-if world.  Claims from files replace world claims of the same name."""
    if spec.pod_ref is not None:
        ext = features.extended_resource if features is not None else True
        return world, tgt.from_pod(world, spec.pod_ref, spec.namespace, ext)
    if spec.claim_refs:
        return world, tgt.from_claim_names(world, list(spec.claim_refs), spec.namespace)
    objs = list(spec.claim_objects)
    if whatif.ignore_allocations:
        objs = [
            replace(c, allocation=None, reserved_for=()) if isinstance(c, o.ResourceClaim) else c
            for c in objs
        ]
    target = tgt.from_claim_objects(objs, spec.namespace)
    keys = {tc.key for tc in target.claims}
    kept = tuple(c for c in world.claims if c.meta.key not in keys)
    extra = tuple(tc.claim for tc in target.claims if tc.allocated)
    return world.with_objects(claims=kept + extra), target


def dry_run_share_ids() -> Callable[[], str]:
    """Share IDs of a dry run: the scheduler picks random UUIDs, but nothing is written here, so
    they are derived from a counter (uuid5) and the JSON is the same on every run."""
    import itertools
    import uuid

    counter = itertools.count(1)
    space = uuid.UUID("8c6f8b8e-6a51-4d1e-9e55-64726163746c")
    return lambda: str(uuid.uuid5(space, f"share-{next(counter)}"))


def explain(world: World, spec: TargetSpec, options: ExplainOptions) -> Explanation:
    """Explain where (and why not) the target's claims would be allocated.

    Raises InputError for a ``--node`` that does not exist or a world without nodes.
    Never mutates ``world``.
    """
    _check_without(world, options.whatif)
    world, target = resolve(apply(world, options.whatif), spec, options.whatif, options.features)
    names = _nodes(world, options.node)
    catalog = Catalog.of(world)
    warnings: list[str] = []
    state = AllocatedState.from_claims(world.claims)
    allocator = Allocator(
        world.device_classes,
        world.slices,
        options.features,
        allocated=state,
        taint_rules=world.taint_rules,
        implementation=options.allocator,
        share_ids=dry_run_share_ids(),
    )
    results: list[NodeExplanation] = []
    scheduler_error: str | None = None
    for name in names if not target.blockers else ():  # a pod-level blocker: no node is tried
        node = world.node(name) or o.Node(meta=o.ObjectMeta(name=name))
        ne, fatal = _one_node(allocator, catalog, world, target, node, options, warnings)
        results.append(ne)
        if fatal and scheduler_error is None:
            scheduler_error = f"{fatal} (on node {name})"
    ranked, groups = rank_and_group(results)
    best = None
    steps = 0
    if options.best_fit:
        from dractl.explain.bestfit import best_fit

        best, steps = best_fit(
            allocator, world, target, [n for n in ranked if n.status == "allocated"], options
        )
    return Explanation(
        target=_target_dict(target),
        nodes=tuple(ranked),
        evaluated=len(results),
        fits=sum(1 for n in ranked if n.status == "allocated"),
        scheduler_error=scheduler_error,
        blockers=target.blockers,
        groups=tuple(groups),
        notes=target.notes + _notes(world, target),
        warnings=tuple(warnings),
        not_modelled=_not_modelled(target),
        context=_context(world, options),
        best_fit=best,
        best_fit_steps=steps,
    )


def _check_without(world: World, whatif: WhatIf) -> None:
    known = set(world.node_names())
    for name in whatif.without_nodes:
        if name not in known:
            raise InputError(f"--without-node {name}: no such node in the given objects")


def _nodes(world: World, only: str | None) -> list[str]:
    names = world.node_names()
    if not names:
        raise InputError(
            "no nodes to explain against: the inputs have no Node objects and no "
            "node-local ResourceSlices (give the cluster's objects with -f or --snapshot)"
        )
    if only is None:
        return names
    if only not in names:
        import difflib

        close = difflib.get_close_matches(only, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" ({len(names)} nodes known)"
        raise InputError(f"node {only!r} not found in the given objects{hint}")
    return [only]


def _one_node(
    allocator: Allocator,
    catalog: Catalog,
    world: World,
    target: tgt.Target,
    node: o.Node,
    options: ExplainOptions,
    warnings: list[str],
) -> tuple[NodeExplanation, str | None]:
    name = node.meta.name
    reasons = pod_node_blockers(target.pod, node)
    for tc in target.claims:
        alloc = tc.claim.allocation
        if alloc is not None and not selector_matches(alloc.node_selector, node):
            where = _named_nodes(alloc.node_selector)
            on = f" on {', '.join(where)}" if where else ""
            reasons.append(f"claim {tc.key} is already allocated{on}; its node selector excludes this node")
    if reasons:
        return NodeExplanation(name, "filtered", tuple(reasons)), None
    pending = [tc.claim for tc in target.claims if tc.claim.allocation is None]
    if target.pod is not None and target.extended:
        ext = extended_claim(world, target.pod, node)
        if ext is not None:
            pending.append(ext)
    outcome = allocator.allocate(node, pending, trace=True) if pending else None
    warnings.extend(w for w in (outcome.warnings if outcome else ()) if w not in warnings)
    probe = _probe(allocator, world)
    fitting = len(world.nodes) <= PROBE_FITTING_NODES_UP_TO
    return node_explanation(
        name, target, pending, outcome, catalog, options.examples, probe, warnings, fitting
    )


def _named_nodes(selector: object) -> list[str]:
    """Node names a selector lists in ``matchFields metadata.name In`` (how the scheduler pins)."""
    names: list[str] = []
    terms = selector.get("nodeSelectorTerms") if isinstance(selector, dict) else None
    for term in terms or ():
        for f in term.get("matchFields") or () if isinstance(term, dict) else ():
            if isinstance(f, dict) and f.get("key") == "metadata.name" and f.get("operator") == "In":
                names.extend(str(v) for v in f.get("values") or ())
    return names


def _probe(allocator: Allocator, world: World) -> Probe:
    """Selectors of a class and a request on one device, through the allocator's cache."""
    from dractl.matcher.selection import SelectorFailure

    def probe(device: o.Device, class_name: str, selectors: tuple[str, ...]) -> bool | str:
        cls = world.device_class(class_name)
        try:
            return all(
                allocator.selectors.matches(e, device) for e in (*(cls.selectors if cls else ()), *selectors)
            )
        except SelectorFailure as fail:
            return fail.message

    return probe


def _target_dict(target: tgt.Target) -> dict[str, object]:
    claims = []
    for tc in target.claims:
        requests = [r.name for r in tc.claim.spec.requests]
        claims.append(
            {
                "name": tc.key,
                "origin": tc.origin,
                "podClaim": tc.pod_claim,
                "template": tc.template,
                "allocated": tc.allocated,
                "requests": requests,
            }
        )
    pod = f"{target.pod.meta.namespace}/{target.pod.meta.name}" if target.pod else None
    ext = [{"resource": r, "count": n} for r, n in target.extended]
    return {"name": target.name, "pod": pod, "claims": claims, "extendedResources": ext}


def _notes(world: World, target: tgt.Target) -> tuple[str, ...]:
    out = []
    if not world.nodes:
        out.append(
            "no Node objects given: nodes are taken from the ResourceSlices (labels and taints unknown)"
        )
    for tc in target.claims:
        if tc.allocated:
            out.append(
                f"claim {tc.key} is already allocated: it is not re-allocated, and its node "
                "selector limits the nodes"
            )
    return tuple(out)


def _not_modelled(target: tgt.Target) -> tuple[str, ...]:
    if target.pod is None:
        return (
            "only DRA is evaluated: node taints, node selectors and other pod-level filters "
            "apply to pods (use --pod)",
        )
    return tuple(NOT_MODELLED)


def _context(world: World, options: ExplainOptions) -> dict[str, object]:
    return {
        "kubeVersion": options.kube_version,
        "featureGates": options.features.to_dict(),
        "featureOverrides": list(options.feature_overrides),
        "featureGateBasis": gate_basis(options.kube_version, options.features, options.feature_overrides),
        "sources": list(world.sources),
        "whatIf": options.whatif.to_dict(),
        "node": options.node,
        "allocator": {
            "requested": options.allocator,
            "implementation": choose(options.features, options.allocator),
        },
    }
