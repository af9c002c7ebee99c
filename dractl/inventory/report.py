"""The document every inventory view writes for ``-o json|yaml``.

``{"apiVersion": "dractl/v1alpha1", "kind": KIND, "context": {...}, "summary": {...},
"items": [...], "warnings": [...]}``, keys in that order; the published schemas are
``schemas/output/<view>-report.schema.json``.  Within v1alpha1 fields may be added, none is
removed or changes meaning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dractl.errors import bounded_all

API_VERSION = "dractl/v1alpha1"


def envelope(
    kind: str,
    context: Mapping[str, Any],
    items: list[Any],
    summary: Mapping[str, Any],
    warnings: Iterable[str] = (),
) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "context": dict(context),
        "summary": dict(summary),
        "items": items,
        "warnings": bounded_all(warnings),
    }


def view_context(
    sources: Sequence[str],
    kube_version: str,
    overrides: Sequence[str] = (),
    features: Any = None,
    missing: Sequence[str] = (),
) -> dict[str, Any]:
    """The report's ``context``: the inputs, the Kubernetes release, the gate overrides and, with
    ``features`` (the gates the view applied), every gate's value and what they were assumed from
    (``featureGateBasis``, :func:`dractl.model.features.gate_basis`); ``missing`` names the reads
    that failed or were denied (only present when there are some: the view is incomplete)."""
    out: dict[str, Any] = {
        "sources": list(sources),
        "kubeVersion": kube_version,
        "featureGateOverrides": list(overrides),
    }
    if features is not None:
        from dractl.model.features import gate_basis

        out["featureGates"] = features.to_dict()
        out["featureGateBasis"] = gate_basis(kube_version, features, overrides)
    if missing:  # a partial read (--partial, a namespace-only user): the view is not complete
        out["missing"] = list(missing)
    return out
