"""``render.table.write_rows``: the one table helper every report's table goes through.

Piped output (stdout not a terminal) never wraps or cuts a cell; a terminal folds long cells
to its width; ``--no-headers`` drops the header row; titles stay."""

from __future__ import annotations

import io

from rich.console import Console

from dractl.render.registry import RenderOptions, using
from dractl.render.table import write_rows

LONG = "x" * 150
HEADERS = ["NAME", "STATUS", "MESSAGE"]
ROWS = [["gpu-0", "ok", "short"], ["gpu-10", "error", LONG]]


def _console(terminal: bool, width: int = 60) -> Console:
    return Console(
        file=io.StringIO(),
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        color_system=None,
        force_terminal=terminal,
    )


def _out(console: Console) -> str:
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_piped_rows_are_whole_lines_whatever_the_width() -> None:
    con = _console(terminal=False, width=20)
    write_rows(con, HEADERS, ROWS)
    assert _out(con) == (f"NAME     STATUS   MESSAGE\ngpu-0    ok       short\ngpu-10   error    {LONG}\n")


def test_a_terminal_folds_long_cells_to_its_width() -> None:
    con = _console(terminal=True, width=60)
    write_rows(con, HEADERS, ROWS)
    lines = _out(con).splitlines()
    assert lines[0].split() == HEADERS
    assert all(len(line) <= 60 for line in lines) and len(lines) > 3
    assert "".join(line.split()[-1] for line in lines[2:]).endswith(LONG[-20:])


def test_no_headers_drops_only_the_header_row() -> None:
    con = _console(terminal=False)
    with using(RenderOptions(no_headers=True)):
        write_rows(con, HEADERS, ROWS, title="Devices")
    assert _out(con).splitlines() == ["Devices", "gpu-0    ok      short", f"gpu-10   error   {LONG}"]


def test_no_headers_on_a_terminal() -> None:
    con = _console(terminal=True, width=200)
    with using(RenderOptions(no_headers=True)):
        write_rows(con, HEADERS, ROWS[:1])
    assert _out(con).split() == ["gpu-0", "ok", "short"]


def test_an_empty_table_prints_its_header_only() -> None:
    con = _console(terminal=False)
    write_rows(con, HEADERS, [])
    assert _out(con) == "NAME   STATUS   MESSAGE\n"
    con = _console(terminal=False)
    with using(RenderOptions(no_headers=True)):
        write_rows(con, HEADERS, [])
    assert _out(con) == ""


def test_options_are_scoped_to_the_render_call() -> None:
    from dractl.render.registry import options

    with using(RenderOptions(no_headers=True)):
        assert options().no_headers
    assert not options().no_headers
