"""Every report command's ``-o json`` validates against its published schema.

The test walks the command tree: a command whose ``-o`` offers ``json`` must have an example
invocation in ``INVOCATIONS`` (a new command fails here until it has one), and its JSON must
validate against ``schemas/output/<kind in kebab-case>.schema.json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.main
from jsonschema import Draft202012Validator

from dractl.cli.root import build_app

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas" / "output"
DEMO = "examples/demo/"
GPU = 'device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA H")'

# Commands whose JSON is Kubernetes objects (what kubectl apply reads), not a dractl report.
NOT_REPORTS = {
    "discover",
    "generate claim",
    "generate class",
    "generate slice",
    "generate taint-rule",
    "generate template",
    "snapshot",
}

# One invocation per report command (run from the repository root), writing JSON.
INVOCATIONS: dict[str, list[str]] = {
    "validate": ["validate", DEMO],
    "lint": ["lint", DEMO],
    "claim validate": ["claim", "validate", f"{DEMO}claims-pending.yaml"],
    "slice validate": ["slice", "validate", f"{DEMO}slices-gpu-node-1.yaml"],
    "class validate": ["class", "validate", f"{DEMO}deviceclasses.yaml"],
    "explain-allocation": ["explain-allocation", "--claim", "two-h100", "-f", DEMO],
    "capacity": ["capacity", "--claim", "single-gpu", "-f", DEMO],
    "availability": ["availability", "-f", DEMO],
    "claims": ["claims", "-A", "-f", DEMO],
    "health": ["health", "-f", DEMO],
    "taints": ["taints", "-f", DEMO],
    "selector check": ["selector", "check", GPU, "device.driver"],
    "selector eval": ["selector", "eval", GPU, 'device.attributes["gpu.nvidia.com"].uuid.x', "-f", DEMO],
}


def _json_commands() -> list[str]:
    found: list[str] = []

    def walk(cmd: object, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            for name, sub in sorted(subs.items()):
                walk(sub, (*path, name))
            return
        for param in getattr(cmd, "params", ()):
            if "--output" in param.opts and re.search(r"\bjson\b", param.help or ""):
                found.append(" ".join(path))

    walk(typer.main.get_command(build_app()), ())
    return found


JSON_COMMANDS = _json_commands()


def _schema_file(kind: str) -> Path:
    return SCHEMAS / (re.sub(r"(?<!^)(?=[A-Z])", "-", kind).lower() + ".schema.json")


def test_every_json_command_has_an_invocation() -> None:
    assert "validate" in JSON_COMMANDS and "selector eval" in JSON_COMMANDS
    missing = sorted(set(JSON_COMMANDS) - set(INVOCATIONS) - NOT_REPORTS)
    assert not missing, f"add an example invocation to INVOCATIONS for: {missing}"


@pytest.mark.parametrize("command", sorted(set(JSON_COMMANDS) & set(INVOCATIONS)))
def test_json_output_validates_against_its_schema(command: str, run_cli) -> None:
    result = run_cli([*INVOCATIONS[command], "-o", "json"], cwd=REPO)
    assert result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert doc["apiVersion"] == "dractl/v1alpha1"
    schema_file = _schema_file(doc["kind"])
    assert schema_file.is_file(), f"{command}: no published schema {schema_file.name} for kind {doc['kind']}"
    Draft202012Validator(json.loads(schema_file.read_text())).validate(doc)
    assert any(doc.get(k) for k in ("items", "objects", "nodes")), f"{command}: the invocation shows nothing"


@pytest.mark.parametrize("schema_file", sorted(SCHEMAS.glob("*.schema.json")), ids=lambda p: p.name)
def test_published_schemas_are_valid_schemas(schema_file: Path) -> None:
    Draft202012Validator.check_schema(json.loads(schema_file.read_text()))
