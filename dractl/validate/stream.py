"""Validation one document at a time: what keeps ``validate`` and ``lint`` within a few times the
input's size in memory.

:class:`StreamCheck` takes documents as they are loaded (:meth:`StreamCheck.add`), checks each at
once (:func:`dractl.validate.engine.check_doc`) and keeps only what the rest of the run needs:

* the object's result and its findings (small);
* for the cross-object checks, a *packed* index entry (:class:`~dractl.validate.rules.xindex.Entry`:
  the object compressed, about a seventh of its YAML text, unpacked when a rule asks) -- for
  ``validate``, which adds only lint's exact admin-access answer, just the Namespaces, claims and
  claim templates;
* the ``dractl.io/ignore`` annotation of the objects that have one (for the suppressions).

The document itself (the dict tree, ten times its text) is dropped as soon as it is checked.
:meth:`StreamCheck.report` then runs the cross-object checks over the index and builds the one
report.  :func:`dractl.validate.engine.check` is this same code over documents in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dractl.errors import InputError
from dractl.validate.findings import Finding
from dractl.validate.options import ValidateOptions
from dractl.validate.report import ObjectResult, ValidationReport
from dractl.validate.rules.xindex import Entry, Index, entry_of, new_cache
from dractl.validate.suppress import ANNOTATION

# What validate's admin-access answer (lint.admin_namespace_findings, settle_offline_warnings) reads.
_ADMIN_KINDS = frozenset({"Namespace", "ResourceClaim", "ResourceClaimTemplate"})


@dataclass(frozen=True, slots=True)
class Where:
    """Where a document was read, without the document (an index entry's ``doc``)."""

    origin: Any
    source: Any

    def position(self, path: str = "") -> tuple[int | None, int | None]:
        if self.source is None:
            return None, None
        return self.source.position(self.origin.document, getattr(self.origin, "item", None), path)


@dataclass(frozen=True, slots=True)
class Annotated:
    """A document's identity and its ``dractl.io/ignore`` annotation (what the suppressions read)."""

    raw: dict[str, Any]
    origin: Any


def _no_warn(message: str) -> None:
    """Default ``warn``: drop the warning."""


class StreamCheck:
    """One validation run fed document by document (see the module docstring).

    ``kinds`` keeps only objects of those kinds (as :func:`dractl.validate.engine.check`);
    ``cross`` adds the cross-object lint; ``pack`` compresses the index entries (for documents
    that are not kept anyway; :func:`~dractl.validate.engine.check` passes False)."""

    def __init__(
        self,
        opts: ValidateOptions,
        *,
        kinds: frozenset[str] | None = None,
        cross: bool = False,
        pack: bool = True,
        warn: Callable[[str], None] = _no_warn,
    ) -> None:
        self.opts = opts
        self.kinds = kinds
        self.cross = cross
        self.warn = warn
        self._cache = new_cache() if pack else None
        self._inputs: list[Entry] = []
        self._context: list[Entry] = []
        self.findings: list[Finding] = []
        self.objects: list[ObjectResult] = []
        self.annotated: list[Annotated] = []
        self.ignored = 0

    def _entry(self, doc: Any, is_input: bool) -> Entry | None:
        raw = doc.raw
        kind = raw.get("kind") if isinstance(raw, Mapping) else None
        if not self.cross and (not isinstance(kind, str) or kind not in _ADMIN_KINDS):  # a list: unhashable
            return None
        where = Where(doc.origin, getattr(doc, "source", None)) if self._cache is not None else None
        return entry_of(doc, is_input, where=where, cache=self._cache)

    def add_context(self, doc: Any) -> None:
        """A context object (a snapshot's, ``--classes-from``): only read by the cross-object checks."""
        entry = self._entry(doc, False)
        if entry is not None:
            self._context.append(entry)

    def add(self, doc: Any) -> None:
        """Check one input document now; keep its result, findings and index entry."""
        from dractl.validate.engine import _selected, check_doc

        if self.kinds is not None and not _selected(doc.raw, self.kinds):
            self.ignored += 1
            return
        result, found = check_doc(doc, self.opts)
        self.objects.append(result)
        self.findings.extend(found)
        entry = self._entry(doc, True)
        if entry is not None:
            self._inputs.append(entry)
        note = _annotation(doc)
        if note is not None:
            self.annotated.append(note)

    def add_all(self, docs: Iterable[Any], context: Iterable[Any] = ()) -> StreamCheck:
        for doc in docs:
            self.add(doc)
        for doc in context:
            self.add_context(doc)
        return self

    def report(
        self, *, input_errors: Sequence[InputError] = (), files: Iterable[str] = ()
    ) -> ValidationReport:
        """The report: the per-document findings, the offline admin-access warnings settled, and
        the cross-object findings (all of lint's, or only its admin-access answer)."""
        from dractl.validate.lint import admin_namespace_findings, lint, settle_offline_warnings

        if self.ignored:
            self.warn(f"ignored {self.ignored} object(s) of other kinds")
        index = Index([*self._inputs, *self._context])
        findings = settle_offline_warnings(self.findings, (), index=index)
        if self.cross:
            findings += lint((), self.opts, index=index)
        else:
            findings += admin_namespace_findings((), self.opts, index=index)
        return ValidationReport.build(
            self.opts.kube_version, findings, self.objects, input_errors, files, strict=self.opts.strict
        )


def _annotation(doc: Any) -> Annotated | None:
    raw = doc.raw
    meta = raw.get("metadata") if isinstance(raw, Mapping) else None
    notes = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(notes, Mapping) or ANNOTATION not in notes:
        return None
    assert isinstance(meta, Mapping)
    kept_meta = {k: meta.get(k) for k in ("name", "namespace") if k in meta}
    kept_meta["annotations"] = {ANNOTATION: notes[ANNOTATION]}
    return Annotated({"kind": raw.get("kind"), "metadata": kept_meta}, doc.origin)
