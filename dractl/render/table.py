"""Tables: findings of a validation-style report (Rich, no markup) plus the summary line.

``wide`` adds the object each finding belongs to.  Summaries are the engine's counts; this
module only words them.
"""

from __future__ import annotations

from typing import Any

from dractl.render.registry import write_text
from dractl.render.sanitize import sanitize


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(summary: dict[str, Any]) -> str:
    """``Validated 3 objects in 2 files against Kubernetes 1.37: 1 error, 2 warnings; …``."""
    head = (
        f"Validated {_plural(summary['objects'], 'object')} in {_plural(summary['files'], 'file')} "
        f"against Kubernetes {summary['kubeVersion']}: "
    )
    if summary["errors"] or summary["warnings"] or summary["inputErrors"]:
        head += f"{_plural(summary['errors'], 'error')}, {_plural(summary['warnings'], 'warning')}"
    else:
        head += "no problems found"
    if summary.get("suppressed"):
        head += f"; {summary['suppressed']} suppressed (--skip/--only, .dractl.yaml, dractl.io/ignore)"
    if summary["skipped"]:
        kinds = ", ".join(f"{k}: {v}" for k, v in summary["skippedByKind"].items())
        head += f"; skipped {_plural(summary['skipped'], 'object')} of other kinds ({kinds})"
    if summary["inputErrors"]:
        head += f"; {_plural(summary['inputErrors'], 'input')} could not be read"
    return head + "."


def _message(item: dict[str, Any]) -> str:
    path = item.get("path") or ""
    return f"{path}: {item['message']}" if path and path not in item["message"] else item["message"]


def _object(item: dict[str, Any]) -> str:
    ident = f"{item['namespace']}/{item['name']}" if item.get("namespace") else item.get("name", "")
    return f"{item.get('kind', '')}/{ident}" if ident else item.get("kind", "")


def findings_table(doc: dict[str, Any], wide: bool = False) -> Any:
    from rich.table import Table

    table = Table(
        box=None, show_edge=False, pad_edge=False, padding=(0, 0, 0, 3), header_style=None, expand=True
    )
    table.add_column("LOCATION", no_wrap=True)
    table.add_column("SEVERITY", no_wrap=True)
    table.add_column("RULE", no_wrap=True)
    if wide:
        table.add_column("OBJECT", overflow="fold")
    table.add_column("MESSAGE", overflow="fold", ratio=1)
    for item in doc["items"]:
        row = [_location(item), item["severity"], item["rule"]]
        if wide:
            row.append(_object(item))
        table.add_row(*row, _message(item))
    return table


MIN_MESSAGE_WIDTH = 40


def _location(item: dict[str, Any]) -> str:
    return item["file"] + (f":{item['line']}:{item['column']}" if item.get("line") else "")


def findings_lines(doc: dict[str, Any], wide: bool = False) -> str:
    """Compiler-style lines (``file:line:col: severity RULE: [object: ]message``) for narrow
    terminals."""
    return "".join(
        f"{_location(i)}: {i['severity']} {i['rule']}: "
        f"{_object(i) + ': ' if wide and _object(i) else ''}{_message(i)}\n"
        for i in doc["items"]
    )


def write_table(report: Any, console: Any, wide: bool = False) -> None:
    """The findings as a table, then the summary line.  Piped (stdout not a terminal): one
    line per finding, never wrapped; on a terminal the message column folds to its width, and
    findings become compiler-style lines when it would be narrower than MIN_MESSAGE_WIDTH."""
    doc = sanitize(report.to_dict())
    if doc["items"] and not getattr(console, "is_terminal", False):  # piped: whole rows, never wrapped
        headers = ["LOCATION", "SEVERITY", "RULE", *(["OBJECT"] if wide else []), "MESSAGE"]
        rows = [
            [_location(i), i["severity"], i["rule"], *([_object(i)] if wide else []), _message(i)]
            for i in doc["items"]
        ]
        write_rows(console, headers, rows)
    elif doc["items"]:
        fixed = (
            max(len(_location(i)) for i in doc["items"])
            + len("SEVERITY")
            + 9
            + max(len(i["rule"]) for i in doc["items"])
        )
        if wide:
            fixed += max(len(_object(i)) for i in doc["items"]) + 3
        if console.width - fixed >= MIN_MESSAGE_WIDTH:
            write_text(console, plain(findings_table(doc, wide), console.width))
        else:
            write_text(console, findings_lines(doc, wide))
    write_text(console, summary_line(doc["summary"]))


def plain(renderable: Any, width: int) -> str:
    """Render without colour and without the trailing padding Rich adds to every line."""
    import io

    from dractl.render.sanitize import safe_console

    buf = io.StringIO()
    safe_console(
        file=buf,
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        color_system=None,
        force_terminal=False,
    ).print(renderable)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def write_wide(report: Any, console: Any) -> None:
    write_table(report, console, wide=True)


COLUMN_GAP = "   "


def write_rows(console: Any, headers: list[str], rows: list[list[str]], *, title: str | None = None) -> None:
    """A kubectl-style table (no box, columns three spaces apart) of ``rows`` under ``headers``.

    When stdout is not a terminal (a pipe, a file, a test), no cell is ever wrapped or cut:
    each row is one line, whatever its length, so ``grep``/``awk``/``cut`` see whole rows.
    On a terminal, long cells fold to the terminal's width.  ``--no-headers``
    (:func:`dractl.render.registry.options`) leaves out the header row; ``title`` is a line
    above the table (kept with ``--no-headers``: it is not a column header)."""
    from dractl.render.registry import options

    no_headers = options().no_headers
    if title:
        write_text(console, title)
    if getattr(console, "is_terminal", False):
        write_text(console, _terminal_table(console, headers, rows, no_headers))
        return
    lines = rows if no_headers else [headers, *rows]
    if not lines:
        return
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    text = "".join(
        COLUMN_GAP.join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
        for line in lines
    )
    write_text(console, text)


def _terminal_table(console: Any, headers: list[str], rows: list[list[str]], no_headers: bool) -> str:
    from rich.table import Table

    table = Table(
        box=None,
        show_edge=False,
        pad_edge=False,
        padding=(0, 0, 0, len(COLUMN_GAP)),
        header_style=None,
        show_header=not no_headers,
    )
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return plain(table, console.width)
