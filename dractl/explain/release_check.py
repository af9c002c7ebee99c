"""Would the chosen release's API server have accepted the world explain reasons over?

``explain-allocation`` answers for the release it is told (``--kube-version``, a snapshot's, or
1.37).  When the slices or classes it allocates from could not exist in that release (a field
its API server rejects, a gate it does not have, a version it does not serve), "fits" is an
answer about a cluster that cannot be: :func:`release_warnings` says so, naming each object and
the release's rule, and explain carries on with the objects as given.

Objects a live cluster served (or a snapshot recorded) at the same release were accepted by it
already; the caller runs this only for files, or when the release was chosen by a flag.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dractl.io.documents import LoadedDoc
from dractl.io.world import World
from dractl.model.features import Features
from dractl.model.origin import Origin

# Warnings named one by one; past this many the rest are counted.
MAX_NAMED = 10


def _docs(world: World) -> Iterable[LoadedDoc]:
    objects: list[Any] = [*world.device_classes, *world.slices]
    for obj in objects:
        if isinstance(obj.raw, dict) and obj.raw:
            yield LoadedDoc(obj.raw, obj.origin or Origin("<world>", 0))


def release_warnings(
    world: World, kube_version: str, features: Features, kube_patch: int | None = None
) -> list[str]:
    """One line per DeviceClass or ResourceSlice of ``world`` that Kubernetes ``kube_version``
    (with ``features``, serving its default API versions) would reject, naming the first error
    finding's rule and message; [] when all would be accepted."""
    from dractl.validate.engine import check_doc
    from dractl.validate.options import ValidateOptions

    opts = ValidateOptions(kube_version=kube_version, features=features, kube_patch=kube_patch)
    release = f"Kubernetes {kube_version}" + (f".{kube_patch}" if kube_patch is not None else "")
    out: list[str] = []
    rejected = 0
    for doc in _docs(world):
        _, findings = check_doc(doc, opts)
        errors = [f for f in findings if str(getattr(f.severity, "value", f.severity)) == "error"]
        if not errors:
            continue
        rejected += 1
        if len(out) < MAX_NAMED:
            first = errors[0]
            at = f" {first.path}:" if first.path else ""
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            name = str((doc.raw.get("metadata") or {}).get("name") or "<unnamed>")
            out.append(
                f"{doc.raw.get('kind')} {name}: the API server of {release} rejects it "
                f"({first.rule}{at} {first.message}){more}; the explanation still uses it as given"
            )
    if rejected > len(out):
        left = rejected - len(out)
        out.append(f"… and {left} more objects that {release} rejects (dractl lint lists them)")
    return out
