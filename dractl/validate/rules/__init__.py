"""API-server rules per object (semantic validation beyond JSON Schema).

Entry point used by the validation engine: :func:`check_object`.
"""

from __future__ import annotations

from typing import Any

from dractl.validate.findings import Finding
from dractl.validate.options import ValidateOptions


def check_object(raw: dict[str, Any], opts: ValidateOptions) -> list[Finding]:
    """Semantic findings for one schema-checked object (fields: rule, message, path, error_type,
    severity; the engine fills in file/document/position/kind/name)."""
    del raw, opts
    return []
