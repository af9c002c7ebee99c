"""DeviceClasses (``dractl generate class``), and classes plus a claim from ``dractl discover``
output (``--from-discover``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.errors import UsageError
from dractl.generate import celexpr
from dractl.generate.claim import API_VERSION, ClaimSpec, RequestSpec, check_name, claim_doc
from dractl.model.features import Features


@dataclass(frozen=True)
class ClassSpec:
    """``driver`` adds ``device.driver == …``; ``attrs`` use the driver's domain for bare names."""

    name: str
    driver: str | None = None
    attrs: tuple[str, ...] = ()
    cel: tuple[str, ...] = ()
    extended_resource_name: str | None = None
    features: Features = field(default_factory=Features.for_version)


def class_doc(spec: ClassSpec) -> dict[str, Any]:
    check_name(spec.name, "NAME")
    if spec.driver is not None:
        check_name(spec.driver, "--driver")
    if not spec.driver and not spec.cel and not spec.attrs:
        raise UsageError(
            "give --driver, --attr or --cel: a class without selectors matches every device of every driver"
        )
    exprs = [celexpr.driver_is(spec.driver)] if spec.driver else []
    exprs += [celexpr.attribute(a, spec.driver, "--attr") for a in spec.attrs]
    checked = [
        celexpr.check(e, spec.features, "--attr" if i >= (1 if spec.driver else 0) else "--driver")
        for i, e in enumerate(exprs)
    ]
    checked += [celexpr.check(e, spec.features, "--cel") for e in spec.cel]
    body: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in checked]}
    if spec.extended_resource_name:
        body["extendedResourceName"] = spec.extended_resource_name
    return {"apiVersion": API_VERSION, "kind": "DeviceClass", "metadata": {"name": spec.name}, "spec": body}


def from_discover(
    docs: Sequence[dict[str, Any]],
    features: Features,
    namespace: str | None = None,
    source: str = "--from-discover",
) -> list[dict[str, Any]]:
    """One DeviceClass per (driver, ``type`` attribute) of the ResourceSlices in ``docs`` and, per
    class, a claim for one device of it with the first device's ``productName`` (when it has one).
    UsageError when ``docs`` hold no ResourceSlice with devices."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for doc in docs:
        if doc.get("kind") != "ResourceSlice" or not isinstance(doc.get("spec"), dict):
            continue
        driver = doc["spec"].get("driver")
        for dev in doc["spec"].get("devices") or []:
            if isinstance(driver, str) and isinstance(dev, dict):
                groups.setdefault((driver, _string_attr(dev, "type") or ""), dev)
    if not groups:
        raise UsageError(f"{source}: no ResourceSlice with devices (expected dractl discover -o yaml output)")
    by_driver: dict[str, int] = {}
    for driver, _ in groups:
        by_driver[driver] = by_driver.get(driver, 0) + 1
    out: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    for (driver, kind), first in groups.items():
        name = driver if by_driver[driver] == 1 or kind in ("", "gpu") else f"{kind}.{driver}"
        attrs = (f"type='{kind}'",) if kind and by_driver[driver] > 1 else ()
        out.append(class_doc(ClassSpec(name=name, driver=driver, attrs=attrs, features=features)))
        product = _string_attr(first, "productName")
        request = RequestSpec(
            device_class=name, count=1, attrs=(f'productName="{product}"',) if product else ()
        )
        stem = name.split(".", 1)[0]
        claims.append(
            claim_doc(
                ClaimSpec(
                    name=f"{stem}-{driver.split('.', 1)[0]}"
                    if stem != driver.split(".", 1)[0]
                    else f"one-{stem}",
                    namespace=namespace,
                    request=request,
                    driver=driver,
                    features=features,
                )
            )
        )
    return out + claims


def _string_attr(dev: dict[str, Any], name: str) -> str | None:
    attrs = dev.get("attributes")
    value = attrs.get(name) if isinstance(attrs, dict) else None
    text = value.get("string") if isinstance(value, dict) else None
    return text if isinstance(text, str) else None
