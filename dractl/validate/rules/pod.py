"""The API server's rules for the DRA parts of a Pod spec (also every workload's pod template).

Only what dractl reads is checked (``spec.resourceClaims`` and the containers' ``resources.claims``),
with the wording of Kubernetes' core validation (validatePodResourceClaims and
validateResourceClaimNames in pkg/apis/core/validation): a claim entry needs a unique DNS-label
name and exactly one of ``resourceClaimName`` / ``resourceClaimTemplateName``; every container claim
reference must name one of the pod's claims, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.findings import Finding
from dractl.validate.options import ValidateOptions
from dractl.validate.rules import formats as F
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str

_CONTAINER_LISTS = ("initContainers", "containers")


def check_pod(raw: Mapping[str, Any], opts: ValidateOptions) -> list[Finding]:
    """Findings for the DRA fields of one (schema-checked) Pod; never raises on odd shapes."""
    ctx = Ctx(opts=opts, kind="Pod", api_version="v1")
    spec = as_map(raw.get("spec"))
    names = _claims(ctx, as_list(spec.get("resourceClaims")), "spec.resourceClaims")
    for field in _CONTAINER_LISTS:
        for i, container in enumerate(as_list(spec.get(field))):
            claims = as_map(as_map(container).get("resources")).get("claims")
            _references(ctx, as_list(claims), names, f"spec.{field}[{i}].resources.claims")
    return ctx.findings


def _claims(ctx: Ctx, claims: list[Any], path: str) -> set[str]:
    names: set[str] = set()
    for i, claim in enumerate(claims):
        claim = as_map(claim)
        cpath = f"{path}[{i}]"
        name = as_str(claim.get("name"))
        if not name:
            ctx.required("POD-CLAIM-NAME", f"{cpath}.name")
        elif name in names:
            ctx.duplicate("POD-CLAIM-NAME", f"{cpath}.name", name)
        else:
            ctx.format_errors("POD-CLAIM-NAME", f"{cpath}.name", name, F.is_dns_label(name))
            names.add(name)
        by_name, by_template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        if by_name is not None and by_template is not None:
            ctx.invalid(
                "POD-CLAIM-ONEOF",
                cpath,
                dict(claim),
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
            )
        elif by_name is None and by_template is None and "source" not in claim:
            # (a removed ``source`` is reported as POD-CLAIM-SOURCE: not twice)
            ctx.invalid(
                "POD-CLAIM-ONEOF",
                cpath,
                dict(claim),
                "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
            )
        for key in ("resourceClaimName", "resourceClaimTemplateName"):
            value = claim.get(key)
            if isinstance(value, str):
                ctx.format_errors("POD-CLAIM-ONEOF", f"{cpath}.{key}", value, F.is_dns_subdomain(value))
    return names


def _references(ctx: Ctx, claims: list[Any], names: set[str], path: str) -> None:
    seen: set[str] = set()
    for j, ref in enumerate(claims):
        rpath = f"{path}[{j}]"
        name = as_str(as_map(ref).get("name"))
        if not name:
            ctx.required("POD-CLAIM-REF", rpath)
            continue
        if name in seen:
            ctx.duplicate("POD-CLAIM-REF", rpath, name)
        seen.add(name)
        if name not in names:
            known = ": " + ", ".join(sorted(names)) if names else " which is empty"
            ctx.add(
                "POD-CLAIM-REF",
                "NotFound",
                rpath,
                f'Not found: "{name}": must be one of the names in pod.spec.resourceClaims{known}',
            )
