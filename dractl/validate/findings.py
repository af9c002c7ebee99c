"""Findings: the result data of every validation, lint and CEL check.

A finding is data, never an exception.  Positions are filled in by the
loader's position index (lazily, only for objects that have findings).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from dractl.errors import MESSAGE_LIMIT, excerpt


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


# Kubernetes field.ErrorType names, as the API server reports them.
ERROR_TYPES = (
    "Required",
    "Invalid",
    "TooLong",
    "TooMany",
    "Duplicate",
    "NotSupported",
    "Forbidden",
    "NotFound",
    "TypeInvalid",
    "InternalError",
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one object.

    ``rule`` is a stable id (``SCHEMA-…``, ``RS-…``, ``RC-…``, ``FMT-…``, ``LINT-…``, …);
    ``path`` is the field path in Kubernetes' notation (``spec.devices[0].name``),
    "" for the object as a whole; ``error_type`` is the Kubernetes error type when
    the API server would report it, else None.  ``file``/``document`` locate the
    object; ``line``/``column`` the field (None when unknown).
    """

    severity: Severity
    rule: str
    message: str
    path: str = ""
    error_type: str | None = None
    file: str = ""
    document: int = 0
    line: int | None = None
    column: int | None = None
    kind: str = ""
    name: str = ""
    namespace: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # Every finding of every check is built here: bound what it quotes from the input once,
        # for every format (JSON included: an excerpt that says the full length).
        for name in ("message", "path", "kind", "name", "namespace"):
            text = getattr(self, name)
            if len(text) > MESSAGE_LIMIT:
                object.__setattr__(self, name, excerpt(text, MESSAGE_LIMIT))

    @property
    def location(self) -> str:
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def one_line(self) -> str:
        """``file:line:col: path: message`` as shown to users."""
        where = f"{self.path}: " if self.path else ""
        return f"{self.location}: {where}{self.message}"

    def with_position(self, line: int | None, column: int | None) -> Finding:
        return replace(self, line=line, column=column)

    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.file,
            self.document,
            self.line or 0,
            self.column or 0,
            self.rule,
            self.path,
            self.message,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity.value,
            "rule": self.rule,
            "message": self.message,
            "path": self.path,
            "errorType": self.error_type,
            "file": self.file,
            "document": self.document,
            "line": self.line,
            "column": self.column,
            "kind": self.kind,
            "name": self.name,
        }
        if self.namespace:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True, slots=True)
class Suppression:
    """Why a finding was suppressed: ``kind`` is ``external`` (flag, config) or ``inSource``
    (annotation), as SARIF names them; ``source`` says which (``--skip``, ``.dractl.yaml``, …)."""

    kind: str
    source: str
    justification: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "source": self.source, "justification": self.justification}
