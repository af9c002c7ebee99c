"""JSON and YAML: the same document, ``report.to_dict()``, with its key order kept; and
``-o name`` for reports that list objects (``report.names()``, as kubectl's ``-o name``)."""

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


def write_names(report: Any, console: Any) -> None:
    """``-o name``: one ``kind/name`` (or other identifier) per line, from ``report.names()``."""
    names = list(report.names())
    if names:
        write_text(console, "".join(f"{n}\n" for n in names))
