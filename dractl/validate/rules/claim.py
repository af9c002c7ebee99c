"""ResourceClaim spec (RC-…, API-RULES.md §4); also ResourceClaimTemplate.spec.spec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.validate.cel_checks import check_expression
from dractl.validate.rules.common import (
    dns_label,
    dns_subdomain,
    fully_qualified_name,
    opaque_config,
    required_label,
)
from dractl.validate.rules.ctx import Ctx, as_list, as_map, as_str
from dractl.validate.rules.taints import toleration

RequestNames = dict[str, set[str] | None]
REF_DETAIL = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)


def request_names(devices: Mapping[str, Any]) -> RequestNames:
    names: RequestNames = {}
    for req in as_list(devices.get("requests")):
        req = as_map(req)
        subs = as_list(req.get("firstAvailable"))
        names[as_str(req.get("name"))] = {as_str(as_map(s).get("name")) for s in subs} if subs else None
    return names


def has_ref(names: RequestNames, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    return len(parts) == 1 or parts[1] in (names[parts[0]] or set())


class _ClaimState:
    def __init__(self, devices: Mapping[str, Any]) -> None:
        self.derived_cost = 0
        self.constraint_attrs: dict[str, set[str]] = {}
        for con in as_list(devices.get("constraints")):
            con = as_map(con)
            attr = con.get("matchAttribute") or con.get("distinctAttribute")
            if not isinstance(attr, str):
                continue
            for req in as_list(con.get("requests")) or [""]:
                self.constraint_attrs.setdefault(as_str(req), set()).add(attr)

    def used(self, attr: str, req: str) -> bool:
        parent = req.split("/", 1)[0] if "/" in req else None
        return any(attr in self.constraint_attrs.get(k, set()) for k in ("", req, parent) if k is not None)


def check_claim_spec(ctx: Ctx, spec: Mapping[str, Any], path: str) -> None:
    devices = as_map(spec.get("devices"))
    dpath = f"{path}.devices"
    names = request_names(devices)
    state = _ClaimState(devices)
    ctx.each_unique(
        "RC-REQ-MAX",
        "RC-REQ-UNIQUE",
        devices.get("requests"),
        ctx.limits.requests,
        f"{dpath}.requests",
        lambda r, p: _request(ctx, as_map(r), p, state),
        lambda r: as_str(as_map(r).get("name")),
    )
    ctx.each(
        "RC-CON-MAX",
        devices.get("constraints"),
        ctx.limits.constraints,
        f"{dpath}.constraints",
        lambda c, p: _constraint(ctx, as_map(c), p, names),
    )
    ctx.each(
        "RC-CFG-MAX",
        devices.get("config"),
        ctx.limits.config,
        f"{dpath}.config",
        lambda c, p: _claim_config(ctx, as_map(c), p, names),
    )
    if state.derived_cost > ctx.limits.derived_cost:
        ctx.forbidden(
            "RC-DERIVED-COST",
            dpath,
            "too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit",
        )


def _request(ctx: Ctx, req: Mapping[str, Any], path: str, state: _ClaimState) -> None:
    name = as_str(req.get("name"))
    required_label(ctx, "RC-REQ-NAME", req.get("name"), f"{path}.name")
    first = as_list(req.get("firstAvailable"))
    exactly = req.get("exactly")
    if not first and exactly is None:
        ctx.required("RC-REQ-ONEOF", path, "exactly one of `exactly` or `firstAvailable` is required")
    elif first and exactly is not None:
        ctx.invalid(
            "RC-REQ-ONEOF",
            path,
            None,
            "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
        )
    elif first:
        ctx.each_unique(
            "RC-FA-MAX",
            "RC-FA-UNIQUE",
            first,
            ctx.limits.first_available,
            f"{path}.firstAvailable",
            lambda s, p: _subrequest(ctx, as_map(s), p, state, name),
            lambda s: as_str(as_map(s).get("name")),
        )
    else:
        _exact(ctx, as_map(exactly), f"{path}.exactly", state, name)


def _subrequest(ctx: Ctx, sub: Mapping[str, Any], path: str, state: _ClaimState, parent: str) -> None:
    required_label(ctx, "RC-FA-NAME", sub.get("name"), f"{path}.name")
    _request_body(ctx, sub, path, state, f"{parent}/{as_str(sub.get('name'))}")


def _exact(ctx: Ctx, req: Mapping[str, Any], path: str, state: _ClaimState, name: str) -> None:
    _request_body(ctx, req, path, state, name)


def _request_body(ctx: Ctx, req: Mapping[str, Any], path: str, state: _ClaimState, ref: str) -> None:
    cls = as_str(req.get("deviceClassName"))
    if not cls:
        ctx.required("RC-CLASS", f"{path}.deviceClassName")
    else:
        dns_subdomain(ctx, "RC-CLASS", cls, f"{path}.deviceClassName")
    selectors(ctx, req.get("selectors"), f"{path}.selectors", "RC-SEL")
    _derived(ctx, req.get("derivedAttributes"), f"{path}.derivedAttributes", state, ref)
    _allocation_mode(ctx, req, path)
    for i, tol in enumerate(as_list(req.get("tolerations"))):
        toleration(ctx, tol, f"{path}.tolerations[{i}]")
    if len(as_list(req.get("tolerations"))) > ctx.limits.tolerations_doc:
        ctx.warn(
            "ADV-TOL-16",
            f"{path}.tolerations",
            f"more than {ctx.limits.tolerations_doc} tolerations: documented limit "
            "(not enforced by the server)",
        )


def selectors(ctx: Ctx, items: Any, path: str, prefix: str) -> None:
    """RC-SEL-MAX / RC-SEL-CEL-REQ / RC-CEL-* (also DeviceClass selectors with prefix DC-SEL)."""

    def one(sel: Any, p: str) -> None:
        cel = as_map(sel).get("cel")
        if not isinstance(cel, Mapping):
            ctx.required("RC-SEL-CEL-REQ" if prefix == "RC-SEL" else prefix, f"{p}.cel")
            return
        cel_expression(ctx, cel.get("expression"), f"{p}.cel.expression")

    ctx.each("RC-SEL-MAX" if prefix == "RC-SEL" else prefix, items, ctx.limits.selectors, path, one)


def cel_expression(ctx: Ctx, expr: Any, path: str, derived: bool = False) -> int:
    """RC-CEL-LEN / COMPILE / TYPE / COST; returns the estimated cost (0 when not compiled)."""
    text = as_str(expr)
    if ctx.stored_cel:
        return 0
    verdict = check_expression(text, ctx.features, derived=derived)
    if not text and verdict.error_type is None:
        ctx.invalid("RC-CEL-COMPILE", path, "", "compilation failed: the expression is empty")
        return 0
    if verdict.error_type == "TooLong":
        ctx.too_long("RC-CEL-LEN", path, ctx.limits.cel_length)
    elif verdict.error_type == "Forbidden":
        ctx.forbidden("RC-CEL-COST", path, verdict.message)
    elif verdict.error_type == "Required":
        ctx.required("RC-CEL-COMPILE", path, verdict.message)
    elif verdict.error_type is not None:
        rule = "RC-CEL-TYPE" if "must evaluate to" in verdict.message else "RC-CEL-COMPILE"
        ctx.invalid(rule, path, text, verdict.message)
    return verdict.cost


def _derived(ctx: Ctx, items: Any, path: str, state: _ClaimState, ref: str) -> None:
    def one(attr: Any, p: str) -> None:
        attr = as_map(attr)
        name = as_str(attr.get("name"))
        if not name:
            ctx.required("RC-DERIVED-NAME", f"{p}.name")
        else:
            fully_qualified_name(ctx, "RC-DERIVED-NAME", name, f"{p}.name")
            if not state.used(name, ref):
                ctx.invalid(
                    "RC-DERIVED-USED",
                    f"{p}.name",
                    name,
                    "must be referenced by at least one matchAttribute "
                    "or distinctAttribute constraint targeting this request",
                )
        if not as_str(attr.get("expression")):
            ctx.required("RC-DERIVED-EXPR", f"{p}.expression")
        else:
            state.derived_cost += cel_expression(ctx, attr.get("expression"), f"{p}.expression", derived=True)

    ctx.each_unique(
        "RC-DERIVED-MAX",
        "RC-DERIVED-UNIQUE",
        items,
        ctx.limits.derived,
        path,
        one,
        lambda a: as_str(as_map(a).get("name")),
    )


def _allocation_mode(ctx: Ctx, req: Mapping[str, Any], path: str) -> None:
    mode = req.get("allocationMode") or "ExactCount"  # DEF-ALLOCMODE
    count = req.get("count") or 0
    if not isinstance(count, int) or isinstance(count, bool):
        return
    if mode == "All":
        if count != 0:
            ctx.invalid(
                "RC-COUNT-ALL", f"{path}.count", count, "must not be specified when allocationMode is 'All'"
            )
    elif mode == "ExactCount":
        count = count or 1  # DEF-COUNT
        if count <= 0:
            ctx.invalid("RC-COUNT-EXACT", f"{path}.count", count, "must be greater than zero")
    else:
        ctx.not_supported("RC-ALLOC-MODE", f"{path}.allocationMode", as_str(mode), ["All", "ExactCount"])


def request_ref(ctx: Ctx, rule: str, ref: Any, path: str, names: RequestNames) -> None:
    """RC-REF: ``req`` or ``req/sub`` naming a request (subrequest) of the claim."""
    text = as_str(ref)
    parts = text.split("/")
    if len(parts) > 2:
        ctx.invalid(rule, path, text, REF_DETAIL)
        return
    for part in parts:
        dns_label(ctx, rule, part, path)
    if not has_ref(names, text):
        ctx.invalid(rule, path, text, REF_DETAIL)


def request_refs(ctx: Ctx, rule: str, items: Any, path: str, names: RequestNames) -> None:
    ctx.each_unique(
        rule,
        rule,
        items,
        ctx.limits.requests,
        path,
        lambda ref, p: request_ref(ctx, "RC-REF", ref, p, names),
        as_str,
    )


def _constraint(ctx: Ctx, con: Mapping[str, Any], path: str, names: RequestNames) -> None:
    request_refs(ctx, "RC-CON-REQS", con.get("requests"), f"{path}.requests", names)
    match, distinct = con.get("matchAttribute"), con.get("distinctAttribute")
    if match is not None:
        fully_qualified_name(ctx, "RC-CON-ATTR", as_str(match), f"{path}.matchAttribute")
        if distinct is not None:
            ctx.warn(
                "ADV-CON-BOTH",
                path,
                "both matchAttribute and distinctAttribute are set; the server validates only matchAttribute",
            )
    elif distinct is not None:
        fully_qualified_name(ctx, "RC-CON-ATTR", as_str(distinct), f"{path}.distinctAttribute")
    elif ctx.gate("consumable_capacity"):
        ctx.required(
            "RC-CON-ATTR",
            path,
            'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set',
        )
    else:
        ctx.required("RC-CON-ATTR", f"{path}.matchAttribute")


def _claim_config(ctx: Ctx, cfg: Mapping[str, Any], path: str, names: RequestNames) -> None:
    request_refs(ctx, "RC-CFG-REQS", cfg.get("requests"), f"{path}.requests", names)
    opaque_config(ctx, cfg, path)
