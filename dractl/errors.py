"""The dractl error tree.  The bottom layer: imports nothing of dractl.

Findings and "not allocatable" are results, never exceptions.  Exceptions are for
input that cannot be read (exit 2), usage mistakes (exit 2), cluster/API failures
(exit 3) and CEL failures that callers turn into findings or allocation errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INPUT = 2
EXIT_CLUSTER = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

# Longest message, field path or object name a finding or an error carries, and longest input value
# quoted inside a message: a multi-megabyte value copied whole into a message made every report of
# it slow (a table layout of a minute) and huge.  Cut text ends with its full length.
MESSAGE_LIMIT = 4000
VALUE_LIMIT = 1024  # above every length Kubernetes allows for a name, label or attribute value


def excerpt(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` itself, or its first ``limit`` characters and ``… (2,900,000 characters)``: the one
    helper every message, finding and renderer bounds a value with."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def bounded(text: str | None, limit: int = MESSAGE_LIMIT) -> str | None:
    """A report's message text as its document carries it (``to_dict``, every format): itself,
    or an :func:`excerpt` when longer than ``limit``.  For the words a report says about objects;
    an object's identity (a name or id used as a key) and data copied from it stay exact."""
    return text if text is None or len(text) <= limit else excerpt(text, limit)


def bounded_all(texts: Iterable[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """:func:`bounded` of each message, as a list."""
    return [t if len(t) <= limit else excerpt(t, limit) for t in texts]


def quoted(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` in double quotes with Go's ``%q`` escapes for quotes, backslashes and C0 controls
    (a newline from the input never splits a message), cut like :func:`excerpt`."""
    import json

    head = json.dumps(text[:limit], ensure_ascii=False)
    return head if len(text) <= limit else f"{head}… ({len(text):,} characters)"


def show_value(value: object, limit: int = VALUE_LIMIT) -> str:
    """``repr(value)`` bounded by :func:`excerpt`; a long string is cut before it is quoted, so
    it is never copied whole."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    return excerpt(repr(value), limit)


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where something came from: a file (or "-" for stdin), the 0-based document
    index inside it, and 1-based line/column when known."""

    file: str
    document: int = 0
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)


class DractlError(Exception):
    """Base of every error dractl reports as one line."""

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str) -> None:
        message = excerpt(message, MESSAGE_LIMIT)
        super().__init__(message)
        self.message = message

    def one_line(self) -> str:
        """The text after ``dractl: error: ``."""
        return self.message


class InputError(DractlError):
    """Input that cannot be read or parsed (exit 2): names file, line and field."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str, source: SourcePos | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.field = excerpt(field, MESSAGE_LIMIT) if field is not None else None

    def one_line(self) -> str:
        prefix = f"{self.source}: " if self.source is not None else ""
        fld = f"{self.field}: " if self.field else ""
        return f"{prefix}{fld}{self.message}"


class UsageError(DractlError):
    """A wrong flag combination or value (exit 2)."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


class ClusterError(DractlError):
    """A failed API call (exit 3); carries the Status reason when the server sent one.

    ``scope`` says where the call looked ("at the cluster scope", "in namespace team-a");
    ``denied`` words it as an authorization failure: ``cannot list
    resourceslices.resource.k8s.io at the cluster scope: forbidden``.
    """

    exit_code = EXIT_CLUSTER

    def __init__(
        self,
        verb: str,
        resource: str,
        message: str,
        reason: str | None = None,
        code: int | None = None,
        *,
        scope: str | None = None,
        denied: bool = False,
    ) -> None:
        where = f" {scope}" if scope else ""
        head = f"cannot {verb}" if denied else verb
        super().__init__(f"{head} {resource}{where}: {message}")
        self.verb = verb
        self.resource = resource
        self.reason = reason
        self.code = code
        self.scope = scope
        self.denied = denied


class CelError(DractlError):
    """Base of CEL failures; ``.message`` is Kubernetes' wording."""

    exit_code = EXIT_FINDINGS


class CelCompileError(CelError):
    """A selector failed to compile, type-check, or exceeds the length/cost limits."""

    def __init__(self, message: str, error_type: str = "Invalid") -> None:
        super().__init__(message)
        self.error_type = error_type


class CelRuntimeError(CelError):
    """A selector failed while being evaluated against a device."""
