"""The validation engine: loaded documents in, a :class:`ValidationReport` out.

Per document, in the API server's order: type meta (apiVersion/kind) → is that API version
served by the target release (§13) → structural schema (the decoder: types, unknown and
duplicate fields, quantities) → the API server's semantic rules (``dractl.validate.rules``,
only for objects that decoded) — then every finding gets its file, line and column.
Objects of other kinds are skipped and counted; Pods are checked only where dractl reads.
Pure: never prints, never mutates the documents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from dractl.errors import InputError, quoted, show_value
from dractl.validate import schema, versions
from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.report import ObjectResult, ValidationReport
from dractl.validate.rules import workloads
from dractl.validate.versions import Availability

_DECODE_RULES = frozenset(
    {
        "SCHEMA-UNKNOWN-FIELD",
        "SCHEMA-DUPLICATE-FIELD",
        "SCHEMA-TYPE",
        "SCHEMA-ENUM",
        "SCHEMA-QUANTITY",
        "SCHEMA-INT-RANGE",
        "SCHEMA-FORMAT",
        "SCHEMA-INVALID",
    }
)


class Origin(Protocol):
    @property
    def file(self) -> str: ...
    @property
    def document(self) -> int: ...


class Doc(Protocol):
    """What the engine needs of a loaded document (``dractl.io.LoadedDoc``)."""

    @property
    def raw(self) -> dict[str, Any]: ...
    @property
    def origin(self) -> Origin: ...
    @property
    def duplicate_keys(self) -> tuple[tuple[str, int, int], ...]: ...

    def position(self, path: str = "") -> tuple[int | None, int | None] | None: ...


def validate_docs(
    docs: Sequence[Doc],
    opts: ValidateOptions,
    *,
    input_errors: Sequence[InputError] = (),
    files: Iterable[str] = (),
) -> ValidationReport:
    """Validate every document.  ``input_errors`` (inputs that could not be read) and ``files``
    (every file read, even empty ones) only feed the summary and the exit code."""
    findings: list[Finding] = []
    objects: list[ObjectResult] = []
    for doc in docs:
        result, found = check_doc(doc, opts)
        objects.append(result)
        findings.extend(found)
    return ValidationReport.build(
        opts.kube_version, findings, objects, input_errors, files, strict=opts.strict
    )


def _no_warn(message: str) -> None:
    """Default ``warn``: drop the warning (commands pass ``CliEnv.warn``)."""


def check(
    docs: Sequence[Doc],
    opts: ValidateOptions,
    *,
    context_docs: Sequence[Doc] = (),
    input_errors: Sequence[InputError] = (),
    files: Iterable[str] = (),
    kinds: frozenset[str] | None = None,
    cross: bool = False,
    warn: Callable[[str], None] = _no_warn,
) -> ValidationReport:
    """Validation of documents in memory (the commands stream instead, through
    :class:`dractl.validate.stream.StreamCheck`, which gives this same report).

    ``docs`` are the inputs; ``kinds`` keeps only objects of those kinds (objects without a kind,
    or with a misspelled kind in the DRA group, are kept: they are reported, not skipped) and
    warns how many were left out; ``cross`` adds the cross-object lint of the inputs together
    with ``context_docs`` (a snapshot's objects, only read).  ``input_errors`` (inputs that
    could not be read) and ``files`` (every file read) feed the summary and the exit code.
    Rule descriptions (SARIF) come from the rule registry when rendered.  Pure apart from ``warn``."""
    selected = [d for d in docs if kinds is None or _selected(d.raw, kinds)]
    if len(selected) < len(docs):
        warn(f"ignored {len(docs) - len(selected)} object(s) of other kinds")
    report = validate_docs(selected, opts, input_errors=input_errors, files=files)
    findings: list[Finding] = list(report.findings)
    from dractl.validate.lint import admin_namespace_findings, lint, settle_offline_warnings

    # Admin access in a namespace that is among the inputs (or the context) has an exact answer.
    findings = settle_offline_warnings(findings, selected, context_docs)  # type: ignore[arg-type]
    if cross:
        findings += lint(selected, opts, context_docs=context_docs)  # type: ignore[arg-type]
    else:
        findings += admin_namespace_findings(
            selected,  # type: ignore[arg-type]
            opts,
            context_docs=context_docs,  # type: ignore[arg-type]
        )
    return ValidationReport.build(
        opts.kube_version, findings, report.objects, report.input_errors, files, strict=opts.strict
    )


def _selected(raw: dict[str, Any], kinds: frozenset[str]) -> bool:
    """An object of ``kinds``, or a DRA document whose kind is missing or misspelled: those are
    reported.  Anything else (another kind of the group such as ResourcePoolStatusRequest, a
    document with neither apiVersion nor kind) is outside the family and ignored."""
    kind, api_version = raw.get("kind"), raw.get("apiVersion")
    if kind in kinds:
        return True
    in_group = str(api_version or "").startswith(f"{versions.GROUP}/")
    return in_group and (not kind or kind not in versions.DRA_KINDS)


def check_doc(doc: Doc, opts: ValidateOptions) -> tuple[ObjectResult, list[Finding]]:
    """One document's result and its findings (positions and identity filled in)."""
    raw = doc.raw
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    checked = True
    if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
        found = _type_meta(raw, doc)
    else:
        found, checked = _by_kind(raw, api_version, kind, doc, opts)
    found = [_locate(f, doc, str(kind or ""), name, namespace) for f in found]
    errors = sum(f.severity is Severity.ERROR for f in found)
    result = ObjectResult(
        doc.origin.file,
        doc.origin.document,
        str(api_version or ""),
        str(kind or ""),
        name,
        namespace,
        getattr(doc.origin, "item", None),
        checked,
        errors,
        len(found) - errors,
    )
    return result, found


