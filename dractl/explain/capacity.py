"""``dractl capacity``: how many more copies of a pod (or of a set of claims) fit.

The simulation places copies one after another, each allocated exactly as the
allocator would (its candidate order, first fit), on the first node in a
documented order where it fits.  Every placement is committed to the one
:class:`~dractl.matcher.engine.Allocator` before the next copy (as kube-scheduler's
assumed claims are), so the count is what the scheduler would reach by placing
copies until one does not fit.

How a copy is made (the conventions of ``explain-allocation``):

- claims from files and ``--claim`` references are shapes: every copy gets a fresh,
  unallocated claim with the same spec (the named claim itself stays as it is);
- a pod's template claims are created fresh for every copy, as the resource-claim
  controller would; its DRA-backed extended resources get a fresh claim too;
- a pod's named claims (``resourceClaimName``) are shared by every copy: allocated
  with the first copy if they are not yet, reserved by each copy (at most 256
  consumers), and their node selector limits the nodes.

A node where a copy does not fit never takes a later one: placements only ever
add to the allocated state, and the allocator's search is complete, so
feasibility can only shrink.  That keeps the simulation at (copies + nodes)
allocation attempts in ``name`` order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dractl.explain.capacity_report import (
    BestFitComparison,
    Blocking,
    CapacityReport,
)
from dractl.explain.engine import ExplainOptions, TargetSpec, explain, resolve
from dractl.explain.fragmentation import fragmentation
from dractl.explain.simulation import (  # noqa: F401 - the engine's public names
    DEFAULT_MAX_COPIES,
    ORDERS,
    SHARE_ID_NAMESPACE,
    CapacityOptions,
    Shape,
    Simulation,
    renamed,
)
from dractl.explain.simulation_bestfit import BEST_FIT_NODES  # noqa: F401 - a public name
from dractl.explain.whatif import apply
from dractl.io.world import World
from dractl.matcher.api import AllocatedState
from dractl.matcher.engine import Allocator
from dractl.model import objects as o
from dractl.model.features import Features, gate_basis

# The next copy is explained on at most this many nodes (those with the most unallocated devices).
EXPLAIN_NODES_UP_TO = 200


def capacity(world: World, spec: TargetSpec, options: CapacityOptions) -> CapacityReport:
    """Count the copies of ``spec`` that fit, gang feasibility, fragmentation, best-fit advice.

    Raises InputError for references the world lacks (as explain-allocation).  Never
    mutates ``world``.
    """
    world = apply(world, options.whatif)
    world, target = resolve(world, spec, options.whatif, options.features)
    shape = Shape.of(world, target)
    sim = Simulation(world, shape, options, best_fit=False)
    first = sim.run()
    blocking, _ = _blocking(sim, options) if options.explain_blocking else (None, None)
    frag = fragmentation(sim)
    comparison = None
    if options.best_fit:
        better = Simulation(world, shape, options, best_fit=True)
        better.run()
        comparison = BestFitComparison(
            first_fit=sim.copies,
            best_fit=better.copies,
            nodes=tuple(better.per_node(free=False)),
            reordered=better.reordered,
            within_node="ranked" if better.ranks_within_node else "allocator",
        )
    return CapacityReport(
        target=target.name,
        copies=sim.copies,
        limited=sim.limited,
        replicas=options.replicas,
        order=options.order,
        nodes=tuple(sim.per_node()),
        pools=tuple(sorted(sim.per_pool().items())),
        placements=tuple(first),
        blocking=blocking,
        fragmentation=frag,
        best_fit=comparison,
        error=sim.error,
        notes=tuple(n for n in target.notes if not n.startswith("the pod is already bound")) + sim.notes(),
        context=_context(world, options),
        attempts=sim.attempts,
        unbounded=sim.unbounded,
    )


# --------------------------------------------------------------------------- why the next one fails


def _blocking(sim: Simulation, options: CapacityOptions) -> tuple[Blocking | None, object | None]:
    """Explain copy N+1 on the world with every placed copy allocated (explain's funnel)."""
    if sim.limited or sim.error is not None:
        return None, None
    if sim.shape.blockers:
        return Blocking(message=sim.shape.blockers[0], nodes=0, groups=()), None
    k = len(sim.placements) + 1
    world = sim.final_world()
    if sim.shape.pod is not None:
        pod = sim.shape.pod_copy(k)
        assert pod is not None
        world = world.with_objects(pods=(*world.pods, pod))
        spec = TargetSpec(pod_ref=f"{pod.meta.namespace}/{pod.meta.name}", namespace=pod.meta.namespace)
    else:
        fresh = sim.shape.claims_for(k)
        spec = TargetSpec(
            claim_objects=tuple(fresh), namespace=fresh[0].meta.namespace if fresh else "default"
        )
    world, sampled = _sample(sim, world)
    exp_options = ExplainOptions(features=options.features, kube_version=options.kube_version, examples=3)
    if "implementation" in ExplainOptions.__dataclass_fields__:  # explain's --allocator
        exp_options = replace(exp_options, implementation=options.implementation)  # type: ignore[call-arg]
    explanation = explain(world, spec, exp_options)
    if explanation.fits:  # cannot happen when the simulation is right: say so rather than hide it
        return Blocking(
            message=f"inconsistent: copy {k} fits on {explanation.fits} node(s) when explained",
            nodes=explanation.fits,
            groups=(),
        ), explanation
    groups = tuple((g.message, g.count, g.examples) for g in explanation.groups)
    if explanation.scheduler_error:
        message = f"the scheduler would fail the pod: {explanation.scheduler_error}"
    elif explanation.blockers:
        message = explanation.blockers[0]
    elif groups:
        message = groups[0][0]
    else:
        message = "no node to place it on"
    return Blocking(message=message, nodes=explanation.evaluated, groups=groups, sampled=sampled), explanation


def _sample(sim: Simulation, world: World) -> tuple[World, int]:
    """On big clusters, explain the next copy on the nodes with the most unallocated devices only
    (ties by name): the funnel of 5,000 nodes that all fail says little more than that of
    the closest 200, and costs seconds.  Returns the world and the number of nodes left out."""
    names = [n for n in sim.node_names if n not in sim.filtered]
    if len(names) <= EXPLAIN_NODES_UP_TO:
        return world, 0
    keep = sorted(names, key=lambda n: (-sim.unallocated_devices(n), n))[:EXPLAIN_NODES_UP_TO]
    nodes = tuple(sim.nodes[n] for n in sorted(keep))
    return world.with_objects(nodes=nodes), len(names) - len(keep)


def _context(world: World, options: CapacityOptions) -> dict[str, object]:
    return {
        "kubeVersion": options.kube_version,
        "featureGates": options.features.to_dict(),
        "featureOverrides": list(options.feature_overrides),
        "featureGateBasis": gate_basis(options.kube_version, options.features, options.feature_overrides),
        "sources": list(world.sources),
        "whatIf": options.whatif.to_dict(),
        "order": options.order,
        "maxCopies": options.max_copies,
        "allocator": options.implementation,
    }


def count_sequential(
    world: World,
    claims: Sequence[o.ResourceClaim],
    features: Features,
    limit: int = 1000,
    implementation: str = "auto",
) -> int:
    """Reference count for tests: a loop of ``allocate()`` on a fresh Allocator per copy, each
    success added to the allocated claims, nodes in name order.  Slow; no shortcuts."""
    placed: list[o.ResourceClaim] = []
    names = world.node_names()
    for k in range(1, limit + 1):
        copy = [renamed(c, k) for c in claims]
        state = AllocatedState.from_claims([*world.claims, *placed])
        allocator = Allocator(
            world.device_classes,
            world.slices,
            features,
            allocated=state,
            taint_rules=world.taint_rules,
            implementation=implementation,
        )
        for name in names:
            node = world.node(name) or o.Node(meta=o.ObjectMeta(name=name))
            out = allocator.allocate(node, copy, trace=False)
            if out.status == "allocated":
                placed.extend(replace(c, allocation=r) for c, r in zip(copy, out.results, strict=True))
                break
        else:
            return k - 1
    return limit
