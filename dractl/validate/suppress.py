"""Silencing rules, as kube-linter and kubeconform users expect: ``--skip`` / ``--only``, the
``.dractl.yaml`` rule lists and per-path excludes, and the per-object annotation
``dractl.io/ignore: RULE[,RULE]: reason``.

A suppressed finding is never dropped: :func:`split` returns it with the reason it was
suppressed, the report counts it, and SARIF lists it with ``suppressions[]`` (kind ``external``
for flags and config, ``inSource`` for the annotation).  Rule patterns are case-insensitive and
may use shell wildcards (``ADV-*``).  Pure: never reads files, never prints.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dractl.validate.findings import Finding, Severity, Suppression

ANNOTATION = "dractl.io/ignore"


@dataclass(frozen=True, slots=True)
class Exclude:
    """Findings in files matching ``path`` (a glob, relative to ``base``) for ``rules`` (all if empty)."""

    path: str
    rules: tuple[str, ...] = ()
    base: str = ""
    source: str = ".dractl.yaml"


@dataclass(frozen=True, slots=True)
class Policy:
    """What is silenced.  ``skip``: rule patterns never reported (flags and config); ``only``:
    when set, every rule matching none of these patterns is silenced; ``enable``: patterns taken
    back out of ``skip`` (config ``rules.enable``); ``excludes``: per-path silences;
    ``annotations``: honour ``dractl.io/ignore`` (default)."""

    skip: tuple[tuple[str, str], ...] = ()  # (pattern, where it came from)
    only: tuple[tuple[str, str], ...] = ()
    enable: tuple[str, ...] = ()
    excludes: tuple[Exclude, ...] = ()
    annotations: bool = True

    @property
    def empty(self) -> bool:
        return not (self.skip or self.only or self.excludes)

    def with_flags(self, skip: Iterable[str] = (), only: Iterable[str] = ()) -> Policy:
        """Add ``--skip`` patterns; ``--only`` replaces the config's ``only``."""
        flags_only = tuple((p, "--only") for p in split_rules(only))
        return replace(
            self,
            skip=self.skip + tuple((p, "--skip") for p in split_rules(skip)),
            only=flags_only or self.only,
        )

    def decide(self, rule: str, file: str) -> Suppression | None:
        """The suppression of ``rule`` found in ``file`` by flags/config (not annotations)."""
        for pattern, source in self.skip:
            if _match(rule, pattern) and not any(_match(rule, p) for p in self.enable):
                return Suppression("external", source, f"rule {rule} is skipped ({source} {pattern})")
        if self.only and not any(_match(rule, p) for p, _ in self.only):
            source = self.only[0][1]
            return Suppression(
                "external", source, f"only {', '.join(p for p, _ in self.only)} reported ({source})"
            )
        for ex in self.excludes:
            if (not ex.rules or any(_match(rule, p) for p in ex.rules)) and _path_match(file, ex):
                return Suppression("external", ex.source, f"{file} is excluded ({ex.source}: {ex.path})")
        return None


def split_rules(values: Iterable[str]) -> list[str]:
    """``["A,B", "C"]`` → ``["A", "B", "C"]`` (upper-cased, blanks dropped)."""
    return [p.strip().upper() for v in values for p in str(v).split(",") if p.strip()]


def unknown_patterns(patterns: Iterable[str], known: Iterable[str]) -> list[str]:
    """Patterns that match no known rule id (the caller makes them a usage error)."""
    ids = [k.upper() for k in known]
    return [p for p in patterns if not any(_match(k, p) for k in ids)]


