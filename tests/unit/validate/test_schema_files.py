"""The generated schemas: well-formed, self-contained, small, in step with versions.py and
with their generator."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from dractl.model.features import SUPPORTED_KUBE_VERSIONS
from dractl.validate import versions
from dractl.validate.schema import schema_root

ROOT = schema_root()
REPO = Path(__file__).resolve().parents[3]
FILES = sorted(ROOT.glob("v1.*/*.json"))


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        return ([node["$ref"]] if "$ref" in node else []) + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_every_supported_release_has_schemas() -> None:
    assert {p.parent.name for p in FILES} == {f"v{v}" for v in SUPPORTED_KUBE_VERSIONS}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_schema_is_valid_and_self_contained(path: Path) -> None:
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for ref in _refs(schema):
        assert ref.startswith("#/$defs/"), ref
        assert ref.removeprefix("#/$defs/") in schema["$defs"], ref


@pytest.mark.parametrize("kube_version", SUPPORTED_KUBE_VERSIONS)
def test_schemas_match_the_versions_each_release_serves(kube_version: str) -> None:
    on_disk = {p.stem for p in (ROOT / f"v{kube_version}").glob("*.json")} - {"pod-v1"}
    served = {
        f"{kind.lower()}-{v}"
        for kind in versions.DRA_KINDS
        for v in versions.served_versions(kind, kube_version)
    }
    assert on_disk == served


def test_total_size_is_small() -> None:
    assert sum(p.stat().st_size for p in FILES) < 5 * 1024 * 1024


def test_fixes_are_applied() -> None:
    schema = json.loads((ROOT / "v1.37" / "resourceslice-v1.json").read_text())
    defs = schema["$defs"]
    assert defs["io.k8s.apimachinery.pkg.api.resource.Quantity"]["format"] == "quantity"
    pool = defs["io.k8s.api.resource.v1.ResourcePool"]
    assert "generation" not in pool["required"] and pool["x-dractl-soft-required"] == ["generation"]
    claim = json.loads((ROOT / "v1.37" / "resourceclaim-v1.json").read_text())
    assert claim["$defs"]["io.k8s.apimachinery.pkg.runtime.RawExtension"].get("additionalProperties") is None


@pytest.mark.skipif(
    importlib.util.find_spec("kubernetes_validate") is None,
    reason="kubernetes-validate (the schema source) is not installed",
)
def test_generated_files_are_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_schemas.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
