"""DRA feature gates: one type for the whole project.

Three spellings are in use and all parse here: Kubernetes gate names
(``DRAListTypeAttributes``), the allocator's field names (``listTypeAttributes``)
and the CEL package's option names (``enableListTypeAttributes``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

SUPPORTED_KUBE_VERSIONS = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_KUBE_VERSION = "1.37"

# Behaviour that changed in a patch release, where it is known and documented: (minor, first patch
# with the new behaviour).  Anything not listed here behaves the same in every patch of a minor, so a
# patch version is treated as its minor.  To add one: a row here, and the rule that reads it asks
# :func:`patch_has`.
PATCH_FIXES: dict[str, tuple[str, int]] = {
    # kubernetes PR #141648 (cherry-picked to release-1.37 as #141998, September 2026): a
    # DeviceTaintRule without spec.deviceSelector matches no device, as documented; before, the
    # scheduler's taint tracker applied it to every device (the eviction controller never did).
    # Which patch: #141998 merged into release-1.37 after v1.37.0 was out (its thread, 2026-09-10,
    # reproduces the bug on v1.37.0), and v1.37.1 was built from release-1.37 on 2026-09-23
    # (kubectl v1.37.1's buildDate), so v1.37.1 is the first patch with it.  Not confirmed from
    # CHANGELOG-1.37.md: the copy available stops at v1.37.0-alpha.1.
    "dtr-nil-selector-matches-none": ("1.37", 1),
}


def parse_kube_version(text: str) -> tuple[str, int | None]:
    """``1.35`` / ``v1.35`` / ``1.35.2`` / ``v1.35.2`` (what ``kubectl version`` prints, also with a
    ``-gke.1``-style suffix) → ``("1.35", None | 2)``.  ValueError for anything else (the caller
    checks that the minor is supported)."""
    raw = text.strip()
    core = raw[1:] if raw[:1] in ("v", "V") else raw
    core = core.split("+", 1)[0].split("-", 1)[0]
    parts = core.split(".")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts) or parts[0] != "1":
        raise ValueError(
            f"invalid Kubernetes version {text!r}: expected 1.MINOR or 1.MINOR.PATCH, e.g. 1.37 or v1.37.2"
        )
    minor = f"1.{int(parts[1])}"
    return minor, int(parts[2]) if len(parts) == 3 else None


def patch_has(fix: str, kube_version: str, patch: int | None) -> bool | None:
    """Does release ``kube_version`` (a minor) at ``patch`` have the behaviour ``fix`` of
    :data:`PATCH_FIXES`?  True/False when known, None when the patch is not given and the minor is the
    one where it changed (the caller says both)."""
    minor, first = PATCH_FIXES[fix]
    have, want = tuple(map(int, kube_version.split("."))), tuple(map(int, minor.split(".")))
    if have != want:
        return have > want
    return None if patch is None else patch >= first


def _fixes_in(kube_version: str, patch: int | None) -> frozenset[str]:
    """The PATCH_FIXES whose new behaviour release ``kube_version`` at ``patch`` has; an unknown
    patch of the minor where a fix landed counts as that minor's latest patch (which has it)."""
    return frozenset(fix for fix in PATCH_FIXES if patch_has(fix, kube_version, patch) is not False)


# field name -> Kubernetes gate name
GATE_NAMES: dict[str, str] = {
    "admin_access": "DRAAdminAccess",
    "consumable_capacity": "DRAConsumableCapacity",
    "device_binding_and_status": "DRADeviceBindingConditions",
    "device_taints": "DRADeviceTaints",
    "device_taint_rules": "DRADeviceTaintRules",
    "list_type_attributes": "DRAListTypeAttributes",
    "partitionable_devices": "DRAPartitionableDevices",
    "prioritized_list": "DRAPrioritizedList",
    "extended_resource": "DRAExtendedResource",
    "resource_claim_device_status": "DRAResourceClaimDeviceStatus",
    # 1.37 alpha/beta gates (validation-relevant; added for dractl.validate.rules)
    "derived_attributes": "DRADerivedAttributes",
    "device_compatibility_groups": "DRADeviceCompatibilityGroups",
    "optional_node_operations": "DRAOptionalNodeOperations",
    "partitionable_devices_type": "DRAPartitionableDevicesType",
    "fractional_capacity_range": "DRAFractionalCapacityRange",
    "node_allocatable_resources": "DRANodeAllocatableResources",
}

