"""What to explain: the claims that are allocated together, and the pod they belong to.

Three ways in: claim files (their ResourceClaims and ResourceClaimTemplates),
``--claim [NS/]NAME`` (claims of the world) and ``--pod [NS/]NAME`` (all claims of
a pod, as kube-scheduler sees them: named claims looked up, template claims
looked up through the pod status or created as the claim controller would, and
DRA-backed extended resources turned into a claim; see :mod:`dractl.explain.extended`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dractl.errors import InputError
from dractl.io.world import World
from dractl.model import objects as o

RESERVED_FOR_MAX = 256  # ResourceClaimReservedForMaxSize (resource.k8s.io/v1)


@dataclass(frozen=True, slots=True)
class TargetClaim:
    """One claim to explain.  ``origin``: ``claim`` (exists in the world), ``file``
    (from a claim file), ``template`` (would be created from ``template``) or
    ``extended-resource`` (the scheduler's claim for extended resources).
    ``pod_claim`` is the entry name in ``pod.spec.resourceClaims``."""

    claim: o.ResourceClaim
    origin: str
    pod_claim: str | None = None
    template: str | None = None

    @property
    def key(self) -> str:
        return f"{self.claim.meta.namespace}/{self.claim.meta.name}"

    @property
    def allocated(self) -> bool:
        return self.claim.allocation is not None


@dataclass(frozen=True, slots=True)
class Target:
    """The claims of one scheduling decision.  ``blockers`` are reasons no node
    can work (a missing claim, a claim being deleted, a full reservedFor list);
    ``notes`` are facts worth saying (a pod already bound, a claim shared)."""

    claims: tuple[TargetClaim, ...]
    pod: o.Pod | None = None
    blockers: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    extended: tuple[tuple[str, int], ...] = field(default=())  # (resource name, count) backed by DRA

    @property
    def name(self) -> str:
        if self.pod is not None:
            return f"pod {self.pod.meta.namespace}/{self.pod.meta.name}"
        return ", ".join(f"claim {c.key}" for c in self.claims) or "nothing"


def split_ref(ref: str, namespace: str) -> tuple[str, str]:
    """``NS/NAME`` or ``NAME`` (in ``namespace``); InputError for anything else."""
    parts = ref.split("/")
    if len(parts) == 1 and parts[0]:
        return namespace, parts[0]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise InputError(f"{ref!r} is not a valid reference: expected NAME or NAMESPACE/NAME")


def from_claim_objects(objs: list[o.ResourceClaim | o.ResourceClaimTemplate], namespace: str) -> Target:
    """Claims given as files.  A template stands for the claim it would create."""
    out: list[TargetClaim] = []
    for obj in objs:
        if not obj.meta.namespace:
            obj = replace(obj, meta=replace(obj.meta, namespace=namespace))
        if isinstance(obj, o.ResourceClaimTemplate):
            out.append(
                TargetClaim(claim_from_template(obj, obj.meta.name), "template", template=obj.meta.name)
            )
        else:
            out.append(TargetClaim(obj, "file"))
    return Target(tuple(out), blockers=tuple(_claim_blockers(out, None)))


def from_claim_names(world: World, refs: list[str], namespace: str) -> Target:
    """``--claim`` references; a claim the world lacks is an input error (exit 2)."""
    out: list[TargetClaim] = []
    for ref in refs:
        ns, name = split_ref(ref, namespace)
        claim = world.claim(ns, name)
        if claim is None:
            raise InputError(
                f"ResourceClaim {ns}/{name} not found in the given objects"
                + _near(name, [c.meta.name for c in world.claims if c.meta.namespace == ns])
            )
        out.append(TargetClaim(claim, "claim"))
    return Target(tuple(out), blockers=tuple(_claim_blockers(out, None)))


def from_pod(world: World, ref: str, namespace: str, extended_resources: bool = True) -> Target:
    """All claims of a pod, resolved as kube-scheduler and the claim controller would."""
    from dractl.explain.extended import extended_requests

    ns, name = split_ref(ref, namespace)
    pod = world.pod(ns, name)
    if pod is None:
        raise InputError(
            f"Pod {ns}/{name} not found in the given objects"
            + _near(name, [p.meta.name for p in world.pods if p.meta.namespace == ns])
        )
    claims: list[TargetClaim] = []
    blockers: list[str] = []
    notes: list[str] = []
    if pod.node_name:
        notes.append(f"the pod is already bound to node {pod.node_name}; explained as if it were pending")
    for entry in pod.resource_claims:
        resolved = _resolve_entry(world, pod, entry, blockers)
        if resolved is not None:
            claims.append(resolved)
    blockers.extend(_claim_blockers(claims, pod))
    for tc in claims:
        others = [r for r in tc.claim.reserved_for if not _reserved_for_ref(r, pod)]
        if tc.allocated and others and len(tc.claim.reserved_for) < RESERVED_FOR_MAX:
            notes.append(
                f"claim {tc.key} is shared: already reserved for {len(others)} other consumer"
                + ("" if len(others) == 1 else "s")
            )
    ext = extended_requests(world, pod)
    if ext and not extended_resources:
        notes.append(
            "DRAExtendedResource is off: "
            + ", ".join(r for r, _ in ext)
            + " would be left to device plugins (not evaluated)"
        )
        ext = ()
    elif ext:
        notes.append("extended resources backed by DRA: " + ", ".join(f"{r}: {n}" for r, n in ext))
    return Target(tuple(claims), pod, tuple(blockers), tuple(notes), ext)


def _resolve_entry(
    world: World, pod: o.Pod, entry: o.PodResourceClaim, blockers: list[str]
) -> TargetClaim | None:
    ns = pod.meta.namespace
    if entry.resource_claim_name:
        claim = world.claim(ns, entry.resource_claim_name)
        if claim is None:
            blockers.append(
                f"resourceclaim {ns}/{entry.resource_claim_name} (pod claim {entry.name}) not found"
            )
            return None
        return TargetClaim(claim, "claim", entry.name)
    if not entry.resource_claim_template_name:
        return None  # neither set: the API server rejects this; nothing to allocate
    generated = pod.claim_statuses.get(entry.name)
    if generated:
        claim = world.claim(ns, generated)
        if claim is not None:
            return TargetClaim(claim, "claim", entry.name, entry.resource_claim_template_name)
    template = world.template(ns, entry.resource_claim_template_name)
    if template is None:
        blockers.append(
            f"resourceclaimtemplate {ns}/{entry.resource_claim_template_name} "
            f"(pod claim {entry.name}) not found"
        )
        return None
    claim = claim_from_template(template, f"{pod.meta.name}-{entry.name}", pod)
    return TargetClaim(claim, "template", entry.name, template.meta.name)


def claim_from_template(
    template: o.ResourceClaimTemplate, base: str, pod: o.Pod | None = None
) -> o.ResourceClaim:
    """The claim the resource-claim controller would create: the template's spec,
    labels and annotations, ``generateName: <pod>-<entry>-`` and the pod as owner.
    Until the server picks the random suffix the name shows as ``<base>-<generated>``."""
    owners: tuple[o.Raw, ...] = ()
    if pod is not None:
        owners = (
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod.meta.name,
                "uid": pod.meta.uid,
                "controller": True,
                "blockOwnerDeletion": True,
            },
        )
    meta = o.ObjectMeta(
        name=f"{base}-<generated>",
        namespace=template.meta.namespace,
        generate_name=f"{base}-",
        labels=dict(template.template_labels),
        annotations=dict(template.template_annotations),
        owner_references=owners,
    )
    return o.ResourceClaim(meta=meta, spec=template.spec, origin=template.origin)


def _claim_blockers(claims: list[TargetClaim], pod: o.Pod | None) -> list[str]:
    """Claims kube-scheduler refuses before allocating: being deleted, or allocated
    and reserved by the maximum number of other consumers."""
    out: list[str] = []
    for tc in claims:
        c = tc.claim
        if c.meta.deletion_timestamp:
            out.append(f"resourceclaim {tc.key} is being deleted")
        elif (
            c.allocation is not None and len(c.reserved_for) >= RESERVED_FOR_MAX and not _reserved_for(c, pod)
        ):
            out.append(
                f"resourceclaim {tc.key} is in use: reservedFor already lists "
                f"{len(c.reserved_for)} consumers (the maximum is {RESERVED_FOR_MAX})"
            )
    return out


def _reserved_for_ref(r: o.ResourceClaimConsumerReference, pod: o.Pod) -> bool:
    return r.resource == "pods" and r.name == pod.meta.name and (not pod.meta.uid or r.uid == pod.meta.uid)


def _reserved_for(claim: o.ResourceClaim, pod: o.Pod | None) -> bool:
    if pod is None:
        return False
    return any(_reserved_for_ref(r, pod) for r in claim.reserved_for)


def _near(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