def _match(rule: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(rule.upper(), pattern.upper())


def _path_match(file: str, ex: Exclude) -> bool:
    """``file`` (as given on the command line) relative to the config's folder matches the glob
    (``*`` also crosses ``/``), or lies under the folder the pattern names."""
    if not file or file == "-":
        return False
    rel = file
    if ex.base:
        try:
            rel = os.path.relpath(os.path.abspath(file), os.path.abspath(ex.base))
        except ValueError:  # another drive (Windows)
            rel = file
    rel = rel.replace(os.sep, "/")
    pattern = ex.path.replace(os.sep, "/").removeprefix("./")
    folder = pattern.rstrip("/").removesuffix("/**").rstrip("/")
    return fnmatch.fnmatchcase(rel, pattern) or (bool(folder) and rel.startswith(folder + "/"))


@dataclass(frozen=True, slots=True)
class Ignore:
    """A parsed ``dractl.io/ignore`` annotation of one object."""

    rules: tuple[str, ...]
    reason: str
    problem: str = ""  # why it suppresses nothing ("" when it is valid)


def parse_annotation(value: Any, known: Iterable[str] = ()) -> Ignore:
    """``"RULE[,RULE]: reason"``.  Without a reason (or with no rule, or a rule id that is not
    known) the annotation suppresses nothing and says why in ``problem``."""
    if not isinstance(value, str) or not value.strip():
        return Ignore((), "", f"{ANNOTATION} must be 'RULE[,RULE]: reason'")
    head, sep, reason = value.partition(":")
    rules = tuple(split_rules([head]))
    reason = reason.strip()
    if not rules:
        return Ignore((), reason, f"{ANNOTATION} names no rule; write 'RULE[,RULE]: reason'")
    if not sep or not reason:
        return Ignore(
            rules,
            "",
            f"{ANNOTATION}: {','.join(rules)} needs a reason: write '{','.join(rules)}: why this is fine'",
        )
    ids = list(known)
    if ids:
        bad = unknown_patterns(rules, ids)
        if bad:
            return Ignore(rules, reason, f"{ANNOTATION}: unknown rule {', '.join(bad)}")
    return Ignore(rules, reason)


@dataclass(frozen=True, slots=True)
class Split:
    """Findings still reported, and the suppressed ones with their reasons (same order)."""

    kept: tuple[Finding, ...] = ()
    suppressed: tuple[tuple[Finding, Suppression], ...] = ()
    notes: tuple[Finding, ...] = field(default=())  # DRACTL-IGNORE-INVALID warnings (also in kept)


def split(
    findings: Sequence[Finding],
    policy: Policy,
    annotations: Callable[[Finding], Any] | None = None,
    known_rules: Iterable[str] = (),
) -> Split:
    """Apply ``policy`` and the objects' ignore annotations to ``findings``.

    ``annotations(finding)`` returns the ``dractl.io/ignore`` value of the object the finding is
    about (None when it has none).  An invalid annotation adds one DRACTL-IGNORE-INVALID warning per
    object and suppresses nothing."""
    known = list(known_rules)
    kept: list[Finding] = []
    suppressed: list[tuple[Finding, Suppression]] = []
    notes: dict[tuple[str, int, str, str], Finding] = {}
    for f in findings:
        decision = policy.decide(f.rule, f.file)
        if decision is None and policy.annotations and annotations is not None:
            value = annotations(f)
            if value is not None:
                ignore = parse_annotation(value, known)
                if ignore.problem:
                    key = (f.file, f.document, f.kind, f.name)
                    notes.setdefault(
                        key,
                        replace(
                            f,
                            severity=Severity.WARNING,
                            rule="DRACTL-IGNORE-INVALID",
                            message=ignore.problem,
                            path=f"metadata.annotations[{ANNOTATION}]",
                            error_type=None,
                            line=None,
                            column=None,
                        ),
                    )
                elif any(_match(f.rule, p) for p in ignore.rules):
                    decision = Suppression("inSource", ANNOTATION, ignore.reason)
        if decision is None:
            kept.append(f)
        else:
            suppressed.append((f, decision))
    extra = tuple(notes.values())
    return Split(tuple(kept) + extra, tuple(suppressed), extra)


def annotation_lookup(docs: Iterable[Any]) -> Callable[[Finding], Any]:
    """``annotations`` for :func:`split`: the ignore annotation of the document a finding is in
    (by file and document index; ``docs`` are loaded documents with ``raw`` and ``origin``)."""
    table: dict[tuple[str, int, str, str, str], Any] = {}
    for doc in docs:
        raw = getattr(doc, "raw", None)
        meta = raw.get("metadata") if isinstance(raw, Mapping) else None
        notes = meta.get("annotations") if isinstance(meta, Mapping) else None
        if isinstance(meta, Mapping) and isinstance(notes, Mapping) and ANNOTATION in notes:
            origin = doc.origin
            key = (
                str(origin.file),
                int(origin.document),
                str(raw.get("kind") or ""),  # type: ignore[union-attr]
                str(meta.get("name") or ""),
                str(meta.get("namespace") or ""),
            )
            table[key] = notes[ANNOTATION]

    def lookup(f: Finding) -> Any:
        return table.get((f.file, f.document, f.kind, f.name, f.namespace))

    return lookup


def apply(report: Any, docs: Iterable[Any], policy: Policy, known_rules: Iterable[str] = ()) -> Any:
    """The :class:`~dractl.validate.report.ValidationReport` with ``policy`` and the inputs'
    ``dractl.io/ignore`` annotations applied: suppressed findings move to ``report.suppressed`` (the
    summary counts them, the exit code ignores them); the report is returned unchanged when nothing
    applies.  ``known_rules`` lets an annotation naming an unknown rule be reported."""
    from dractl.validate.report import ValidationReport

    docs = list(docs)
    lookup = annotation_lookup(docs)
    if policy.empty and not any(lookup(f) is not None for f in report.findings):
        return report
    out = split(report.findings, policy, lookup, known_rules)
    silenced = (*report.suppressed, *out.suppressed)
    built = ValidationReport.build(
        report.summary.kube_version,
        out.kept,
        report.objects,
        report.input_errors,
        (o.file for o in report.objects),
        report.rules,
        silenced,
    )
    return _carry(report, built)


def _carry(old: Any, new: Any) -> Any:
    """Keep what ``build`` cannot know (the file count, ``strict``) from the original report."""
    from dataclasses import fields as dc_fields

    summary = replace(new.summary, files=old.summary.files)
    extra = {
        f.name: getattr(old, f.name)
        for f in dc_fields(old)
        if f.name not in ("findings", "input_errors", "objects", "summary", "rules", "suppressed")
    }
    return replace(new, summary=summary, **extra)