# Defaults per release (API-RULES.md §12).  Gates absent in a release are off.
_DEFAULTS: dict[str, dict[str, bool]] = {
    "1.34": {"admin_access": True, "prioritized_list": True, "resource_claim_device_status": True},
    "1.35": {"admin_access": True, "prioritized_list": True, "resource_claim_device_status": True},
    "1.36": {
        "admin_access": True,
        "prioritized_list": True,
        "resource_claim_device_status": True,
        "partitionable_devices": True,
        "device_taints": True,
        "consumable_capacity": True,
        "device_binding_and_status": True,
        "extended_resource": True,
    },
    "1.37": {
        "admin_access": True,
        "prioritized_list": True,
        "resource_claim_device_status": True,
        "partitionable_devices": True,
        "device_taints": True,
        "device_taint_rules": True,
        "consumable_capacity": True,
        "device_binding_and_status": True,
        "extended_resource": True,
        "fractional_capacity_range": True,
    },
}

# Gates that a real cluster of that release locks to their default (GA locked).
_LOCKED: dict[str, frozenset[str]] = {
    "1.34": frozenset(),
    "1.35": frozenset(),
    "1.36": frozenset({"admin_access"}),
    "1.37": frozenset(
        {"admin_access", "prioritized_list", "resource_claim_device_status", "extended_resource"}
    ),
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


def _aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for f, gate in GATE_NAMES.items():
        camel = _camel(f)
        for alias in (f, camel, gate, "enable" + camel[0].upper() + camel[1:]):
            out[alias.lower()] = f
    out["devicebindingandstatus"] = "device_binding_and_status"
    out["dradevicebindingconditions"] = "device_binding_and_status"
    out["enabledevicebindingandstatus"] = "device_binding_and_status"
    return out


_ALIASES = _aliases()


def _did_you_mean(name: str) -> str:
    """``; did you mean DRAPrioritizedList?`` for the closest Kubernetes gate name, else a pointer
    to where the gates are listed (never the whole list: it is long and changes each release)."""
    import difflib

    names = sorted(GATE_NAMES.values())
    by_lower = {n.lower(): n for n in names}
    bare = name.lower().removeprefix("dra")
    close = difflib.get_close_matches(
        name.lower(), list(by_lower), n=1, cutoff=0.6
    ) or difflib.get_close_matches("dra" + bare, list(by_lower), n=1, cutoff=0.6)
    if close:
        return f"; did you mean {by_lower[close[0]]}?"
    return f" (the {len(names)} DRA gates dractl knows are named DRA…, e.g. DRAPrioritizedList)"


@dataclass(frozen=True, slots=True)
class Features:
    """Which DRA features are on.  Construct with :meth:`for_version` or :meth:`parse`."""

    admin_access: bool = False
    consumable_capacity: bool = False
    device_binding_and_status: bool = False
    device_taints: bool = False
    device_taint_rules: bool = False
    list_type_attributes: bool = False
    partitionable_devices: bool = False
    prioritized_list: bool = False
    extended_resource: bool = False
    resource_claim_device_status: bool = False
    derived_attributes: bool = False
    device_compatibility_groups: bool = False
    optional_node_operations: bool = False
    partitionable_devices_type: bool = False
    fractional_capacity_range: bool = False
    node_allocatable_resources: bool = False
    # Not a gate: the PATCH_FIXES (by name) whose new behaviour applies.  for_version() assumes a
    # minor's latest patch; at_patch() narrows it to a known patch release.
    patch_fixes: frozenset[str] = frozenset()

    @classmethod
    def for_version(cls, kube_version: str = DEFAULT_KUBE_VERSION) -> Features:
        """The default gates of a Kubernetes minor (``"1.34"`` … ``"1.37"``); ValueError otherwise."""
        if kube_version not in _DEFAULTS:
            raise ValueError(
                f"unsupported Kubernetes version {kube_version!r}; "
                f"one of: {', '.join(SUPPORTED_KUBE_VERSIONS)}"
            )
        return cls(**_DEFAULTS[kube_version], patch_fixes=_fixes_in(kube_version, None))

    def at_patch(self, kube_version: str, patch: int | None) -> Features:
        """These features with the patch-level behaviour of release ``kube_version`` at ``patch``
        (:data:`PATCH_FIXES`); ``patch`` None: the minor's latest patch (as :meth:`for_version`)."""
        return replace(self, patch_fixes=_fixes_in(kube_version, patch))

    def has_fix(self, fix: str) -> bool:
        """Whether the new behaviour of :data:`PATCH_FIXES` entry ``fix`` applies."""
        return fix in self.patch_fixes

    @classmethod
    def from_mapping(cls, values: Mapping[str, object], base: Features | None = None) -> Features:
        """Features from any of the three spellings; unknown names raise ValueError."""
        changes: dict[str, Any] = {}
        for name, value in values.items():
            key = _ALIASES.get(str(name).lower())
            if key is None:
                raise ValueError(f"unknown DRA feature gate {name!r}" + _did_you_mean(str(name)))
            if not isinstance(value, bool):
                raise ValueError(f"feature gate {name}: value must be true or false, not {value!r}")
            changes[key] = value
        return replace(base or cls(), **changes)

    @classmethod
    def parse(cls, spec: str, base: Features | None = None) -> Features:
        """Parse ``--feature-gates Name=true,Other=false``; ValueError on bad syntax."""
        values: dict[str, object] = {}
        for item in filter(None, (p.strip() for p in spec.split(","))):
            name, sep, raw = item.partition("=")
            if not sep or raw.strip().lower() not in ("true", "false"):
                raise ValueError(f"invalid feature gate {item!r}: expected Name=true|false")
            values[name.strip()] = raw.strip().lower() == "true"
        return cls.from_mapping(values, base)

    def locked_overrides(self, kube_version: str) -> list[str]:
        """Gate names set against a value the release locks (the caller warns)."""
        default = Features.for_version(kube_version)
        return [
            GATE_NAMES[f]
            for f in sorted(_LOCKED.get(kube_version, frozenset()))
            if getattr(self, f) != getattr(default, f)
        ]

    def enabled(self) -> Iterable[str]:
        return (GATE_NAMES[f.name] for f in fields(self) if f.name in GATE_NAMES and getattr(self, f.name))

    def to_dict(self) -> dict[str, bool]:
        return {GATE_NAMES[f.name]: getattr(self, f.name) for f in fields(self) if f.name in GATE_NAMES}


def gate_name(alias: str) -> str | None:
    """The Kubernetes name of a gate given in any spelling (``consumableCapacity`` →
    ``DRAConsumableCapacity``); None when it is not a DRA gate dractl knows."""
    field = _ALIASES.get(alias.strip().lower())
    return GATE_NAMES[field] if field else None


def gate_basis(kube_version: str, features: Features, overrides: Iterable[str] = ()) -> dict[str, object]:
    """Which feature gates a report assumed, as data (``featureGateBasis`` of the JSON/YAML
    documents): ``defaults`` is the release whose defaults were the base (gates a cluster has on
    are unknowable from outside), ``changed`` every gate that differs from those defaults and what
    set it: ``--feature-gates`` (the ``overrides`` items as given) or ``snapshot`` (a header's
    recorded gates).  ``kube_version`` is a supported minor; ValueError otherwise."""
    defaults = Features.for_version(kube_version).to_dict()
    by_flag = {gate_name(item.partition("=")[0]) for item in overrides}
    changed = [
        {"gate": gate, "enabled": value, "by": "--feature-gates" if gate in by_flag else "snapshot"}
        for gate, value in sorted(features.to_dict().items())
        if value != defaults[gate]
    ]
    return {"defaults": kube_version, "changed": changed}


def describe_gate_basis(basis: Mapping[str, object]) -> str:
    """The one line tables print for :func:`gate_basis`: ``Feature gates: the defaults of
    Kubernetes 1.37`` (plus ``, except DRAConsumableCapacity=false (--feature-gates)``)."""
    text = f"Feature gates: the defaults of Kubernetes {basis['defaults']}"
    changed = basis.get("changed") or []
    if isinstance(changed, list) and changed:
        text += ", except " + ", ".join(
            f"{c['gate']}={'true' if c['enabled'] else 'false'} ({c['by']})" for c in changed
        )
    return text
