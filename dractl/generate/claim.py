"""ResourceClaims and ResourceClaimTemplates from flags (``dractl generate claim|template``).

One request (``--request``, default: the first label of the class name), either exact
(``--count``/``--all``) or a prioritized list of alternatives (``--first-available``, tried in
order: "one 80Gi GPU, else two 40Gi"), plus ``--match-attribute`` constraints.  The shape is
``resource.k8s.io/v1`` (``exactly:`` / ``firstAvailable:``), served by every release dractl
supports (1.34–1.37).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from dractl.errors import UsageError
from dractl.generate import celexpr
from dractl.model.features import Features

API_VERSION = "resource.k8s.io/v1"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_EFFECTS = ("NoSchedule", "NoExecute", "None")
_OPERATORS = ("Exists", "Equal")
# keys of one --first-available alternative; "," before one of them starts the next key
ALT_KEYS = (
    "name",
    "class",
    "count",
    "all",
    "min-capacity",
    "attr",
    "cel",
    "toleration",
    "capacity-request",
    "admin-access",
)
_ALT_SPLIT = re.compile(r",(?=\s*(?:" + "|".join(re.escape(k) for k in ALT_KEYS) + r")(?:=|,|$))")


@dataclass(frozen=True)
class RequestSpec:
    """One request or one ``firstAvailable`` alternative.  Empty tuples mean "none";
    ``count`` None with ``all`` False means one device."""

    name: str = ""
    device_class: str = ""
    count: int | None = None
    all: bool = False
    attrs: tuple[str, ...] = ()
    min_capacity: tuple[str, ...] = ()
    cel: tuple[str, ...] = ()
    tolerations: tuple[str, ...] = ()
    admin_access: bool = False
    capacity_requests: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClaimSpec:
    name: str
    namespace: str | None = None
    request: RequestSpec = field(default_factory=RequestSpec)
    first_available: tuple[RequestSpec, ...] = ()
    match_attributes: tuple[str, ...] = ()
    driver: str | None = None  # the domain for unqualified attribute/capacity names
    features: Features = field(default_factory=Features.for_version)


def claim_doc(spec: ClaimSpec, kind: str = "ResourceClaim") -> dict[str, Any]:
    """The claim (or, with ``kind="ResourceClaimTemplate"``, a template of it).  UsageError for
    bad flags and for selectors dractl's CEL engine rejects."""
    check_name(spec.name, "NAME")
    if spec.namespace is not None:
        check_label(spec.namespace, "--namespace")
    devices: dict[str, Any] = {"requests": [_request(spec)]}
    if spec.match_attributes:
        domain = spec.driver or _class_domain(spec.request.device_class)
        devices["constraints"] = [
            {
                "requests": [devices["requests"][0]["name"]],
                "matchAttribute": str(celexpr.qualify(a, domain, "--match-attribute")),
            }
            for a in spec.match_attributes
        ]
    meta: dict[str, Any] = {"name": spec.name}
    if spec.namespace is not None:
        meta["namespace"] = spec.namespace
    body: dict[str, Any] = {"devices": devices}
    if kind == "ResourceClaimTemplate":
        body = {"spec": body}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": meta, "spec": body}


def _request(spec: ClaimSpec) -> dict[str, Any]:
    req = spec.request
    name = req.name or default_request_name(
        req.device_class or next((a.device_class for a in spec.first_available), "")
    )
    check_label(name, "--request")
    if not spec.first_available:
        return {"name": name, "exactly": _exact(req, spec, "")}
    if req.count is not None or req.all or req.attrs or req.min_capacity or req.cel or req.capacity_requests:
        raise UsageError(
            "--first-available replaces --count, --all, --attr, --min-capacity, --cel and "
            "--capacity-request; put them inside each alternative"
        )
    if len(spec.first_available) > 8:
        raise UsageError("--first-available: at most 8 alternatives (the API server's limit)")
    subs, seen = [], set()
    for i, alt in enumerate(spec.first_available, 1):
        alt = replace(
            alt,
            device_class=alt.device_class or req.device_class,
            tolerations=alt.tolerations or req.tolerations,
            admin_access=alt.admin_access or req.admin_access,
        )
        sub_name = alt.name or f"alt-{i}"
        check_label(sub_name, "--first-available name")
        if sub_name in seen:
            raise UsageError(f"--first-available: two alternatives are named {sub_name!r}")
        seen.add(sub_name)
        subs.append({"name": sub_name, **_exact(alt, spec, f"--first-available #{i}: ")})
    return {"name": name, "firstAvailable": subs}


