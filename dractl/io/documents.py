"""What loading returns: :class:`LoadedDoc` (one object) and :class:`LoadResult` (all of them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dractl.errors import InputError
from dractl.io.positions import SourceText
from dractl.model.origin import Origin


@dataclass(frozen=True)
class LoadedDoc:
    """One object read from an input: a mapping document, or one item of a ``kind: List``.

    ``raw`` holds plain values (dict/list/str/int/float/bool/None) exactly as written (not
    converted to v1); it must not be mutated.  ``duplicate_keys`` lists ``(field path, line,
    column)`` of every mapping key written twice (the later one, whose value won), with paths
    relative to this object.
    """

    raw: dict[str, Any]
    origin: Origin
    duplicate_keys: tuple[tuple[str, int, int], ...] = ()
    source: SourceText | None = field(default=None, repr=False, compare=False)

    def position(self, path: str = "") -> tuple[int | None, int | None]:
        """1-based ``(line, column)`` of a field path such as ``spec.devices[0].attributes.model``
        (``""`` = the object's start).  A path that doesn't exist gives its nearest existing
        ancestor.  ``(None, None)`` when positions can't be known (e.g. a doc built in memory).
        The first call re-reads the file; later calls for the same file are cached."""
        if self.source is None:
            return None, None
        return self.source.position(self.origin.document, self.origin.item, path)

    def _str(self, value: Any) -> str | None:
        return value if isinstance(value, str) else None

    @property
    def kind(self) -> str | None:
        return self._str(self.raw.get("kind"))

    @property
    def api_version(self) -> str | None:
        return self._str(self.raw.get("apiVersion"))

    @property
    def name(self) -> str | None:
        meta = self.raw.get("metadata")
        return self._str(meta.get("name")) if isinstance(meta, dict) else None

    @property
    def namespace(self) -> str | None:
        meta = self.raw.get("metadata")
        return self._str(meta.get("namespace")) if isinstance(meta, dict) else None


@dataclass
class LoadResult:
    """Everything read from the inputs.

    ``docs``: every object in input order (snapshot header excluded).  ``errors``: one
    :class:`~dractl.errors.InputError` per input (or document) that couldn't be read; the
    other inputs are still loaded.  ``files``: every file that was read, in order (``-`` for
    stdin).  ``snapshot_header``: the ``dractl/v1alpha1 Snapshot`` header when an input was a
    snapshot.  ``empty_documents``: null or empty documents (not errors).
    """

    docs: list[LoadedDoc] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    snapshot_header: dict[str, Any] | None = None
    empty_documents: int = 0

    @property
    def ok(self) -> bool:
        """True when every input could be read and parsed."""
        return not self.errors
