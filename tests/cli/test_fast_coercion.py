"""The fast parameter coercion (dractl.cli.coercion) gives exactly Typer's answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from dractl.cli.coercion import install
from dractl.cli.root import build_app

SAMPLES: list[Any] = [
    None,
    "x",
    "JSON",
    "json",
    "Table",
    "1.35",
    "1.2",
    "bogus",
    "5",
    "0",
    7,
    0,
    1000,
    2.0,
    0.1,
    0.2,
    1e300,
    float("nan"),
    True,
    False,
    ("a", "b"),
    ["c"],
    (),
    b"raw",
]


def _params() -> list[tuple[Any, Any]]:
    """(command, param) for every Typer parameter of the whole tree."""
    root = typer.main.get_command(build_app())
    install(root)
    out: list[tuple[Any, Any]] = []
    stack = [root]
    while stack:
        cmd = stack.pop()
        out.extend((cmd, p) for p in cmd.params if hasattr(p, "type_descriptor"))
        stack.extend(getattr(cmd, "commands", {}).values())
    return out


def _answer(runtime: Any, cmd: Any, param: Any, value: Any) -> tuple[str, Any]:
    ctx = Context(cmd)
    try:
        return "ok", runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as e:
        return "error", e.format_message()
    except Exception as e:  # compare any other failure by type and text
        return type(e).__name__, str(e)


def test_every_parameter_coerces_like_typer() -> None:
    params = _params()
    assert len(params) > 50
    for cmd, param in params:
        fast = param.get_runtime_param()
        assert type(fast).__name__ == "FastRuntimeParam", param.name
        slow = build_runtime_param(param.type_descriptor)
        for value in SAMPLES:
            got, want = _answer(fast, cmd, param, value), _answer(slow, cmd, param, value)
            assert got == want, (cmd.name, param.name, value)
            if got[0] == "ok":
                assert type(got[1]) is type(want[1]), (cmd.name, param.name, value)


PROBE = """
import sys
from dractl.cli.app import main
main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write('\\nPYDANTIC=' + str('pydantic' in sys.modules) + '\\n')
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["validate", "--help"],
        ["validate", "c.yaml", "-o", "JSON", "--kube-version", "1.36"],
        ["availability", "-f", "c.yaml"],  # the views' float default (--watch-interval)
    ],
)
def test_common_commands_do_not_import_pydantic(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "c.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=60,
    )
    assert proc.stderr.rsplit("PYDANTIC=", 1)[-1].strip() == "False", proc.stderr
    if args[0] == "validate" and "c.yaml" in args:
        assert json.loads(proc.stdout)["kind"] == "ValidationReport"
    if args[0] == "availability":
        assert proc.returncode == 0 and "No devices found." in proc.stdout


def test_a_bad_choice_still_gets_typers_check() -> None:
    """Typer's own check still decides (the fast path defers to it); the boundary words it as kubectl
    does (dractl.cli.usage_messages)."""
    proc = subprocess.run(
        [sys.executable, "-m", "dractl.cli.app", "discover", "--mig-mode", "bogus"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        'dractl: error: invalid argument "bogus" for "--mig-mode" flag: expected one of \'static\''
    )


def test_the_fast_path_runs_only_on_a_tested_typer(monkeypatch) -> None:
    """On any other Typer version install() leaves Typer's own coercion in place."""
    import typer
    import typer.main

    from dractl.cli import coercion
    from dractl.cli.root import build_app

    def runtime_params(version: str) -> set[str]:
        monkeypatch.setattr(typer, "__version__", version)
        command = typer.main.get_command(build_app())
        coercion.install(command)
        validate = command.commands["validate"]  # type: ignore[attr-defined]
        return {type(getattr(p, "_runtime_param", None)).__name__ for p in validate.params}

    assert "FastRuntimeParam" in runtime_params(sorted(coercion.TESTED_TYPER)[0])
    assert "FastRuntimeParam" not in runtime_params("0.99.0")
