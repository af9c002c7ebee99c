"""Tiny constructors for ResourceSlice attribute and quantity values (v1 JSON shape)."""

from __future__ import annotations

from typing import Any

from dractl.model.quantity import BINARY_SI, DECIMAL_SI, Quantity, canonical

MAX_STRING_BYTES = 64  # DeviceAttributeMaxValueLength


def s(value: str) -> dict[str, Any]:
    return {"string": value}


def i(value: int) -> dict[str, Any]:
    return {"int": int(value)}


def b(value: bool) -> dict[str, Any]:
    return {"bool": bool(value)}


def v(value: str) -> dict[str, Any]:
    return {"version": value}


def binary(n: int) -> dict[str, Any]:
    """A capacity/counter value as Kubernetes prints ``resource.NewQuantity(n, BinarySI)``."""
    return {"value": canonical(Quantity.from_int(int(n), BINARY_SI))}


def decimal(n: int) -> dict[str, Any]:
    return {"value": canonical(Quantity.from_int(int(n), DECIMAL_SI))}


def fit_string(value: str) -> tuple[str, bool]:
    """``value`` cut to the 64-byte attribute limit at a UTF-8 boundary; (text, was_cut)."""
    raw = value.encode("utf-8")
    if len(raw) <= MAX_STRING_BYTES:
        return value, False
    return raw[:MAX_STRING_BYTES].decode("utf-8", errors="ignore"), True