def _by_kind(
    raw: dict[str, Any], api_version: str, kind: str, doc: Doc, opts: ValidateOptions
) -> tuple[list[Finding], bool]:
    group, _, version = api_version.rpartition("/")
    if group == versions.GROUP:
        return _dra(raw, version, kind, doc, opts), True
    if api_version == "v1" and kind == "Pod":
        return _pod(raw, doc, opts), True
    if workloads.is_workload(api_version, kind):  # every pod template, checked as a Pod at its own path
        templates = workloads.pod_templates(raw)
        return _duplicates(doc, opts) + [
            workloads.relocate(f, path) for path, pod in templates for f in _pod_fields(pod, opts)
        ], True
    if kind in versions.DRA_KINDS or api_version == versions.GROUP:
        # A DRA kind in another group (or the group without a version) is a typo, not another kind.
        served = versions.enabled_versions(kind, opts.kube_version, opts.runtime)
        hint = f"; use {versions.GROUP}/{served[0]}" if served else ""
        return [
            Finding(
                Severity.ERROR,
                "API-UNKNOWN-KIND",
                f"no matches for kind {quoted(kind)} in version {quoted(api_version)}{hint}",
                "apiVersion",
            )
        ], True
    return [], False


def _dra(raw: dict[str, Any], version: str, kind: str, doc: Doc, opts: ValidateOptions) -> list[Finding]:
    verdict = versions.check(version, kind, opts.kube_version, opts.runtime)
    out: list[Finding] = []
    if verdict.availability is Availability.UNKNOWN_KIND:
        near = next((k for k in versions.DRA_KINDS if k.lower() == kind.lower() and k != kind), None)
        hint = f' (did you mean "{near}"? kinds are case-sensitive)' if near else ""
        return [Finding(Severity.ERROR, "API-UNKNOWN-KIND", verdict.message + hint, "kind")]
    if verdict.availability is Availability.NOT_SERVED:
        return [Finding(Severity.ERROR, "API-VERSION-NOT-SERVED", verdict.message, "apiVersion")]
    if verdict.availability is Availability.ALPHA:
        out.append(Finding(Severity.ERROR, "API-VERSION-ALPHA", verdict.message, "apiVersion"))
    elif verdict.availability is Availability.NOT_ENABLED:
        out.append(Finding(Severity.ERROR, "API-VERSION-NOT-ENABLED", verdict.message, "apiVersion"))
    elif verdict.availability is Availability.DEPRECATED:
        out.append(Finding(Severity.WARNING, "API-VERSION-DEPRECATED", verdict.message, "apiVersion"))
    if not schema.has_schema(opts.kube_version, kind, version):
        return out
    structural = schema.check_schema(raw, kind, version, opts) + _duplicates(doc, opts)
    out += structural
    decoded = not any(f.rule in _DECODE_RULES and f.severity is Severity.ERROR for f in structural)
    if opts.semantic and decoded:
        out += _semantic(raw, opts, structural)
    return out


