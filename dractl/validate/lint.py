"""Cross-object lint: what no single-object check (and not the API server) can see.

``lint`` looks at all inputs together, plus optional context objects (a snapshot
or the cluster): DeviceClasses that don't exist, selectors naming attributes no
device publishes or matching no device, incomplete or inconsistent pools,
counters that don't exist, duplicate devices and uuids, DeviceTaintRules that
taint everything, tolerations that tolerate nothing, requests bigger than any
node.  Findings are warnings, except where the server would reject the object
(admin access in a namespace known to lack the label).  Findings are returned in
a stable order and located in the input documents.  Pure: never prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.rules import xclaims, xmatch, xpods, xpools
from dractl.validate.rules.xindex import DocLike, Entry, Index, Located

_ERROR_RULES = frozenset({"RC-ADMIN-NS"})


def lint(
    docs: Sequence[DocLike],
    opts: ValidateOptions,
    *,
    context_docs: Sequence[DocLike] = (),
    index: Index | None = None,
) -> list[Finding]:
    """Cross-object findings over ``docs`` (the inputs) with ``context_docs`` (snapshot/cluster objects,
    only read).  Only input objects get findings.  Stable order (file, document, line, rule, path)."""
    if index is None:  # a prebuilt index (dractl.validate.stream) stands for docs and context_docs
        index = Index.build(docs, context_docs)
    out: list[Finding] = []

    def emit(entry: Entry, rule: str, path: str, message: str) -> None:
        if entry.is_input:
            if rule in _ERROR_RULES:
                finding = Finding(Severity.ERROR, rule, message, path, "Forbidden")
            else:
                finding = Finding(Severity.WARNING, rule, message, path)
            out.append(_locate(finding, entry))

    xclaims.check_classes(index, emit)
    xclaims.check_selector_refs(index, emit)
    xclaims.check_taint_rules(index, emit, opts.kube_version, opts.kube_patch)
    xclaims.check_tolerations(index, emit)
    xclaims.check_admin_namespaces(index, emit)
    xpods.check_pod_claims(index, emit)
    xpools.check_pools(index, emit)
    xpools.check_uuids(index, emit)
    xpools.check_mixed_slices(index, emit, before_135=opts.kube_version in ("1.32", "1.33", "1.34"))
    xmatch.check_matches(index, emit, opts.features)
    return sorted(_dedupe(out), key=Finding.sort_key)


def admin_namespace_findings(
    docs: Sequence[DocLike],
    opts: ValidateOptions,
    *,
    context_docs: Sequence[DocLike] = (),
    index: Index | None = None,
) -> list[Finding]:
    """Only lint's exact admin-access answer (RC-ADMIN-NS / RCT-ADMIN against Namespaces in the inputs
    or the context): what ``validate`` adds, after :func:`settle_offline_warnings`, so that validate
    and lint give one answer for the same input."""
    if index is None:  # a prebuilt index (dractl.validate.stream) stands for docs and context_docs
        index = Index.build(docs, context_docs)
    out: list[Finding] = []

    def emit(entry: Entry, rule: str, path: str, message: str) -> None:
        if entry.is_input:
            severity = Severity.ERROR if rule in _ERROR_RULES else Severity.WARNING
            out.append(
                _locate(
                    Finding(severity, rule, message, path, "Forbidden" if rule in _ERROR_RULES else None),
                    entry,
                )
            )

    xclaims.check_admin_namespaces(index, emit)
    return sorted(_dedupe(out), key=Finding.sort_key)


def settle_offline_warnings(
    findings: Sequence[Finding],
    docs: Sequence[DocLike],
    context_docs: Sequence[DocLike] = (),
    *,
    index: Index | None = None,
) -> list[Finding]:
    """Drop the offline admin-access warnings (RC-ADMIN-NS, RCT-ADMIN) of objects whose namespace is
    among the inputs or the context: for those, :func:`lint` answers exactly (an error or nothing)."""
    if index is None:  # a prebuilt index (dractl.validate.stream) stands for docs and context_docs
        index = Index.build(docs, context_docs)
    known = {e.name for e in index.of("Namespace")}
    return [
        f
        for f in findings
        if not (
            f.rule in ("RC-ADMIN-NS", "RCT-ADMIN") and f.severity is Severity.WARNING and f.namespace in known
        )
    ]


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for f in findings:
        key = (f.file, f.document, f.rule, f.path, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _locate(f: Finding, entry: Entry) -> Finding:
    doc = entry.doc
    origin = doc.origin
    line, column = _position(doc, f.path)
    return replace(
        f,
        file=str(getattr(origin, "file", "")),
        document=int(getattr(origin, "document", 0) or 0),
        line=line,
        column=column,
        kind=entry.kind,
        name=entry.name,
        namespace=entry.namespace,
    )


def _position(doc: Located, path: str) -> tuple[int | None, int | None]:
    candidate = path
    while True:
        try:
            line, column = doc.position(candidate)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError):
            line, column = None, None
        if line is not None or not candidate:
            return line, column
        cut = candidate.rfind("[") if candidate.endswith("]") else candidate.rfind(".")
        candidate = candidate[:cut] if cut > 0 else ""
