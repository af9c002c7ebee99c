"""The result of a validation run: findings, unreadable inputs, per-object results, summary.

Plain data: renderers read :meth:`ValidationReport.to_dict` (the JSON/YAML document, whose
schema is ``schemas/output/validation-report.schema.json``) and never count anything
themselves.  The report owns the exit code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dractl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, MESSAGE_LIMIT, InputError, excerpt
from dractl.validate.findings import Finding, Severity, Suppression

API_VERSION = "dractl/v1alpha1"


@dataclass(frozen=True, slots=True)
class ObjectResult:
    """One object seen in the input.  ``checked`` is False for kinds dractl skips
    (Namespaces, Deployments, …); ``item`` is the index inside a ``kind: List`` (else None)."""

    file: str
    document: int
    api_version: str
    kind: str
    name: str = ""
    namespace: str = ""
    item: int | None = None
    checked: bool = True
    errors: int = 0
    warnings: int = 0

    def __post_init__(self) -> None:
        for name in ("api_version", "kind", "name", "namespace"):  # from the input: bounded (issue 11)
            text = getattr(self, name)
            if len(text) > MESSAGE_LIMIT:
                object.__setattr__(self, name, excerpt(text, MESSAGE_LIMIT))

    @property
    def status(self) -> str:
        if not self.checked:
            return "skipped"
        return "invalid" if self.errors else "warning" if self.warnings else "valid"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "document": self.document}
        if self.item is not None:
            out["item"] = self.item
        out.update({"apiVersion": self.api_version, "kind": self.kind, "name": self.name})
        if self.namespace:
            out["namespace"] = self.namespace
        out.update({"status": self.status, "errors": self.errors, "warnings": self.warnings})
        return out


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts computed once by the engine."""

    kube_version: str
    files: int
    objects: int  # checked objects
    by_kind: Mapping[str, int]  # checked objects per kind
    skipped: Mapping[str, int]  # skipped objects per kind
    errors: int
    warnings: int
    by_rule: Mapping[str, int]
    input_errors: int
    suppressed: int = 0  # findings silenced (--skip/--only, config, annotation)
    suppressed_by_rule: Mapping[str, int] = field(default_factory=dict)

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "kubeVersion": self.kube_version,
            "files": self.files,
            "objects": self.objects,
            "objectsByKind": dict(sorted(self.by_kind.items())),
            "skipped": self.skipped_total,
            "skippedByKind": dict(sorted(self.skipped.items())),
            "errors": self.errors,
            "warnings": self.warnings,
            "findingsByRule": dict(sorted(self.by_rule.items())),
            "inputErrors": self.input_errors,
            "suppressed": self.suppressed,
            "suppressedByRule": dict(sorted(self.suppressed_by_rule.items())),
        }


@dataclass(frozen=True)
class ValidationReport:
    """Findings (sorted by file, document, line, column, rule), inputs that could not be read,
    the objects seen, and the summary.  A rule's one-line description (SARIF) is the rule
    registry's (:mod:`dractl.validate.catalog`, read only when asked), unless ``rules`` gives
    one; ``strict`` (``--strict``) makes warnings fail the exit code."""

    report_type: ClassVar[str] = "validation"

    findings: tuple[Finding, ...]
    input_errors: tuple[InputError, ...]
    objects: tuple[ObjectResult, ...]
    summary: Summary
    rules: Mapping[str, str] = field(default_factory=dict)
    suppressed: tuple[tuple[Finding, Suppression], ...] = ()  # silenced findings, with why
    strict: bool = False

    @classmethod
    def build(
        cls,
        kube_version: str,
        findings: Iterable[Finding],
        objects: Sequence[ObjectResult],
        input_errors: Sequence[InputError] = (),
        files: Iterable[str] = (),
        rules: Mapping[str, str] | None = None,
        suppressed: Iterable[tuple[Finding, Suppression]] = (),
        *,
        strict: bool = False,
    ) -> ValidationReport:
        ordered = tuple(sorted(findings, key=Finding.sort_key))
        silenced = tuple(sorted(suppressed, key=lambda pair: pair[0].sort_key()))
        checked = [o for o in objects if o.checked]
        error_files = {e.source.file for e in input_errors if e.source is not None}
        all_files = set(files) | {o.file for o in objects} | error_files
        summary = Summary(
            kube_version=kube_version,
            files=len(all_files),
            objects=len(checked),
            by_kind=Counter(o.kind for o in checked),
            skipped=Counter(o.kind or "<none>" for o in objects if not o.checked),
            errors=sum(f.severity is Severity.ERROR for f in ordered),
            warnings=sum(f.severity is Severity.WARNING for f in ordered),
            by_rule=Counter(f.rule for f in ordered),
            input_errors=len(input_errors),
            suppressed=len(silenced),
            suppressed_by_rule=Counter(f.rule for f, _ in silenced),
        )
        used = {f.rule for f in ordered} | {f.rule for f, _ in silenced}
        descriptions = {r: d for r, d in (rules or {}).items() if r in used}
        return cls(ordered, tuple(input_errors), tuple(objects), summary, descriptions, silenced, strict)

    @property
    def exit_code(self) -> int:
        """2 when any input could not be read (even if others had findings); 1 on any
        error finding (any warning too when ``strict``); else 0."""
        if self.input_errors:
            return EXIT_INPUT
        if self.summary.errors or (self.strict and self.summary.warnings):
            return EXIT_FINDINGS
        return EXIT_OK

    def rule_description(self, rule: str) -> str:
        """``rule``'s one-line meaning: from ``rules``, else from the rule registry ("" if unknown)."""
        if self.rules.get(rule):
            return self.rules[rule]
        from dractl.validate.catalog import describe

        return describe(rule)

    def to_dict(self) -> dict[str, Any]:
        silenced = [{**f.to_dict(), "suppression": why.to_dict()} for f, why in self.suppressed]
        return {
            "apiVersion": API_VERSION,
            "kind": "ValidationReport",
            "items": [f.to_dict() for f in self.findings],
            "inputErrors": [input_error_dict(e) for e in self.input_errors],
            "objects": [o.to_dict() for o in self.objects],
            "summary": self.summary.to_dict(),
            **({"suppressed": silenced} if silenced else {}),
        }


def input_error_dict(error: InputError) -> dict[str, Any]:
    src = error.source
    return {
        "file": src.file if src else "",
        "document": src.document if src else 0,
        "line": src.line if src else None,
        "column": src.column if src else None,
        "field": error.field or "",
        "message": error.message,
        "text": error.one_line(),
    }