def _semantic(raw: dict[str, Any], opts: ValidateOptions, structural: Sequence[Finding]) -> list[Finding]:
    """The API server's rules; a Required already reported by the schema is not repeated."""
    from dractl.validate.rules import check_object

    seen = {(f.path, f.error_type) for f in structural}
    return [f for f in check_object(raw, opts) if (f.path, f.error_type) not in seen]


def _pod(raw: dict[str, Any], doc: Doc, opts: ValidateOptions) -> list[Finding]:
    return _pod_fields(raw, opts) + _duplicates(doc, opts)


def _pod_fields(raw: dict[str, Any], opts: ValidateOptions) -> list[Finding]:
    from dractl.validate.rules.pod import check_pod

    out: list[Finding] = []
    structural = schema.check_schema(raw, "Pod", "v1", opts)
    decoded = not any(f.rule in _DECODE_RULES and f.severity is Severity.ERROR for f in structural)
    for f in structural + (check_pod(raw, opts) if opts.semantic and decoded else []):
        if (
            f.rule == "SCHEMA-UNKNOWN-FIELD"
            and f.path.startswith("spec.resourceClaims[")
            and f.path.endswith("].source")
        ):
            f = replace(
                f,
                severity=Severity.ERROR,
                rule="POD-CLAIM-SOURCE",
                message=(
                    f"{f.message}: resourceClaims[].source was removed in Kubernetes 1.31; set "
                    "resourceClaimName or resourceClaimTemplateName directly"
                ),
            )
        out.append(f)
    return out


def _duplicates(doc: Doc, opts: ValidateOptions) -> list[Finding]:
    severity = Severity.WARNING if opts.lenient else Severity.ERROR
    return [
        Finding(severity, "SCHEMA-DUPLICATE-FIELD", f'duplicate field "{path}"', path, line=line, column=col)
        for path, line, col in doc.duplicate_keys
    ]


def _type_meta(raw: dict[str, Any], doc: Doc) -> list[Finding]:
    out = []
    for key, rule in (("apiVersion", "SCHEMA-NO-APIVERSION"), ("kind", "SCHEMA-NO-KIND")):
        value = raw.get(key)
        if isinstance(value, str) and value:
            continue
        if key in raw:
            out.append(
                Finding(
                    Severity.ERROR,
                    "SCHEMA-TYPE",
                    f"Invalid value: {show_value(value)}: {key} must be a non-empty string",
                    key,
                    "TypeInvalid",
                )
            )
            continue
        near = next((k for k in raw if isinstance(k, str) and k.lower() == key.lower()), None)
        hint = f' (found "{near}": field names are case-sensitive)' if near else ""
        line, column = _position(doc, near) if near else (None, None)
        out.append(
            Finding(Severity.ERROR, rule, f"{key} not set{hint}", key, "Required", line=line, column=column)
        )
    return out


def _locate(f: Finding, doc: Doc, kind: str, name: str, namespace: str) -> Finding:
    line, column = (f.line, f.column) if f.line is not None else _position(doc, f.path)
    return replace(
        f,
        file=doc.origin.file,
        document=doc.origin.document,
        line=line,
        column=column,
        kind=f.kind or kind,
        name=f.name or name,
        namespace=f.namespace or namespace,
    )


def _position(doc: Doc, path: str) -> tuple[int | None, int | None]:
    """Line and column of ``path``, else of its nearest ancestor that exists, else of the object."""
    candidate = path
    while True:
        try:
            pos = doc.position(candidate)
        except (KeyError, IndexError, ValueError, TypeError):
            pos = None
        if pos is not None and pos[0] is not None:
            return pos[0], pos[1]
        if not candidate:
            return None, None
        candidate = _parent(candidate)


def _parent(path: str) -> str:
    """``spec.devices[0].name`` → ``spec.devices[0]`` → ``spec.devices`` → ``spec`` → ``""``."""
    cut = path.rfind("[") if path.endswith("]") else path.rfind(".")  # map keys may hold dots
    return path[:cut] if cut > 0 else ""
