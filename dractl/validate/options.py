"""Options of every validation run (validate, claim/slice/class validate, lint)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dractl.model.features import DEFAULT_KUBE_VERSION, Features
from dractl.validate.versions import DEFAULT_RUNTIME, RuntimeConfig


@dataclass(frozen=True, slots=True, eq=False)
class OldObjects:
    """The previous versions of the objects (``--old FILE``), loaded once by the command with its
    input limits, keyed by (kind, namespace, name), in the internal (v1) shape
    (:func:`dractl.validate.rules.update.old_objects` builds it)."""

    by_key: Mapping[tuple[str, str, str], Mapping[str, Any]]

    def find(self, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The previous version of ``obj`` (None: ``obj`` is a create)."""
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        return self.by_key.get(
            (_text(obj.get("kind")), _text(meta.get("namespace")), _text(meta.get("name")))
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class ValidateOptions:
    """``kube_version`` is a minor (``"1.34"`` … ``"1.37"``); ``features`` the effective gates
    (defaults of that version unless overridden); ``strict`` turns warnings into errors for the
    exit code; ``status`` also applies status rules (RCS-…); ``lenient`` reports unknown fields as
    warnings (the server's fieldValidation=Warn) instead of errors; ``semantic`` runs the API-server
    rules and CEL checks beyond JSON Schema; ``old`` (the ``--old`` objects) enables update rules (UPD-…);
    ``runtime`` says which API versions the cluster serves (``--runtime-config``; default:
    kube-apiserver's, i.e. resource.k8s.io/v1 only); ``kube_patch`` is the patch release when known
    (``1.37.2`` → 2; None: any patch of the minor), read only where a patch changed behaviour."""

    kube_version: str = DEFAULT_KUBE_VERSION
    features: Features = field(default_factory=Features.for_version)
    strict: bool = False
    status: bool = False
    lenient: bool = False
    semantic: bool = True
    old: OldObjects | None = None
    runtime: RuntimeConfig = DEFAULT_RUNTIME
    kube_patch: int | None = None
