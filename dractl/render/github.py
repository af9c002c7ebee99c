"""GitHub Actions workflow commands: one ``::error``/``::warning`` annotation per finding.

Works on any findings report (``to_dict()["items"]`` are findings with file, line, column,
rule, severity, path and message).  Escaping follows GitHub's rules for workflow commands.
"""

from __future__ import annotations

from typing import Any

from dractl.render.registry import write_text
from dractl.render.sanitize import github_data as _data
from dractl.render.sanitize import github_property as _prop
from dractl.render.sanitize import sanitize

_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def annotation(item: dict[str, Any]) -> str:
    props = [f"file={_prop(item['file'])}"]
    if item.get("line") is not None:
        props.append(f"line={item['line']}")
        if item.get("column") is not None:
            props.append(f"col={item['column']}")
    props.append(f"title={_prop(str(item['rule']))}")
    message = item["message"]
    if item.get("path") and item["path"] not in message:
        message = f"{item['path']}: {message}"
    return f"::{_LEVELS.get(item['severity'], 'notice')} {','.join(props)}::{_data(message)}"


def to_github(report: Any) -> str:
    doc = sanitize(report.to_dict())
    lines = [annotation(item) for item in doc["items"]]
    for err in doc.get("inputErrors", []):
        where = f"file={_prop(err['file'])}" + (f",line={err['line']}" if err.get("line") else "")
        lines.append(f"::error {where},title=INPUT-ERROR::{_data(err['text'])}")
    return "".join(line + "\n" for line in lines)


def write_github(report: Any, console: Any) -> None:
    text = to_github(report)
    if text:
        write_text(console, text)
