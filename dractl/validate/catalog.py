"""The rule registry: every rule id dractl reports, what it means, why it exists, how to fix it.

One place for every rule: the API server's rules (API-RULES.md ids), dractl's gate and status
warnings, the cross-object lint, the suppression notes, and the schema, API-version and Pod
rules of the validation engine.  The texts are package data (``catalog.yaml`` beside this
module, shipped in the wheel), read once, the first time a text or the list of ids is needed:
``--explain RULE``, SARIF's rule descriptions, ``--skip``/``--only`` and ``dractl.io/ignore``
checks.  A run that needs none of them never reads the file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

from dractl.errors import DractlError

_DATA = "catalog.yaml"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: ``what`` (one line: SARIF's shortDescription), and for the documented rules
    ``why`` and ``fix``; ``section`` is where the rule is documented (``§3``, ``dractl lint``,
    or "")."""

    id: str
    what: str
    why: str = ""
    fix: str = ""
    section: str = ""

    def explain(self) -> str:
        """The text of ``--explain``: id (with its section), What, and Why/Fix when documented."""
        if not (self.why or self.fix):
            return f"{self.id}\n  What: {self.what}\n"
        where = (
            f" (API-RULES.md {self.section})"
            if self.section.startswith("§")
            else f" ({self.section})"
            if self.section
            else ""
        )
        return f"{self.id}{where}\n  What: {self.what}\n  Why:  {self.why}\n  Fix:  {self.fix}\n"


@cache
def registry() -> Mapping[str, Rule]:
    """Every rule by id, from the package data (read once; immutable)."""
    import yaml

    text = (resources.files(__package__) / _DATA).read_text(encoding="utf-8")
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # every value is text: no type guessing
    data = yaml.load(text, Loader=loader)
    return MappingProxyType(_rules(data))


def _rules(data: object) -> dict[str, Rule]:
    """The rules of the parsed registry; a malformed registry is a packaging bug, said plainly."""
    if not isinstance(data, dict) or not isinstance(data.get("rules"), dict):
        raise DractlError(f"dractl.validate/{_DATA}: no 'rules' mapping (a broken installation)")
    sections = data.get("sections") or {}
    out: dict[str, Rule] = {}
    for rule_id, entry in data["rules"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("what"), str) or not entry["what"]:
            raise DractlError(
                f"dractl.validate/{_DATA}: rule {rule_id}: 'what' missing (a broken installation)"
            )
        section = sections.get(rule_id.split("-", 1)[0], "") if isinstance(sections, dict) else ""
        out[rule_id] = Rule(rule_id, entry["what"], entry.get("why", ""), entry.get("fix", ""), section)
    return out


def lookup(rule_id: str) -> Rule | None:
    """The rule ``rule_id`` (case-insensitive, surrounding blanks ignored), or None."""
    return registry().get(rule_id.strip().upper())


def all_rules() -> list[str]:
    """Every rule id dractl can report, sorted."""
    return sorted(registry())


def rule_ids() -> Iterator[str]:
    """Every rule id, read from the registry only when first iterated (for callers that may not
    need the list at all, such as the suppression of a run without suppressions)."""
    yield from all_rules()


def explain(rule_id: str) -> str | None:
    """A few lines explaining ``rule_id`` (case-insensitive), or None for an unknown id."""
    rule = lookup(rule_id)
    return rule.explain() if rule is not None else None


def describe(rule_id: str) -> str:
    """The one-line meaning of ``rule_id`` (for SARIF and reports); "" for an unknown id."""
    rule = lookup(rule_id)
    return rule.what if rule is not None else ""


def suggest(rule_id: str) -> list[str]:
    """Known ids that start like ``rule_id`` (for "did you mean")."""
    head = rule_id.strip().upper()
    return [r for r in all_rules() if r.startswith(head[: max(3, len(head) - 2)])][:5]
