"""The rule catalog behind ``--explain RULE``: what a rule means, why it exists, how to fix it.

Covers the API server's rules (API-RULES.md ids), dractl's gate and status
warnings, the cross-object lint, and the schema/engine rules registered by the
validation engine (those come with one line of meaning).
"""

from __future__ import annotations

from dractl.validate.rules.catalog_text import SECTION, TEXTS


def _engine_rules() -> dict[str, str]:
    try:
        from dractl.validate.engine import RULES
    except ImportError:
        return {}
    return dict(RULES)


def all_rules() -> list[str]:
    """Every rule id dractl can report, sorted."""
    return sorted(set(TEXTS) | set(_engine_rules()))


def explain(rule_id: str) -> str | None:
    """A few lines explaining ``rule_id`` (case-insensitive), or None for an unknown id."""
    rule = rule_id.strip().upper()
    if rule in TEXTS:
        meaning, why, fix = TEXTS[rule]
        section = SECTION.get(rule.split("-", 1)[0], "")
        where = (
            f" (API-RULES.md {section})" if section.startswith("§") else f" ({section})" if section else ""
        )
        return f"{rule}{where}\n  What: {meaning}\n  Why:  {why}\n  Fix:  {fix}\n"
    engine = _engine_rules()
    if rule in engine:
        return f"{rule}\n  What: {engine[rule]}\n"
    return None


def describe(rule_id: str) -> str:
    """The one-line meaning of ``rule_id`` (for SARIF and reports); "" for an unknown id."""
    rule = rule_id.strip().upper()
    if rule in TEXTS:
        return TEXTS[rule][0]
    return _engine_rules().get(rule, "")


def suggest(rule_id: str) -> list[str]:
    """Known ids that start like ``rule_id`` (for "did you mean")."""
    head = rule_id.strip().upper()
    return [r for r in all_rules() if r.startswith(head[: max(3, len(head) - 2)])][:5]
