"""Golden CLI cases: every folder ``tests/golden/<command>/<case>/`` holds

* ``args`` — one line, split like a shell (``shlex``), run as ``dractl ARGS`` with the case
  folder as the working directory (so paths in args and output are relative);
* optional ``stdin`` — fed to the command's standard input;
* the input files;
* ``stdout.<fmt>`` (``fmt`` from ``-o``/``--output`` in args, ``txt`` without one),
  ``stderr.txt`` and ``exit_code`` — the expected results.

``pytest --update-golden`` rewrites the expected files from the current output.  Every
``stdout.json`` of a ``validate`` case is also checked against dractl's output schema.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
OUTPUT_SCHEMAS = Path(__file__).resolve().parents[1] / "schemas" / "output"
_SCHEMA_FOR_COMMAND = {
    "validate": "validation-report.schema.json",
    "capacity": "capacity-report.schema.json",
    **{view: f"{view}-report.schema.json" for view in ("availability", "claims", "health", "taints")},
}


def _cases() -> list[Path]:
    return sorted(p.parent for p in GOLDEN.glob("*/*/args"))


def _fmt(args: list[str]) -> str:
    for i, arg in enumerate(args):
        if arg in ("-o", "--output") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--output="):
            return arg.split("=", 1)[1]
        if arg.startswith("-o") and len(arg) > 2:
            return arg[2:]
    return "txt"


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden(case: Path, run_cli, request: pytest.FixtureRequest) -> None:
    args = shlex.split((case / "args").read_text().strip())
    stdin = case / "stdin"
    result = run_cli(args, input=stdin.read_bytes() if stdin.exists() else None, cwd=case)
    stdout_file = case / f"stdout.{_fmt(args)}"
    actual = {
        stdout_file: result.stdout,
        case / "stderr.txt": result.stderr,
        case / "exit_code": f"{result.exit_code}\n",
    }
    if request.config.getoption("--update-golden"):
        for path, text in actual.items():
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
    for path, text in actual.items():
        assert path.exists(), f"{path} missing: run pytest --update-golden"
        assert text == path.read_text(), f"{path.relative_to(GOLDEN)} differs"
    schema_name = _SCHEMA_FOR_COMMAND.get(case.parent.name)
    if stdout_file.suffix == ".json" and schema_name and result.stdout.strip():
        from jsonschema import Draft202012Validator

        schema = json.loads((OUTPUT_SCHEMAS / schema_name).read_text())
        Draft202012Validator(schema).validate(json.loads(result.stdout))


def test_golden_cases_exist() -> None:
    assert _cases(), "no golden cases found"
