"""The boundary under hostile input: non-UTF-8 arguments, terminals that can't encode the output,
control characters in echoed expressions and error lines (issue 11)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def dractl(
    *args: str | bytes, env: dict[str, str] | None = None, cwd: Path | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    full = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dractl.cli.app", *args],
        capture_output=True,
        env=full,
        cwd=cwd,
        input=stdin,
        timeout=60,
        check=False,
    )


def test_non_utf8_argument_is_a_one_line_input_error() -> None:
    r = dractl("selector", "check", b'"\xff" == ""')
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("dractl: error: argument 3 is not valid UTF-8: ")
    assert "\\xff" in err and "Traceback" not in err


def test_control_characters_in_an_echoed_expression_are_escaped() -> None:
    for expr in ('"\x1b]0;owned\x07\u009b" == ""', '"\u202e" == '):
        r = dractl("selector", "check", expr)
        assert r.returncode in (0, 1)
        out = r.stdout.decode() + r.stderr.decode()
        assert not RAW.search(out), out
        assert "\\x1b" in out or "\\u202e" in out


def test_output_never_fails_on_the_terminal_encoding(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(
        '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", '
        '"metadata": {"name": "gpu-é\\ud800"}, "spec": {"x": 1}}',
        encoding="utf-8",
    )
    for fmt in ("wide", "json", "yaml", "junit"):
        r = dractl(
            "validate", "-o", fmt, "c.json", env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"}, cwd=tmp_path
        )
        assert r.returncode in (0, 1), (fmt, r.stderr)
        assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr
        assert b"gpu-" in r.stdout


def test_error_lines_from_the_boundary_are_escaped(tmp_path: Path) -> None:
    r = dractl("validate", "-o", "\x1b[2Jjson", "x.yaml", cwd=tmp_path)
    assert r.returncode == 2
    assert not RAW.search(r.stderr.decode())


def test_a_newline_in_a_file_name_never_splits_an_error_line(tmp_path: Path) -> None:
    (tmp_path / "a\n::error::x.yaml").write_text("key: {{ .Values.x }}\n")
    for command in ("validate", "lint"):
        r = dractl(command, ".", cwd=tmp_path)
        assert r.returncode == 2
        for line in r.stderr.decode().splitlines():
            assert line.startswith("dractl: error: "), line