def _exact(req: RequestSpec, spec: ClaimSpec, where: str) -> dict[str, Any]:
    if not req.device_class:
        raise UsageError(f"{where}--class is required (the DeviceClass to request devices of)")
    check_name(req.device_class, f"{where}--class")
    domain = spec.driver or _class_domain(req.device_class)
    out: dict[str, Any] = {"deviceClassName": req.device_class}
    selectors = [(celexpr.attribute(a, domain, f"{where}--attr"), "--attr") for a in req.attrs]
    selectors += [
        (celexpr.min_capacity(c, domain, f"{where}--min-capacity"), "--min-capacity")
        for c in req.min_capacity
    ]
    selectors += [(e, "--cel") for e in req.cel]
    if selectors:
        out["selectors"] = [
            {"cel": {"expression": celexpr.check(e, spec.features, where + flag)}} for e, flag in selectors
        ]
    if req.all and req.count is not None:
        raise UsageError(f"{where}--all and --count exclude each other")
    if req.all:
        out["allocationMode"] = "All"
    else:
        if req.count is not None and not 1 <= req.count <= 128:
            raise UsageError(f"{where}--count must be between 1 and 128, not {req.count}")
        out["allocationMode"] = "ExactCount"
        out["count"] = req.count or 1
    if req.admin_access:
        out["adminAccess"] = True
    if req.tolerations:
        out["tolerations"] = [parse_toleration(t, f"{where}--toleration") for t in req.tolerations]
    if req.capacity_requests:
        out["capacity"] = {
            "requests": dict(
                _capacity_request(c, domain, f"{where}--capacity-request") for c in req.capacity_requests
            )
        }
    return out


def parse_toleration(text: str, flag: str = "--toleration") -> dict[str, Any]:
    """``KEY[=VALUE][:OPERATOR][:EFFECT]`` (e.g. ``gpu.nvidia.com/xid:Exists:NoSchedule``,
    ``gpu.nvidia.com/xid=79:NoExecute``); an empty KEY with Exists tolerates every taint."""
    head, *rest = text.split(":")
    key, sep, value = head.partition("=")
    operator, effect = "", ""
    for word in rest:
        if word in _OPERATORS and not operator:
            operator = word
        elif word in _EFFECTS and not effect:
            effect = word
        else:
            raise UsageError(
                f"{flag}: {word!r} in {text!r} is neither an operator ({', '.join(_OPERATORS)}) "
                f"nor an effect ({', '.join(_EFFECTS)}); expected KEY[=VALUE][:OPERATOR][:EFFECT]"
            )
    operator = operator or ("Equal" if sep else "Exists")
    if operator == "Exists" and sep:
        raise UsageError(f"{flag}: operator Exists takes no value ({text!r})")
    if key:
        celexpr_key(key, flag)
    elif operator != "Exists":
        raise UsageError(f"{flag}: an empty key needs operator Exists ({text!r})")
    out: dict[str, Any] = {}
    if key:
        out["key"] = key
    out["operator"] = operator
    if sep:
        out["value"] = value
    if effect:
        out["effect"] = effect
    return out


_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def celexpr_key(key: str, flag: str) -> None:
    """A taint key is a qualified name (``[DNS-SUBDOMAIN/]NAME``, name ≤ 63)."""
    if not _KEY.match(key) or len(key.rpartition("/")[2]) > 63:
        raise UsageError(f"{flag}: {key!r} is not a valid taint key (e.g. gpu.nvidia.com/xid)")


