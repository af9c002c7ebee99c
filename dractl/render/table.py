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
    head = (f"Validated {_plural(summary['objects'], 'object')} in {_plural(summary['files'], 'file')} "
            f"against Kubernetes {summary['kubeVersion']}: ")
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

    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 0, 0, 3), header_style=None,
                  expand=True)
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
    return "".join(f"{_location(i)}: {i['severity']} {i['rule']}: "
                   f"{_object(i) + ': ' if wide and _object(i) else ''}{_message(i)}\n" for i in doc["items"])


def write_table(report: Any, console: Any, wide: bool = False) -> None:
    """The findings as a table (as lines when the message column would be narrower than
    MIN_MESSAGE_WIDTH), then the summary line."""
    doc = sanitize(report.to_dict())
    if doc["items"]:
        fixed = max(len(_location(i)) for i in doc["items"]) + len("SEVERITY") + 9 + \
            max(len(i["rule"]) for i in doc["items"])
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
    safe_console(file=buf, width=width, markup=False, emoji=False, highlight=False, color_system=None,
            force_terminal=False).print(renderable)
    return "".join(line.rstrip() + "\n" for line in buf.getvalue().splitlines())


def write_wide(report: Any, console: Any) -> None:
    write_table(report, console, wide=True)
