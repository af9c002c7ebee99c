"""``--explain`` catalog: every rule dractl reports and every rule of API-RULES.md is explained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dractl.validate.catalog import all_rules, explain, suggest

ROOT = Path(__file__).resolve().parents[3]
API_RULES = ROOT / ".." / "shared" / "docs" / "API-RULES.md"
RULE_ROW = re.compile(r"^\| ((?:[A-Z][A-Z0-9]*-)+[A-Z0-9]+)(?: \([^)]*\))? \|", re.M)
EMITTED = re.compile(r'"((?:RS|RC|RCS|RCT|DC|DTR|FMT|META|CORE|UPD|WARN|ADV|LINT)-[A-Z0-9-]+)"')
PREFIXES = {"RC-CFG", "RC-SEL", "RC-TOL", "RS-BINDING", "RS-TAINT"}  # composed with a suffix in code


def test_explain_has_what_why_fix() -> None:
    text = explain("rs-devices-xor-counters")
    assert text is not None
    assert text.startswith("RS-DEVICES-XOR-COUNTERS (API-RULES.md §3)\n")
    assert "What: A slice has either sharedCounters or devices" in text
    assert "Why:" in text and "Fix:" in text


def test_unknown_rule() -> None:
    assert explain("NO-SUCH-RULE") is None
    assert "RS-DRIVER" in suggest("RS-DRIVR")


def test_every_emitted_rule_is_explained() -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "dractl" / "validate").rglob("*.py"))
    emitted = set(EMITTED.findall(source)) - PREFIXES
    missing = sorted(r for r in emitted if explain(r) is None)
    assert not missing


@pytest.mark.skipif(not API_RULES.exists(), reason="../shared not present")
def test_every_documented_rule_is_explained() -> None:
    ids = set(RULE_ROW.findall(API_RULES.read_text()))
    assert len(ids) >= 200
    missing = sorted(r for r in ids if not r.startswith("SCH-") and explain(r) is None)
    assert not missing
    assert set(all_rules()) >= {r for r in ids if not r.startswith("SCH-")}