def _capacity_request(text: str, domain: str | None, flag: str) -> tuple[str, str]:
    from dractl.model.quantity import Quantity, QuantityError

    name, sep, value = text.partition("=")
    if not sep or not value.strip():
        raise UsageError(f"{flag}: expected NAME=QUANTITY (e.g. memory=10Gi), got {text!r}")
    try:
        Quantity.parse(value.strip())
    except QuantityError:
        raise UsageError(f"{flag}: {value.strip()!r} is not a quantity (e.g. 10Gi)") from None
    return str(celexpr.qualify(name, domain, flag)), value.strip()


def parse_first_available(text: str) -> RequestSpec:
    """One ``--first-available`` value: ``KEY=VALUE`` items separated by commas, keys from
    :data:`ALT_KEYS` (repeat ``attr``/``min-capacity``/``cel`` as needed; ``all`` alone)."""
    values: dict[str, list[str]] = {}
    for item in filter(None, (p.strip() for p in _ALT_SPLIT.split(text))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if key not in ALT_KEYS:
            raise UsageError(
                f"--first-available: unknown key {key!r} in {text!r}; one of: {', '.join(ALT_KEYS)}"
            )
        if not sep and key not in ("all", "admin-access"):
            raise UsageError(f"--first-available: {key} needs a value ({key}=…) in {text!r}")
        values.setdefault(key, []).append(value.strip() if sep else "true")
    for key in ("name", "class", "count", "all", "admin-access"):
        if len(values.get(key, [])) > 1:
            raise UsageError(f"--first-available: {key} given twice in {text!r}")
    count = values.get("count", [None])[0]
    if count is not None and not count.isdigit():
        raise UsageError(f"--first-available: count must be a positive integer, not {count!r}")
    return RequestSpec(
        name=values.get("name", [""])[0],
        device_class=values.get("class", [""])[0],
        count=int(count) if count is not None else None,
        all=_flag(values, "all"),
        admin_access=_flag(values, "admin-access"),
        attrs=tuple(values.get("attr", ())),
        min_capacity=tuple(values.get("min-capacity", ())),
        cel=tuple(values.get("cel", ())),
        tolerations=tuple(values.get("toleration", ())),
        capacity_requests=tuple(values.get("capacity-request", ())),
    )


def _flag(values: dict[str, list[str]], key: str) -> bool:
    raw = values.get(key, ["false"])[0].lower()
    if raw not in ("true", "false"):
        raise UsageError(f"--first-available: {key} is true or false, not {raw!r}")
    return raw == "true"


def default_request_name(device_class: str) -> str:
    """``gpu.nvidia.com`` → ``gpu``: the class's first DNS label (``device`` when unusable)."""
    head = device_class.split(".", 1)[0].lower()
    return head if _DNS_LABEL.match(head) and len(head) <= 63 else "device"


def _class_domain(device_class: str) -> str | None:
    """A class named like a driver (``gpu.nvidia.com``) lends its name to bare attribute names."""
    return device_class if "." in device_class and celexpr._DOMAIN.match(device_class) else None


_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_name(name: str, flag: str) -> None:
    """An object name is a DNS subdomain (lowercase, ≤ 253)."""
    if not name or len(name) > 253 or not _SUBDOMAIN.match(name):
        raise UsageError(
            f"{flag}: {name!r} is not a valid name (lowercase letters, digits, '-' and '.', "
            "starting and ending with a letter or digit)"
        )


def check_label(name: str, flag: str) -> None:
    """A request or namespace name is a DNS label (lowercase, ≤ 63)."""
    if not name or len(name) > 63 or not _DNS_LABEL.match(name):
        raise UsageError(
            f"{flag}: {name!r} is not a valid DNS label (lowercase letters, digits and '-', at most 63)"
        )
