"""JSON and YAML: the same document, ``report.to_dict()``, with its key order kept."""

from __future__ import annotations

from typing import Any

from dractl.render.registry import write_text
from dractl.render.sanitize import dumps_json, dumps_yaml


def to_json(report: Any) -> str:
    return dumps_json(report.to_dict()) + "\n"


def to_yaml(report: Any) -> str:
    return dumps_yaml(report.to_dict(), width=100)


def write_json(report: Any, console: Any) -> None:
    write_text(console, to_json(report))


def write_yaml(report: Any, console: Any) -> None:
    write_text(console, to_yaml(report))
