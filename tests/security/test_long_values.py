"""A huge value (the issue's: 2.9 million characters) from a hostile world (issue 11): explain-allocation, capacity and
the inventory views carry it into their words (a funnel stage's detail, a blocking message, a
taint shown as ``key=value:Effect``, a health signal's detail) only as a bounded excerpt that
gives the full length, in every format, JSON and YAML included; what is data about an object
(a taint's own value, a device or pool name, an allocation result) stays exact."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.errors import MESSAGE_LIMIT

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"
BIG = "Z" * 200_000  # the 2.9 million characters take the same path, only slower to load
SUFFIX = f"… ({len(BIG):,} characters)"
CUT = re.compile(r"… \(([\d,]+) characters\)$")  # how an excerpt ends: the full length


def _cut_from_big(text: str) -> bool:
    """An excerpt of words that quoted BIG: at most MESSAGE_LIMIT characters and the suffix,
    which gives the length of the whole (more than BIG)."""
    m = CUT.search(text)
    return m is not None and m.start() <= MESSAGE_LIMIT and int(m.group(1).replace(",", "")) >= len(BIG)


def _world(tmp_path: Path, *, pool: bool = False) -> Path:
    docs: list[dict[str, Any]] = []
    for path in sorted(DEMO.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    for d in docs:
        if d["kind"] == "DeviceTaintRule":
            d["spec"]["taint"]["value"] = BIG
        if d["kind"] == "ResourceSlice":
            for dev in d["spec"].get("devices", []):
                for t in dev.get("taints") or []:
                    t["value"] = BIG
            if pool and d["spec"]["nodeName"] == "gpu-node-2":
                d["spec"]["pool"]["name"] = "p" + BIG
    where = tmp_path / "world"
    where.mkdir()
    (where / "world.yaml").write_text(yaml.dump_all(docs, Dumper=yaml.CSafeDumper))
    return where


def _strings(value: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, f"{path}/{k}")]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, f"{path}[]")]
    return [(path, value)] if isinstance(value, str) else []


VIEWS = [
    ["explain-allocation", "--claim", "two-h100"],
    ["capacity", "--claim", "single-gpu"],
    ["availability"],
    ["health"],
    ["taints"],
    ["claims", "-A"],
]
# Where the long value is data, not words: it stays whole.
DATA = ("/items[]/value",)
IDENTITY = ("/pool", "/device", "/id", "/chosen[]", "/examples[]", "/devices[]", "/results[]/pool")


@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v[0])
def test_words_quote_a_bounded_excerpt_data_stays_exact(
    run_cli: Any, tmp_path: Path, view: list[str], fmt: str
) -> None:
    result = run_cli([*view, "-f", str(_world(tmp_path)), "-o", fmt])
    assert result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout) if fmt == "json" else yaml.safe_load(result.stdout)
    long = [(p, s) for p, s in _strings(doc) if len(s) > MESSAGE_LIMIT + len(SUFFIX)]
    assert all(p.endswith(DATA) and BIG in s for p, s in long), [(p, len(s)) for p, s in long]
    cut = [p for p, s in _strings(doc) if _cut_from_big(s)]
    if view[0] in ("explain-allocation", "availability", "health", "taints"):
        assert cut, "the long taint value is quoted somewhere"  # and bounded, with its length
    if view[0] == "taints":
        assert any(p.endswith(DATA) for p, _ in long)  # the taint's own value, exact


@pytest.mark.parametrize("view", VIEWS[:3], ids=lambda v: v[0])
def test_a_long_name_is_identity_and_stays_exact(run_cli: Any, tmp_path: Path, view: list[str]) -> None:
    result = run_cli([*view, "-f", str(_world(tmp_path, pool=True)), "-o", "json"])
    assert result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    long = [(p, s) for p, s in _strings(doc) if len(s) > MESSAGE_LIMIT + len(SUFFIX)]
    assert long and all(p.endswith(DATA + IDENTITY) for p, _ in long), [(p, len(s)) for p, s in long]
    assert all("p" + BIG in s for _, s in long if not s.endswith(BIG[:10]))  # whole, never cut


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_a_lone_surrogate_in_a_selector_is_no_internal_error(
    run_cli: Any, tmp_path: Path, command: str
) -> None:
    """Found by the fuzz campaign: a JSON ``\\ud800`` escape in a CEL selector made its length
    check (UTF-8 bytes) raise: exit 70 for every file of the run."""
    f = tmp_path / "c.json"
    f.write_text(
        '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"}, '
        '"spec": {"selectors": [{"cel": {"expression": "device.driver == \\"\\ud800\\""}}]}}'
    )
    result = run_cli([command, str(f), "-o", "json"])
    assert result.exit_code in (0, 1, 2), result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("kind", ["[Namespace]", "{a: 1}"])
def test_a_kind_that_is_not_a_string_is_no_internal_error(run_cli: Any, tmp_path: Path, kind: str) -> None:
    """Found by the fuzz campaign: validate asked whether a list-valued kind was one of the kinds
    its admin-access answer keeps (a set): TypeError, exit 70 for the whole run."""
    f = tmp_path / "k.yaml"
    f.write_text(f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: x}}\n")
    result = run_cli(["validate", str(f), "-o", "json"])
    assert result.exit_code in (1, 2), result.stderr
    assert "internal error" not in result.stderr
