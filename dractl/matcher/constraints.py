"""Claim constraints: ``matchAttribute`` and ``distinctAttribute``.

Each constraint sees devices through ``add`` (may refuse) and ``remove`` (exactly
once for every accepted ``add``, same arguments).  Constraints are monotonic:
once a device is refused, adding more devices never makes it acceptable, which is
what lets the search stop early.  With DRAListTypeAttributes, attribute values
are compared as sets (scalars are one-element sets): matchAttribute needs a
common element across all devices, distinctAttribute pairwise-disjoint sets.

To add a constraint kind: implement ``Constraint`` and build it in ``build``.
"""

from __future__ import annotations

from typing import Any, Protocol

from dractl.model.objects import AttributeValue, Device, DeviceConstraint

_SCALARS = ("string", "int", "bool", "version")
_LIST_TAG = {"strings": "string", "ints": "int", "bools": "bool", "versions": "version"}

ValueSet = tuple[str, frozenset[Any]]


class UnsupportedConstraint(Exception):
    """A constraint with neither matchAttribute nor distinctAttribute."""


def lookup(device: Device, name: str) -> AttributeValue | None:
    """The attribute by fully-qualified name, or by its short name when the domain
    is the device's driver."""
    attr = device.attributes.get(name)
    if attr is not None:
        return attr
    domain, sep, short = name.partition("/")
    if not sep or domain != device.driver:
        return None
    return device.attributes.get(short)


def as_set(attr: AttributeValue | None) -> ValueSet | None:
    """The attribute as a typed set; None for an empty list or an unknown type."""
    if attr is None:
        return None
    if attr.kind in _LIST_TAG:
        return (_LIST_TAG[attr.kind], frozenset(attr.value)) if attr.value else None
    if attr.kind in _SCALARS:
        return attr.kind, frozenset((attr.value,))
    return None


def _intersects(a: ValueSet, b: ValueSet) -> bool:
    return a[0] == b[0] and bool(a[1] & b[1])


class Constraint(Protocol):
    def add(self, request: str, subrequest: str, device: Device) -> bool: ...

    def remove(self, request: str, subrequest: str, device: Device) -> None: ...


class _Scoped:
    """Which requests a constraint applies to (none listed: all of the claim's)."""

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.list_types = list_types

    def applies(self, request: str, subrequest: str) -> bool:
        if not self.requests:
            return True
        return request in self.requests or (bool(subrequest) and f"{request}/{subrequest}" in self.requests)


class MatchAttribute(_Scoped):
    """All devices share one value (with list types: a common element)."""

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool) -> None:
        super().__init__(requests, attribute, list_types)
        self.first: AttributeValue | None = None
        self.common: ValueSet | None = None
        self.count = 0

    def add(self, request: str, subrequest: str, device: Device) -> bool:
        if not self.applies(request, subrequest):
            return True
        attr = lookup(device, self.attribute)
        if attr is None:
            return False
        if self.count == 0:
            if not self._start(attr):
                return False
        elif not self._accepts(attr):
            return False
        self.count += 1
        return True

    def _start(self, attr: AttributeValue) -> bool:
        if self.list_types:
            self.common = as_set(attr)
            return self.common is not None
        self.first = attr
        return True

    def _accepts(self, attr: AttributeValue) -> bool:
        if not self.list_types:
            assert self.first is not None
            return attr.kind in _SCALARS and self.first.kind == attr.kind and self.first.value == attr.value
        new = as_set(attr)
        if new is None or self.common is None or not _intersects(self.common, new):
            return False
        # Narrowing is not undone by remove(), as upstream: later devices must
        # share an element with every device that was ever in the set.
        self.common = (new[0], self.common[1] & new[1])
        return True

    def remove(self, request: str, subrequest: str, device: Device) -> None:
        if self.applies(request, subrequest):
            self.count -= 1

    def fixed_value(self) -> AttributeValue | None:
        """The value all further devices must have (scalar mode, set non-empty)."""
        return self.first if self.count > 0 and not self.list_types else None


class DistinctAttribute(_Scoped):
    """No two devices share a value (with list types: pairwise-disjoint sets).

    As upstream, values are remembered per request name, so two devices of one
    request are only compared with the values of the other requests.
    """

    def __init__(self, requests: tuple[str, ...], attribute: str, list_types: bool) -> None:
        super().__init__(requests, attribute, list_types)
        self.values: dict[str, AttributeValue] = {}
        self.count = 0

    def add(self, request: str, subrequest: str, device: Device) -> bool:
        if not self.applies(request, subrequest):
            return True
        attr = lookup(device, self.attribute)
        if attr is None:
            return False
        if self.count > 0 and not self._distinct(attr):
            return False
        self.values[request] = attr
        self.count += 1
        return True

    def _distinct(self, attr: AttributeValue) -> bool:
        if self.list_types:
            new = as_set(attr)
            if new is None:
                return False
            return not any(
                old is not None and _intersects(new, old) for old in (as_set(v) for v in self.values.values())
            )
        for old in self.values.values():
            if attr.kind not in _SCALARS:
                return False
            if old.kind == attr.kind and old.value == attr.value:
                return False
        return True

    def remove(self, request: str, subrequest: str, device: Device) -> None:
        if self.applies(request, subrequest):
            self.values.pop(request, None)
            self.count -= 1


AnyConstraint = MatchAttribute | DistinctAttribute


def build(spec: DeviceConstraint, list_types: bool, distinct_supported: bool = True) -> AnyConstraint:
    """A fresh constraint for one allocation; raises UnsupportedConstraint.
    ``distinct_supported`` False: the stable implementation, which only knows matchAttribute."""
    if spec.match_attribute is not None:
        return MatchAttribute(spec.requests, spec.match_attribute, list_types)
    if spec.distinct_attribute is not None and distinct_supported:
        return DistinctAttribute(spec.requests, spec.distinct_attribute, list_types)
    raise UnsupportedConstraint()
