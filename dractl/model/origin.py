"""Where an object was read from (kept apart from :mod:`dractl.model.objects` so that the
loader can record it without building every model class)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an object was read from: file ("-" for stdin) and 0-based document index."""

    file: str
    document: int = 0
    item: int | None = None  # index inside a ``kind: List``
