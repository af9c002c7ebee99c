"""Bounded memo tables: the one "cleared when full" rule every interning cache follows."""

from __future__ import annotations

from typing import Any, TypeVar

V = TypeVar("V")


def remember(table: dict[Any, Any], key: Any, value: V, limit: int) -> V:
    """Store ``value`` under ``key`` in ``table``, emptying the table first when it already holds
    ``limit`` entries (a hostile input's distinct keys never grow it past that); return ``value``.
    Lookups stay with the caller (``table.get``), so a hit costs no call."""
    if len(table) >= limit:
        table.clear()
    table[key] = value
    return value
