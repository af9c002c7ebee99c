"""Numeric limits of resource.k8s.io per Kubernetes minor (API-RULES.md, api-limits.json).

Only what the API server enforces is here; the values are the Go constants of
k8s.io/api resource/v1 for each release, plus the unnamed limits the
validation code uses (DNS lengths, 10 validValues, 2×config in results).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache


@dataclass(frozen=True, slots=True)
class Limits:
    requests: int = 32  # DeviceRequestsMaxSize
    first_available: int = 8  # FirstAvailableDeviceRequestMaxSize
    selectors: int = 32  # DeviceSelectorsMaxSize
    constraints: int = 32  # DeviceConstraintsMaxSize
    config: int = 32  # DeviceConfigMaxSize
    results: int = 32  # AllocationResultsMaxSize
    reserved_for: int = 256  # ResourceClaimReservedForMaxSize
    cel_length: int = 10240  # CELSelectorExpressionMaxLength
    cel_cost: int = 1_000_000  # CELSelectorExpressionMaxCost
    derived_cost: int = 1_000_000  # DeviceClaimDerivedAttributeCELMaxCost
    derived: int = 32  # DeviceDerivedAttributesMaxSize
    opaque_length: int = 10240  # OpaqueParametersMaxLength
    status_data_length: int = 10240  # AllocatedDeviceStatusDataMaxLength
    status_conditions: int = 8  # AllocatedDeviceStatusMaxConditions
    rule_conditions: int = 8  # DeviceTaintRuleStatusMaxConditions
    net_ifname: int = 256
    net_hwaddr: int = 128
    net_ips: int = 16
    driver_name: int = 63  # DriverNameMaxLength
    pool_name: int = 253  # PoolNameMaxLength
    domain: int = 63  # DeviceMaxDomainLength
    identifier: int = 32  # DeviceMaxIDLength
    attr_value: int = 64  # DeviceAttributeMaxValueLength
    devices: int = 128  # ResourceSliceMaxDevices
    devices_advanced: int = 64  # …WithAdvancedFeatures (taints, counters, list attributes)
    attrs_and_caps: int = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
    attr_values: int = 48  # ResourceSliceMaxAttributeValuesPerDevice (0: no such limit)
    taints: int = 16  # DeviceTaintsMaxLength
    counter_sets: int = 8  # ResourceSliceMaxCounterSets
    counters_per_set: int = 32  # ResourceSliceMaxCountersPerCounterSet
    consumptions_per_device: int = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
    counters_per_consumption: int = 32  # ResourceSliceMaxCountersPerDeviceCounterConsumption
    compat_groups: int = 2  # DeviceCompatibilityGroupsMaxSize
    binding_conditions: int = 4  # BindingConditionsMaxSize / BindingFailureConditionsMaxSize
    valid_values: int = 10  # CapacityRequestPolicyDiscreteMaxOptions
    tolerations_doc: int = 16  # DeviceTolerationsMaxLength (documented, not enforced)
    devices_xor_counters: bool = True  # since 1.35
    taint_effect_none: bool = True  # since 1.35
    advanced_limit_lists: bool = True  # list attributes count as "advanced" (1.36+)


_BASE = Limits()


@cache
def limits_for(kube_version: str) -> Limits:
    """Limits of a minor (``"1.34"`` … ``"1.37"``); unknown minors get the newest."""
    if kube_version == "1.34":
        return replace(
            _BASE,
            taints=4,
            devices_advanced=128,
            attr_values=0,
            counter_sets=32,
            consumptions_per_device=32,
            devices_xor_counters=False,
            taint_effect_none=False,
            advanced_limit_lists=False,
        )
    if kube_version == "1.35":
        return replace(_BASE, attr_values=0, advanced_limit_lists=False)
    return _BASE
