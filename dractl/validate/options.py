"""Options of every validation run (validate, claim/slice/class validate, lint)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dractl.model.features import DEFAULT_KUBE_VERSION, Features
from dractl.validate.versions import DEFAULT_RUNTIME, RuntimeConfig


@dataclass(frozen=True, slots=True)
class ValidateOptions:
    """``kube_version`` is a minor (``"1.34"`` … ``"1.37"``); ``features`` the effective gates
    (defaults of that version unless overridden); ``strict`` turns warnings into errors for the
    exit code; ``status`` also applies status rules (RCS-…); ``lenient`` reports unknown fields as
    warnings (the server's fieldValidation=Warn) instead of errors; ``semantic`` runs the API-server
    rules and CEL checks beyond JSON Schema; ``old_files`` enables update rules (UPD-…);
    ``runtime`` says which API versions the cluster serves (``--runtime-config``; default:
    kube-apiserver's, i.e. resource.k8s.io/v1 only); ``kube_patch`` is the patch release when known
    (``1.37.2`` → 2; None: any patch of the minor), read only where a patch changed behaviour."""

    kube_version: str = DEFAULT_KUBE_VERSION
    features: Features = field(default_factory=Features.for_version)
    strict: bool = False
    status: bool = False
    lenient: bool = False
    semantic: bool = True
    old_files: tuple[str, ...] = ()
    runtime: RuntimeConfig = DEFAULT_RUNTIME
    kube_patch: int | None = None
