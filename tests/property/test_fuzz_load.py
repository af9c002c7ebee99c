"""Fuzz the loader: whatever bytes come in, load_paths returns docs and one-line errors, never raises."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import fuzz_inputs, objects, write_input

from dractl.errors import InputError
from dractl.io import LoadResult, load_paths, write_snapshot

FUZZ = settings(max_examples=200, deadline=None)


def check(res: LoadResult, name: str) -> None:
    for err in res.errors:
        assert isinstance(err, InputError)
        line = err.one_line()
        assert "\n" not in line and "\r" not in line
        assert line.startswith(name + ":")
    for doc in res.docs:
        assert isinstance(doc.raw, dict)
        assert all(isinstance(k, str) for k in doc.raw)
        line, _col = doc.position("")
        assert line is None or line >= 1
        doc.position("spec.devices[0].attributes.gpu.nvidia.com/model")  # must not raise
        for path, dline, dcol in doc.duplicate_keys:
            assert isinstance(path, str) and dline >= 0 and dcol >= 0


@FUZZ
@given(data=fuzz_inputs(), suffix=st.sampled_from([".yaml", ".json", ".yml"]))
def test_any_file_content_loads_without_exceptions(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_input(Path(tmp), data, suffix)
        res = load_paths([str(path)], max_input_size=64 * 1024)
        check(res, str(path))
        assert res.files == [str(path)]


@FUZZ
@given(data=fuzz_inputs())
def test_any_stdin_content_loads_without_exceptions(data: bytes) -> None:
    check(load_paths(["-"], stdin=io.BytesIO(data)), "-")


@settings(max_examples=100, deadline=None)
@given(objs=st.lists(objects.filter(lambda o: o["kind"] != "List"), min_size=1, max_size=4))
def test_snapshot_round_trip_keeps_dra_objects_exactly(objs: list[dict[str, Any]]) -> None:
    text = write_snapshot(objs, server_version="v1.37.0", feature_gates={"DRADeviceTaints": True}, time=None)
    res = load_paths(["-"], stdin=io.BytesIO(text.encode()))
    assert res.errors == []
    assert res.snapshot_header is not None
    order = ["DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceTaintRule"]
    expected = sorted(objs, key=lambda o: order.index(o["kind"]))
    assert [d.raw for d in res.docs] == expected


def _cli(argv: list[str]) -> tuple[int, str, str]:
    import contextlib

    from dractl.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _has_command(name: str) -> bool:
    return _cli([name, "--help"])[0] == 0


@settings(max_examples=100, deadline=None)
@given(data=fuzz_inputs(), suffix=st.sampled_from([".yaml", ".json"]))
def test_validate_command_survives_any_input(data: bytes, suffix: str) -> None:
    """The CLI-level harness: later commands that read files add themselves to COMMANDS."""
    for argv in COMMANDS:
        if not _has_command(argv[0]):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            path = write_input(Path(tmp), data, suffix)
            code, _out, err = _cli([*argv, str(path)])
        assert code in (0, 1, 2), (argv, code, err)
        assert "internal error" not in err and "Traceback" not in err, err
        if code == 2:
            assert err.strip(), "exit 2 must say why"


# Commands (with their flags) that take input files as trailing arguments.
COMMANDS: list[list[str]] = [["validate"]]
