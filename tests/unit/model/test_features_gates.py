"""Features: per-release defaults (API-RULES.md §12), the three gate spellings, locked gates."""

from __future__ import annotations

import pytest

from dractl.model.features import GATE_NAMES, Features

# API-RULES.md §12, "on" by default per release (gates that don't exist yet are off).
DEFAULT_ON = {
    "1.34": {"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus"},
    "1.35": {"DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus"},
    "1.36": {
        "DRAAdminAccess",
        "DRAPrioritizedList",
        "DRAResourceClaimDeviceStatus",
        "DRAPartitionableDevices",
        "DRADeviceTaints",
        "DRAConsumableCapacity",
        "DRADeviceBindingConditions",
        "DRAExtendedResource",
    },
    "1.37": {
        "DRAAdminAccess",
        "DRAPrioritizedList",
        "DRAResourceClaimDeviceStatus",
        "DRAPartitionableDevices",
        "DRADeviceTaints",
        "DRADeviceTaintRules",
        "DRAConsumableCapacity",
        "DRADeviceBindingConditions",
        "DRAExtendedResource",
        "DRAFractionalCapacityRange",
    },
}


@pytest.mark.parametrize("version", sorted(DEFAULT_ON))
def test_release_defaults_match_the_api_rules_table(version: str) -> None:
    on = {gate for gate, value in Features.for_version(version).to_dict().items() if value}
    assert on == DEFAULT_ON[version] & set(GATE_NAMES.values())
    assert set(Features.for_version(version).enabled()) == on


def test_default_version_is_1_37_and_unknown_versions_fail() -> None:
    assert Features.for_version() == Features.for_version("1.37")
    with pytest.raises(ValueError, match=r"1\.33"):
        Features.for_version("1.33")


@pytest.mark.parametrize(
    "spelling",
    [
        "DRAPrioritizedList",  # Kubernetes gate name
        "prioritizedList",  # allocator field name
        "enablePrioritizedList",  # CEL / allocator option name
        "prioritized_list",  # the dataclass field
        "draprioritizedlist",  # any case
    ],
)
def test_all_spellings_name_the_same_gate(spelling: str) -> None:
    base = Features.for_version("1.36")
    assert base.prioritized_list
    assert not Features.from_mapping({spelling: False}, base).prioritized_list
    assert not Features.parse(f"{spelling}=false", base).prioritized_list


@pytest.mark.parametrize(
    "spelling",
    [
        "DRADeviceBindingConditions",
        "deviceBindingAndStatus",
        "enableDeviceBindingAndStatus",
        "device_binding_and_status",
    ],
)
def test_binding_conditions_gate_has_its_allocator_name_too(spelling: str) -> None:
    assert Features.from_mapping({spelling: True}).device_binding_and_status


def test_parse_many_with_spaces_and_empty_items() -> None:
    f = Features.parse(" DRADeviceTaints=true, listTypeAttributes = TRUE ,,enableAdminAccess=false ")
    assert f.device_taints and f.list_type_attributes and not f.admin_access
    assert Features.parse("") == Features()


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("DRADeviceTaints", "expected Name=true|false"),
        ("DRADeviceTaints=yes", "expected Name=true|false"),
        ("NoSuchGate=true", "unknown DRA feature gate 'NoSuchGate'"),
    ],
)
def test_parse_errors(spec: str, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        Features.parse(spec)


def test_from_mapping_needs_booleans() -> None:
    with pytest.raises(ValueError, match="true or false"):
        Features.from_mapping({"DRADeviceTaints": "true"})


def test_to_dict_round_trips_through_from_mapping() -> None:
    f = Features.parse("DRAListTypeAttributes=true", Features.for_version("1.35"))
    assert Features.from_mapping(f.to_dict()) == f


def test_locked_gates_are_reported_only_when_changed() -> None:
    assert Features.for_version("1.37").locked_overrides("1.37") == []
    changed = Features.parse(
        "DRAPrioritizedList=false,DRAConsumableCapacity=false", Features.for_version("1.37")
    )
    assert changed.locked_overrides("1.37") == ["DRAPrioritizedList"]
    assert changed.locked_overrides("1.35") == []  # not locked before GA
