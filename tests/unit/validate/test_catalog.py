"""``--explain`` catalog: every rule dractl reports and every rule of API-RULES.md is explained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from dractl.validate import catalog
from dractl.validate.catalog import all_rules, describe, explain, lookup, suggest

ROOT = Path(__file__).resolve().parents[3]
API_RULES = ROOT / ".." / "shared" / "docs" / "API-RULES.md"
RULE_ROW = re.compile(r"^\| ((?:[A-Z][A-Z0-9]*-)+[A-Z0-9]+)(?: \([^)]*\))? \|", re.M)
EMITTED = re.compile(
    r'"((?:RS|RC|RCS|RCT|DC|DTR|FMT|META|CORE|UPD|WARN|ADV|LINT|SCHEMA|API|POD|DRACTL)-[A-Z0-9-]+)"'
)
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


def test_registry_is_package_data_and_complete() -> None:
    """The texts live in ``catalog.yaml`` beside the module (shipped in the wheel), not in code."""
    data = yaml.safe_load((Path(catalog.__file__).parent / "catalog.yaml").read_text(encoding="utf-8"))
    assert set(data["rules"]) == set(all_rules())
    assert len(all_rules()) >= 240
    assert all(isinstance(v, dict) and v.get("what") for v in data["rules"].values())
    python = "\n".join(p.read_text() for p in (ROOT / "dractl").rglob("*.py"))
    why = data["rules"]["RS-DEVICES-XOR-COUNTERS"]["why"]
    assert why not in python  # no copy of the prose in code


def test_engine_rules_have_their_one_line_meaning() -> None:
    assert explain(" schema-unknown-field") == (
        "SCHEMA-UNKNOWN-FIELD\n  What: A field the API version does not have (kubectl --validate=strict "
        "rejects it; with --lenient it is a warning, like the server's fieldValidation=Warn).\n"
    )
    assert describe("POD-CLAIM-REF").startswith("A container's resources.claims[] must name")
    assert describe("NOPE") == "" and lookup("NOPE") is None


def test_one_meaning_per_rule() -> None:
    """SARIF's description of a rule is the registry's ``what`` (the suppression note had a second one)."""
    rule = lookup("DRACTL-IGNORE-INVALID")
    assert rule is not None and rule.why and rule.fix
    assert describe("DRACTL-IGNORE-INVALID") == rule.what


def test_broken_registry_is_a_plain_error() -> None:
    from dractl.errors import DractlError

    for data in (None, {"rules": []}, {"rules": {"X-Y": {"why": "no what"}}}):
        with pytest.raises(DractlError, match="broken installation"):
            catalog._rules(data)
