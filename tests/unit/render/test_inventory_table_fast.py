"""The inventory tables' fast layout is exactly Rich's layout whenever it is used.

``render.inventory._table`` skips Rich when nothing folds (every cell printable ASCII and the
table fits); these tests compare that text with Rich's for generated tables: multi-line cells,
empty cells, wide and narrow terminals, with and without headers, wrap columns.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.render import inventory as inv
from dractl.render.sanitize import safe_console

WORD = st.from_regex(r"[!-~]([ -~]{0,10}[!-~])?", fullmatch=True)  # what the fast path takes
CELL = st.lists(WORD, min_size=1, max_size=3).map("\n".join)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]], bool, list[str], int]:
    n = draw(st.integers(1, 5))
    columns = draw(
        st.lists(st.from_regex(r"[A-Z]([A-Z ]{0,8}[A-Z])?", fullmatch=True), min_size=n, max_size=n)
    )
    rows = draw(st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=6))
    if rows and draw(st.integers(0, 4)) == 0:  # now and then a cell the fast path must refuse
        rows[0][0] = draw(st.text(max_size=4))
    headers = draw(st.booleans())
    wrap = draw(st.lists(st.sampled_from(columns), max_size=2))
    return columns, rows, headers, wrap, draw(st.integers(10, 300))


def _natural(columns: list[str], rows: list[list[str]], headers: bool) -> list[int]:
    return [
        max([len(col) if headers else 0, *(len(line) for r in rows for line in r[i].split("\n"))])
        for i, col in enumerate(columns)
    ]


@settings(max_examples=400, deadline=None)
@given(tables())
def test_fast_layout_equals_rich(case: tuple[list[str], list[list[str]], bool, list[str], int]) -> None:
    columns, rows, headers, wrap, width = case
    natural = _natural(columns, rows, headers)
    if not rows and not headers:
        return
    if sum(natural) + 3 * (len(columns) - 1) > width or not inv._plain_cells(columns, rows):
        return  # the fast path is not taken there
    assert inv._aligned(columns, rows, natural, headers) == inv._rich_table(
        columns, rows, natural, headers, wrap, width
    )


def test_plain_cells_refuses_what_rich_would_lay_out_otherwise() -> None:
    assert inv._plain_cells(["A"], [["gpu-0\nnode"]])
    for bad in ("", "a\n", "é", " lead", "trail ", "tab\there", "wide：", "\x1b[31m"):
        assert not inv._plain_cells(["A"], [[bad]])
    assert not inv._plain_cells([" A"], [["x"]])


@settings(max_examples=100, deadline=None)
@given(tables())
def test_table_output_is_the_same_either_way(
    case: tuple[list[str], list[list[str]], bool, list[str], int],
) -> None:
    """_table itself (the path it picks) against Rich alone, on a console of that width."""
    columns, rows, headers, wrap, width = case
    if not rows:
        return
    buf = io.StringIO()
    console = safe_console(file=buf, width=width, color_system=None, force_terminal=False)
    with inv.table_options(no_headers=not headers):
        inv._table(columns, rows, console, wrap)
    natural = _natural(columns, rows, headers)
    gaps = 3 * (len(columns) - 1)
    fixed = sum(w for w, c in zip(natural, columns, strict=True) if c not in wrap) + gaps
    wanted = fixed + sum(
        min(w, max(len(c), inv.MIN_WRAP)) for w, c in zip(natural, columns, strict=True) if c in wrap
    )
    full = max(width, wanted) if wrap else max(width, sum(natural) + gaps)
    assert buf.getvalue() == inv._rich_table(columns, rows, natural, headers, wrap, full)


def test_a_typical_view_takes_the_fast_path_with_rich_s_text() -> None:
    columns = ["NODE", "DEVICES", "RESERVED FOR"]
    rows = [["gpu-node-0001", "gpu.nvidia.com/gpu-node-0001/gpu-0\n+2 more", "ml-00/job-1"], ["n2", "-", "-"]]
    natural = _natural(columns, rows, True)
    text = inv._aligned(columns, rows, natural, True)
    assert text == inv._rich_table(columns, rows, natural, True, ["DEVICES"], 120)
    assert text.splitlines()[2] == "                +2 more"
