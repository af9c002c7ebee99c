"""Typed, immutable dataclasses for the DRA kinds in their ``resource.k8s.io/v1`` shape.

Objects are built from plain dicts that are already in the v1 shape (see
:mod:`dractl.model.convert` for v1beta1/v1beta2) with the ``from_dict``
functions at the bottom.  Builders are lenient: a field of the wrong type is
treated as absent, because reporting wrong types is the validator's job (it
runs on the raw dict, with positions).  Quantities that don't parse raise
:class:`~dractl.model.quantity.QuantityError` (a ValueError).

Mapping fields are plain dicts by construction and must not be mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dractl.model.origin import Origin
from dractl.model.quantity import Quantity

Raw = Mapping[str, Any]

ATTRIBUTE_KINDS = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
LIST_ATTRIBUTE_KINDS = ("ints", "bools", "strings", "versions")
SCALAR_ATTRIBUTE_KINDS = ("int", "bool", "string", "version")


@dataclass(frozen=True, slots=True)
class ObjectMeta:
    name: str = ""
    namespace: str = ""
    uid: str = ""
    generate_name: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    generation: int = 0
    resource_version: str = ""
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    owner_references: tuple[Raw, ...] = ()

    @property
    def key(self) -> str:
        """``namespace/name`` for namespaced objects, ``name`` otherwise."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


# --------------------------------------------------------------------------- devices


@dataclass(frozen=True, slots=True)
class AttributeValue:
    """One device attribute: ``kind`` is one of ATTRIBUTE_KINDS; list kinds hold tuples."""

    kind: str
    value: Any


@dataclass(frozen=True, slots=True)
class ValidRange:
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None


@dataclass(frozen=True, slots=True)
class RequestPolicy:
    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] = ()
    valid_range: ValidRange | None = None


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    value: Quantity
    request_policy: RequestPolicy | None = None


@dataclass(frozen=True, slots=True)
class CounterSet:
    name: str
    counters: Mapping[str, Quantity]


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    counter_set: str
    counters: Mapping[str, Quantity]


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    key: str
    value: str = ""
    effect: str = ""
    time_added: str | None = None


@dataclass(frozen=True, slots=True)
class Device:
    """A device of a ResourceSlice.  ``driver`` and ``pool`` are copied from the slice."""

    name: str
    driver: str = ""
    pool: str = ""
    attributes: Mapping[str, AttributeValue] = field(default_factory=dict)
    capacity: Mapping[str, DeviceCapacity] = field(default_factory=dict)
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: Raw | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool | None = None
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool | None = None
    # attributes whose value has no known type (e.g. ``{}``): kept out of ``attributes``;
    # CEL evaluation on such a device fails with "unsupported attribute value", as in Kubernetes
    unknown_attributes: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``driver/pool/device``, the allocator's device id."""
        return f"{self.driver}/{self.pool}/{self.name}"


@dataclass(frozen=True, slots=True)
class ResourcePool:
    name: str
    generation: int = 0
    resource_slice_count: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class ResourceSlice:
    meta: ObjectMeta
    driver: str
    pool: ResourcePool
    node_name: str | None = None
    node_selector: Raw | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: tuple[Device, ...] = ()
    shared_counters: tuple[CounterSet, ...] = ()
    api_version: str = "resource.k8s.io/v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "ResourceSlice"


# --------------------------------------------------------------------------- claims


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class ExactDeviceRequest:
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity_requests: Mapping[str, Quantity] | None = None


@dataclass(frozen=True, slots=True)
class DeviceSubRequest:
    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"
    count: int = 1
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity_requests: Mapping[str, Quantity] | None = None


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceConfig:
    """A claim or class configuration entry (opaque driver parameters)."""

    requests: tuple[str, ...] = ()
    driver: str = ""
    parameters: Any = None
    source: str = ""  # FromClass | FromClaim, in allocation results


@dataclass(frozen=True, slots=True)
class ResourceClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceConfig, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult:
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    share_id: str | None = None
    consumed_capacity: Mapping[str, Quantity] | None = None

    @property
    def device_id(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceRequestAllocationResult, ...] = ()
    config: tuple[DeviceConfig, ...] = ()
    node_selector: Raw | None = None
    allocation_timestamp: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceClaimConsumerReference:
    resource: str
    name: str
    uid: str = ""
    api_group: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class ResourceClaim:
    meta: ObjectMeta
    spec: ResourceClaimSpec
    allocation: AllocationResult | None = None
    reserved_for: tuple[ResourceClaimConsumerReference, ...] = ()
    device_statuses: tuple[Raw, ...] = ()
    api_version: str = "resource.k8s.io/v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "ResourceClaim"


@dataclass(frozen=True, slots=True, eq=False)
class ResourceClaimTemplate:
    meta: ObjectMeta
    spec: ResourceClaimSpec
    template_labels: Mapping[str, str] = field(default_factory=dict)
    template_annotations: Mapping[str, str] = field(default_factory=dict)
    api_version: str = "resource.k8s.io/v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "ResourceClaimTemplate"


@dataclass(frozen=True, slots=True, eq=False)
class DeviceClass:
    meta: ObjectMeta
    selectors: tuple[str, ...] = ()
    config: tuple[DeviceConfig, ...] = ()
    extended_resource_name: str | None = None
    api_version: str = "resource.k8s.io/v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "DeviceClass"


@dataclass(frozen=True, slots=True)
class DeviceTaintSelector:
    driver: str | None = None
    pool: str | None = None
    device: str | None = None
    device_class_name: str | None = None  # v1alpha3 only (1.33–1.34)
    selectors: tuple[str, ...] = ()  # v1alpha3 only (1.33–1.34)


@dataclass(frozen=True, slots=True, eq=False)
class DeviceTaintRule:
    meta: ObjectMeta
    device_selector: DeviceTaintSelector | None
    taint: DeviceTaint
    api_version: str = "resource.k8s.io/v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "DeviceTaintRule"


# --------------------------------------------------------------------------- core


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    meta: ObjectMeta
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    api_version: str = "v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "Node"


@dataclass(frozen=True, slots=True)
class PodResourceClaim:
    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(frozen=True, slots=True)
class ContainerClaims:
    """One container's DRA-relevant fields: claim references and extended-resource requests."""

    name: str
    claims: tuple[tuple[str, str | None], ...] = ()  # (claim name, request or None)
    requests: Mapping[str, str] = field(default_factory=dict)
    limits: Mapping[str, str] = field(default_factory=dict)
    init: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Pod:
    meta: ObjectMeta
    node_name: str | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Raw | None = None
    tolerations: tuple[Raw, ...] = ()
    scheduler_name: str | None = None
    resource_claims: tuple[PodResourceClaim, ...] = ()
    containers: tuple[ContainerClaims, ...] = ()
    claim_statuses: Mapping[str, str | None] = field(default_factory=dict)  # pod claim -> ResourceClaim
    extended_resource_claim_status: Raw | None = None
    api_version: str = "v1"
    origin: Origin | None = None
    raw: Raw = field(default_factory=dict, repr=False)
    kind: str = "Pod"


DRAObject = ResourceSlice | ResourceClaim | ResourceClaimTemplate | DeviceClass | DeviceTaintRule | Node | Pod
