"""Build model objects from plain dicts in the ``resource.k8s.io/v1`` shape.

Lenient on types (a wrong type reads as absent; the validator reports it from
the raw dict), strict on quantities (QuantityError, a ValueError).  Use
:func:`build_object` for any supported kind; it converts v1beta1/v1beta2
first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dractl.model import objects as o
from dractl.model.convert import to_v1
from dractl.model.fastinit import fast_init
from dractl.model.memo import remember
from dractl.model.quantity import Quantity

Raw = Mapping[str, Any]

# Constructors that skip the frozen dataclasses' per-field object.__setattr__ (same objects).
_ObjectMeta = fast_init(o.ObjectMeta)
_AttributeValue = fast_init(o.AttributeValue)
_DeviceTaint = fast_init(o.DeviceTaint)
_DeviceCapacity = fast_init(o.DeviceCapacity)
_DeviceCounterConsumption = fast_init(o.DeviceCounterConsumption)
_Device = fast_init(o.Device)
_ResourcePool = fast_init(o.ResourcePool)
_ResourceSlice = fast_init(o.ResourceSlice)
_DeviceToleration = fast_init(o.DeviceToleration)
_ExactDeviceRequest = fast_init(o.ExactDeviceRequest)
_DeviceRequest = fast_init(o.DeviceRequest)
_ResourceClaimSpec = fast_init(o.ResourceClaimSpec)
_DeviceRequestAllocationResult = fast_init(o.DeviceRequestAllocationResult)
_AllocationResult = fast_init(o.AllocationResult)
_ResourceClaim = fast_init(o.ResourceClaim)
_ResourceClaimConsumerReference = fast_init(o.ResourceClaimConsumerReference)
_Node = fast_init(o.Node)
_ContainerClaims = fast_init(o.ContainerClaims)
_Pod = fast_init(o.Pod)
_PodResourceClaim = fast_init(o.PodResourceClaim)


def _m(v: Any) -> Raw:
    # ``type(v) is dict`` first: the ABC check is slow, and parsed input is plain dicts
    return v if type(v) is dict or isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _s(v: Any, default: str = "") -> str:
    return v if type(v) is str or isinstance(v, str) else default


def _os(v: Any) -> str | None:
    return v if type(v) is str or isinstance(v, str) else None


def _i(v: Any, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else default


def _ob(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


def _strs(v: Any) -> tuple[str, ...]:
    if not v or type(v) is not list:  # usually absent: no generator
        return ()
    return tuple(x for x in v if isinstance(x, str))


def _tolerations(v: Any) -> tuple[o.DeviceToleration, ...]:
    if not v or type(v) is not list:
        return ()
    return tuple(toleration(t) for t in v)


def _strmap(v: Any) -> dict[str, str]:
    """The string values of a mapping (labels, annotations); ``{}`` for anything else."""
    if not v:
        return {}
    return {k: x for k, x in _m(v).items() if isinstance(x, str)}


def _q(v: Any) -> Quantity:
    return Quantity.parse(v if v is not None else "0")


def _oq(v: Any) -> Quantity | None:
    return None if v is None else Quantity.parse(v)


def meta(raw: Any) -> o.ObjectMeta:
    m = _m(raw)
    if len(m) == 1 and type(m.get("name")) is str:  # ``{name: x}``: the other fields are defaults
        return _ObjectMeta(name=m["name"])
    get = m.get
    owners, labels, annotations = get("ownerReferences"), get("labels"), get("annotations")
    name, namespace, uid = get("name"), get("namespace"), get("uid")
    return _ObjectMeta(
        name if type(name) is str else _s(name),  # inline of _s for the usual str
        namespace if type(namespace) is str else _s(namespace),
        uid if type(uid) is str else _s(uid),
        _s(get("generateName")),
        _strmap(labels) if labels else {},
        _strmap(annotations) if annotations else {},
        _i(get("generation")),
        _s(get("resourceVersion")),
        _os(get("creationTimestamp")),
        _os(get("deletionTimestamp")),
        tuple(x for x in owners if isinstance(x, Mapping)) if owners and type(owners) is list else (),
    )


_KINDS = (*o.LIST_ATTRIBUTE_KINDS, *o.SCALAR_ATTRIBUTE_KINDS)
_SCALAR_KINDS = frozenset(o.SCALAR_ATTRIBUTE_KINDS)


# Values repeat across devices (a product name on every GPU of a cluster): equal attribute
# values and capacities are one shared immutable object, built once.  Bounded: cleared when
# full.  Keys carry the value's type (``True == 1``, but ``{bool: true}`` is not ``{int: 1}``).
_INTERN_MAX = 1 << 16
_ATTRIBUTES: dict[tuple[str, type, Any], o.AttributeValue] = {}
_CAPACITIES: dict[str, o.DeviceCapacity] = {}
_INTERNED_TYPES = (str, int, bool)


def attribute(raw: Any) -> o.AttributeValue | None:
    """The first recognised value field wins, list kinds first as Kubernetes' CEL conversion
    checks them; None when the attribute has none."""
    m = _m(raw)
    if len(m) == 1:  # the usual shape, ``{string: "x"}``: the same answer as the loop below, sooner
        for kind, v in m.items():
            if kind in _SCALAR_KINDS and v is not None:
                t = type(v)
                if t not in _INTERNED_TYPES:
                    return _AttributeValue(kind, v)
                key = (kind, t, v)
                hit = _ATTRIBUTES.get(key)
                if hit is None:
                    hit = remember(_ATTRIBUTES, key, _AttributeValue(kind, v), _INTERN_MAX)
                return hit
    for kind in _KINDS:
        if kind in m and m[kind] is not None:
            v = m[kind]
            if kind in o.LIST_ATTRIBUTE_KINDS:
                v = tuple(_l(v))
            return _AttributeValue(kind, v)
    for kind in o.LIST_ATTRIBUTE_KINDS:  # present-but-null list: an empty list
        if kind in m:
            return _AttributeValue(kind, ())
    return None


def _counters(raw: Any) -> dict[str, Quantity]:
    return {k: _q(_m(v).get("value")) for k, v in _m(raw).items()}


def _policy(raw: Any) -> o.RequestPolicy | None:
    if not isinstance(raw, Mapping):
        return None
    rng = raw.get("validRange")
    vr = None
    if isinstance(rng, Mapping):
        vr = o.ValidRange(_oq(rng.get("min")), _oq(rng.get("max")), _oq(rng.get("step")))
    return o.RequestPolicy(
        _oq(raw.get("default")), tuple(Quantity.parse(x) for x in _l(raw.get("validValues"))), vr
    )


def taint(raw: Any) -> o.DeviceTaint:
    m = _m(raw)
    return _DeviceTaint(_s(m.get("key")), _s(m.get("value")), _s(m.get("effect")), _os(m.get("timeAdded")))


def _capacity(raw: Any) -> o.DeviceCapacity:
    m = _m(raw)
    value = m.get("value")
    if len(m) == 1 and type(value) is str:  # ``{value: 80Gi}``: shared, built once
        hit = _CAPACITIES.get(value)
        if hit is None:
            hit = remember(_CAPACITIES, value, _DeviceCapacity(_q(value), None), _INTERN_MAX)
        return hit
    return _DeviceCapacity(_q(value), _policy(m.get("requestPolicy")))


def _attributes(raw: Any) -> tuple[dict[str, o.AttributeValue], tuple[str, ...]]:
    attrs = {}
    unknown = []
    interned = _ATTRIBUTES.get
    for name, val in (raw if type(raw) is dict else _m(raw)).items():
        # inline of attribute()'s interned path for ``{string: "x"}``-shaped values (a hit, or a
        # new value of a scalar kind: uuids, PCI addresses): the table holds only scalar kinds
        # with their value's type, so any other kind misses and goes through attribute()
        if type(val) is dict and len(val) == 1:
            ((kind, v),) = val.items()
            t = type(v)
            if t in _INTERNED_TYPES:  # hashable, not None
                key = (kind, t, v)
                hit = interned(key)
                if hit is not None:
                    attrs[name] = hit
                    continue
                if kind in _SCALAR_KINDS:  # attribute()'s path for this shape, without the call
                    attrs[name] = remember(_ATTRIBUTES, key, _AttributeValue(kind, v), _INTERN_MAX)
                    continue
        a = attribute(val)
        if a is not None:
            attrs[name] = a
        else:
            unknown.append(name)
    return attrs, tuple(unknown) if unknown else ()


# The fields of the usual device (a GPU with attributes and capacity; a partition that also
# consumes counters): built without looking up the other fields one by one; the result is the
# same as the general path below.
_PLAIN_DEVICE = frozenset({"name", "attributes", "capacity"})
_PARTITION_DEVICE = frozenset({*_PLAIN_DEVICE, "consumesCounters"})

# Partitions repeat their consumption (``[{counterSet: gpu-0, counters: {memorySlices: {value:
# "1"}}}]`` on every 1g partition of a GPU): one shared, read-only tuple per distinct list of
# that shape, built once.  Bounded: cleared when full.
_CONSUMPTIONS: dict[tuple[Any, ...], tuple[o.DeviceCounterConsumption, ...]] = {}


def _consumes(raw: Any) -> tuple[o.DeviceCounterConsumption, ...]:
    if not raw or type(raw) is not list:  # usually absent: no generator
        return ()
    key = _consumes_key(raw)
    if key is not None:
        hit = _CONSUMPTIONS.get(key)
        if hit is not None:
            return hit
    out = tuple(
        _DeviceCounterConsumption(_s(_m(c).get("counterSet")), _counters(_m(c).get("counters")))
        for c in _l(raw)
    )
    if key is not None:
        remember(_CONSUMPTIONS, key, out, _INTERN_MAX)
    return out


def _consumes_key(raw: Any) -> tuple[Any, ...] | None:
    """Everything the builder reads of a consumesCounters list, when it is the plain shape
    (string counter set, ``{value: "<quantity>"}`` counters); None for any other."""
    if type(raw) is not list:
        return None
    parts: list[Any] = []
    for c in raw:
        if type(c) is not dict or len(c) != 2:
            return None
        name, counters = c.get("counterSet"), c.get("counters")
        if type(name) is not str or type(counters) is not dict:
            return None
        parts.append(name)
        for k, v in counters.items():
            if type(v) is not dict or len(v) != 1 or type(v.get("value")) is not str:
                return None
            parts.append((k, v["value"]))
        parts.append(None)  # the end of one consumption
    return tuple(parts)


def _capacities(raw: Any) -> dict[str, o.DeviceCapacity]:
    out = {}
    shared = _CAPACITIES.get
    for name, v in _m(raw).items():
        # inline of _capacity()'s shared path for ``{value: "80Gi"}``
        if type(v) is dict and len(v) == 1 and type(value := v.get("value")) is str:
            hit = shared(value)
            if hit is not None:
                out[name] = hit
                continue
        out[name] = _capacity(v)
    return out


def device(raw: Any, driver: str = "", pool: str = "") -> o.Device:
    m = _m(raw)
    attrs, unknown = _attributes(m.get("attributes"))
    capacity = m.get("capacity")
    cap = _capacities(capacity) if capacity else {}
    if m.keys() <= _PARTITION_DEVICE:
        consumes = m.get("consumesCounters")
        return _Device(  # positional: the fields in order, the others their defaults
            _s(m.get("name")),
            driver,
            pool,
            attrs,
            cap,
            _consumes(consumes) if consumes else (),
            unknown_attributes=unknown,
        )
    return _Device(
        name=_s(m.get("name")),
        driver=driver,
        pool=pool,
        attributes=attrs,
        capacity=cap,
        consumes_counters=_consumes(m.get("consumesCounters")),
        node_name=_os(m.get("nodeName")),
        node_selector=m.get("nodeSelector") if isinstance(m.get("nodeSelector"), Mapping) else None,
        all_nodes=_ob(m.get("allNodes")),
        taints=tuple(taint(t) for t in _l(m.get("taints"))),
        binds_to_node=_ob(m.get("bindsToNode")),
        binding_conditions=_strs(m.get("bindingConditions")),
        binding_failure_conditions=_strs(m.get("bindingFailureConditions")),
        allow_multiple_allocations=_ob(m.get("allowMultipleAllocations")),
        unknown_attributes=unknown,
    )


def resource_slice(raw: Raw, origin: o.Origin | None = None, keep_raw: bool = True) -> o.ResourceSlice:
    """``keep_raw`` False: ``raw`` is not kept (a reader that builds page by page lets it go)."""
    spec = _m(raw.get("spec"))
    driver = _s(spec.get("driver"))
    p = _m(spec.get("pool"))
    pool = _ResourcePool(_s(p.get("name")), _i(p.get("generation")), _i(p.get("resourceSliceCount")))
    return _ResourceSlice(
        meta=meta(raw.get("metadata")),
        driver=driver,
        pool=pool,
        node_name=_os(spec.get("nodeName")),
        node_selector=spec.get("nodeSelector") if isinstance(spec.get("nodeSelector"), Mapping) else None,
        all_nodes=_ob(spec.get("allNodes")),
        per_device_node_selection=_ob(spec.get("perDeviceNodeSelection")),
        devices=tuple(device(d, driver, pool.name) for d in _l(spec.get("devices"))),
        shared_counters=tuple(
            o.CounterSet(_s(_m(c).get("name")), _counters(_m(c).get("counters")))
            for c in _l(spec.get("sharedCounters"))
        ),
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw if keep_raw else {},
    )


def toleration(raw: Any) -> o.DeviceToleration:
    m = _m(raw)
    secs = m.get("tolerationSeconds")
    return _DeviceToleration(
        _s(m.get("key")),
        _s(m.get("operator"), "Equal") or "Equal",
        _s(m.get("value")),
        _s(m.get("effect")),
        secs if isinstance(secs, int) else None,
    )


def _selectors(raw: Any) -> tuple[str, ...]:
    if not raw or type(raw) is not list:
        return ()
    return tuple(_s(_m(_m(s).get("cel")).get("expression")) for s in raw)


def _cap_requests(raw: Any) -> dict[str, Quantity] | None:
    m = _m(raw)
    if "requests" not in m:
        return None
    return {k: _q(v) for k, v in _m(m.get("requests")).items()}


def _count(m: Raw) -> tuple[str, int]:
    mode = _s(m.get("allocationMode")) or "ExactCount"
    count = _i(m.get("count"), 1 if mode == "ExactCount" else 0)
    return mode, count


def request(raw: Any) -> o.DeviceRequest:
    m = _m(raw)
    exact = None
    if isinstance(m.get("exactly"), Mapping):
        e = m["exactly"]
        mode, count = _count(e)
        exact = _ExactDeviceRequest(
            _s(e.get("deviceClassName")),
            _selectors(e.get("selectors")),
            mode,
            count,
            _ob(e.get("adminAccess")),
            _tolerations(e.get("tolerations")),
            _cap_requests(e.get("capacity")),
        )
    subs = []
    for s in _l(m.get("firstAvailable")) if "firstAvailable" in m else ():
        sm = _m(s)
        mode, count = _count(sm)
        subs.append(
            o.DeviceSubRequest(
                _s(sm.get("name")),
                _s(sm.get("deviceClassName")),
                _selectors(sm.get("selectors")),
                mode,
                count,
                _tolerations(sm.get("tolerations")),
                _cap_requests(sm.get("capacity")),
            )
        )
    return _DeviceRequest(_s(m.get("name")), exact, tuple(subs))


def config(raw: Any) -> o.DeviceConfig:
    m = _m(raw)
    opaque = _m(m.get("opaque"))
    return o.DeviceConfig(
        _strs(m.get("requests")), _s(opaque.get("driver")), opaque.get("parameters"), _s(m.get("source"))
    )


# Claims made from one template have one spec (``requests: [{name: gpu, exactly:
# {deviceClassName: gpu.nvidia.com}}]`` on 20,000 claims): specs of that plain shape are one
# shared, read-only object per distinct spec, built once.  Bounded: cleared when full.
_SPECS: dict[tuple[Any, ...], o.ResourceClaimSpec] = {}
_REQUESTS_ONLY = frozenset({"requests"})
_NAME_EXACTLY = frozenset({"name", "exactly"})
_PLAIN_EXACT = frozenset({"deviceClassName", "allocationMode", "count"})


def _plain_spec_key(devices: Raw) -> tuple[Any, ...] | None:
    """Everything the builder reads of a spec whose requests are all ``exactly`` with only a
    class name, an allocation mode and a count (strings and an int, as the API has them); None
    for any other spec."""
    requests = devices.get("requests")
    if devices.keys() != _REQUESTS_ONLY or type(requests) is not list:
        return None
    key: list[Any] = []
    for r in requests:
        if type(r) is not dict or r.keys() != _NAME_EXACTLY:
            return None
        name, e = r["name"], r["exactly"]
        if type(name) is not str or type(e) is not dict or not e.keys() <= _PLAIN_EXACT:
            return None
        cls, mode, count = e.get("deviceClassName"), e.get("allocationMode"), e.get("count")
        if (
            type(cls) is not str
            or (mode is not None and type(mode) is not str)
            or (count is not None and type(count) is not int)
        ):
            return None
        key += (name, cls, mode, count)
    return tuple(key)


def claim_spec(raw: Any) -> o.ResourceClaimSpec:
    devices = _m(_m(raw).get("devices"))
    key = _plain_spec_key(devices) if type(devices) is dict else None
    if key is not None:
        hit = _SPECS.get(key)
        if hit is None:
            hit = remember(_SPECS, key, _claim_spec(devices), _INTERN_MAX)
        return hit
    return _claim_spec(devices)


def _claim_spec(devices: Raw) -> o.ResourceClaimSpec:
    constraints, configs = devices.get("constraints"), devices.get("config")
    return _ResourceClaimSpec(
        tuple(request(r) for r in _l(devices.get("requests"))),
        tuple(
            o.DeviceConstraint(
                _strs(_m(c).get("requests")),
                _os(_m(c).get("matchAttribute")),
                _os(_m(c).get("distinctAttribute")),
            )
            for c in _l(constraints)
        )
        if constraints
        else (),
        tuple(config(c) for c in _l(configs)) if configs else (),
    )


_PLAIN_RESULT = frozenset({"request", "driver", "pool", "device"})


def allocation(raw: Any) -> o.AllocationResult | None:
    if not isinstance(raw, Mapping):
        return None
    devices = _m(raw.get("devices"))
    results = []
    for r in _l(devices.get("results")):
        rm = _m(r)
        if rm.keys() <= _PLAIN_RESULT:  # request, driver, pool, device: the rest are defaults
            results.append(
                _DeviceRequestAllocationResult(
                    _s(rm.get("request")), _s(rm.get("driver")), _s(rm.get("pool")), _s(rm.get("device"))
                )
            )
            continue
        cc = rm.get("consumedCapacity")
        results.append(
            _DeviceRequestAllocationResult(
                _s(rm.get("request")),
                _s(rm.get("driver")),
                _s(rm.get("pool")),
                _s(rm.get("device")),
                _ob(rm.get("adminAccess")),
                _tolerations(rm.get("tolerations")),
                _strs(rm.get("bindingConditions")),
                _strs(rm.get("bindingFailureConditions")),
                _os(rm.get("shareID")),
                {k: _q(v) for k, v in cc.items()} if isinstance(cc, Mapping) else None,
            )
        )
    ns = raw.get("nodeSelector")
    configs = devices.get("config")
    return _AllocationResult(
        tuple(results),
        tuple(config(c) for c in _l(configs)) if configs else (),
        ns if isinstance(ns, Mapping) else None,
        _os(raw.get("allocationTimestamp")),
    )


def _consumer(raw: Any) -> o.ResourceClaimConsumerReference:
    m = _m(raw)
    return _ResourceClaimConsumerReference(
        _s(m.get("resource")), _s(m.get("name")), _s(m.get("uid")), _s(m.get("apiGroup"))
    )


def resource_claim(raw: Raw, origin: o.Origin | None = None, keep_raw: bool = True) -> o.ResourceClaim:
    """``keep_raw`` False: ``raw`` is not kept (a reader that lets the JSON go)."""
    status = _m(raw.get("status"))
    statuses, refs = status.get("devices"), status.get("reservedFor")
    return _ResourceClaim(
        meta=meta(raw.get("metadata")),
        spec=claim_spec(raw.get("spec")),
        allocation=allocation(status.get("allocation")),
        reserved_for=tuple([_consumer(r) for r in refs]) if refs and type(refs) is list else (),
        device_statuses=tuple(x for x in _l(statuses) if isinstance(x, Mapping)) if statuses else (),
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw if keep_raw else {},
    )


def resource_claim_template(raw: Raw, origin: o.Origin | None = None) -> o.ResourceClaimTemplate:
    tmpl = _m(raw.get("spec"))
    tm = meta(tmpl.get("metadata"))
    return o.ResourceClaimTemplate(
        meta=meta(raw.get("metadata")),
        spec=claim_spec(tmpl.get("spec")),
        template_labels=tm.labels,
        template_annotations=tm.annotations,
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw,
    )


def device_class(raw: Raw, origin: o.Origin | None = None) -> o.DeviceClass:
    spec = _m(raw.get("spec"))
    return o.DeviceClass(
        meta=meta(raw.get("metadata")),
        selectors=_selectors(spec.get("selectors")),
        config=tuple(config(c) for c in _l(spec.get("config"))),
        extended_resource_name=_os(spec.get("extendedResourceName")),
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw,
    )


def device_taint_rule(raw: Raw, origin: o.Origin | None = None) -> o.DeviceTaintRule:
    spec = _m(raw.get("spec"))
    sel = spec.get("deviceSelector")
    ds = None
    if isinstance(sel, Mapping):
        ds = o.DeviceTaintSelector(
            _os(sel.get("driver")),
            _os(sel.get("pool")),
            _os(sel.get("device")),
            _os(sel.get("deviceClassName")),
            _selectors(sel.get("selectors")),
        )
    return o.DeviceTaintRule(
        meta=meta(raw.get("metadata")),
        device_selector=ds,
        taint=taint(spec.get("taint")),
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw,
    )


def node(raw: Raw, origin: o.Origin | None = None) -> o.Node:
    spec = _m(raw.get("spec"))
    return _Node(
        meta=meta(raw.get("metadata")),
        taints=tuple(
            o.Taint(_s(_m(t).get("key")), _s(_m(t).get("value")), _s(_m(t).get("effect")))
            for t in _l(spec.get("taints"))
        ),
        unschedulable=spec.get("unschedulable") is True,
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw,
    )


def _container(raw: Any, init: bool) -> o.ContainerClaims:
    m = _m(raw)
    res = _m(m.get("resources"))
    claims = tuple((_s(_m(c).get("name")), _os(_m(c).get("request"))) for c in _l(res.get("claims")))
    return _ContainerClaims(
        _s(m.get("name")),
        claims,
        {k: str(v) for k, v in _m(res.get("requests")).items()},
        {k: str(v) for k, v in _m(res.get("limits")).items()},
        init,
    )


def pod(raw: Raw, origin: o.Origin | None = None) -> o.Pod:
    spec = _m(raw.get("spec"))
    status = _m(raw.get("status"))
    aff = spec.get("affinity")
    ext = status.get("extendedResourceClaimStatus")
    return _Pod(
        meta=meta(raw.get("metadata")),
        node_name=_os(spec.get("nodeName")),
        node_selector=_strmap(spec.get("nodeSelector")),
        affinity=aff if isinstance(aff, Mapping) else None,
        tolerations=tuple(t for t in _l(spec.get("tolerations")) if isinstance(t, Mapping)),
        scheduler_name=_os(spec.get("schedulerName")),
        resource_claims=_pod_claims(spec),
        containers=tuple(
            [_container(c, True) for c in _l(spec.get("initContainers"))]
            + [_container(c, False) for c in _l(spec.get("containers"))]
        ),
        claim_statuses=_claim_statuses(status),
        extended_resource_claim_status=ext if isinstance(ext, Mapping) else None,
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw=raw,
    )


def _pod_claims(spec: Raw) -> tuple[o.PodResourceClaim, ...]:
    return tuple(
        _PodResourceClaim(
            _s(_m(c).get("name")),
            _os(_m(c).get("resourceClaimName")),
            _os(_m(c).get("resourceClaimTemplateName")),
        )
        for c in _l(spec.get("resourceClaims"))
    )


def _claim_statuses(status: Raw) -> dict[str, str | None]:
    return {
        _s(_m(c).get("name")): _os(_m(c).get("resourceClaimName"))
        for c in _l(status.get("resourceClaimStatuses"))
    }


def lean_pod(raw: Raw, origin: o.Origin | None = None) -> o.Pod:
    """The Pod as the inventory views read it (a lean read's, see ``ClusterSource``): what
    :func:`pod` builds of its name and namespace, node, resource claims and claim statuses, and
    ``raw`` holding only its ``status`` (its phase and container statuses are read from there;
    a lean cluster read decodes only those of it: :mod:`dractl.cluster.pages`); every other
    field is left at its default.  At 20,000 pods the rest (labels, containers,
    tolerations, the whole JSON kept) is most of the Pods' time and memory."""
    spec = _m(raw.get("spec"))
    status = _m(raw.get("status"))
    m = _m(raw.get("metadata"))
    return _Pod(
        meta=_ObjectMeta(name=_s(m.get("name")), namespace=_s(m.get("namespace"))),
        node_name=_os(spec.get("nodeName")),
        resource_claims=_pod_claims(spec),
        claim_statuses=_claim_statuses(status),
        api_version=_s(raw.get("apiVersion")),
        origin=origin,
        raw={"status": raw["status"]} if "status" in raw else {},
    )


BUILDERS: dict[str, Callable[[Raw, o.Origin | None], Any]] = {
    "ResourceSlice": resource_slice,
    "ResourceClaim": resource_claim,
    "ResourceClaimTemplate": resource_claim_template,
    "DeviceClass": device_class,
    "DeviceTaintRule": device_taint_rule,
    "Node": node,
    "Pod": pod,
}


def build_object(raw: Raw, origin: o.Origin | None = None) -> o.DRAObject:
    """Convert ``raw`` to v1 and build the model object; KeyError for kinds dractl doesn't model,
    ValueError (QuantityError) for unparsable quantities or unconvertible versions."""
    kind = raw.get("kind")
    builder = BUILDERS[kind if isinstance(kind, str) else ""]
    result: o.DRAObject = builder(to_v1(raw), origin)
    return result
