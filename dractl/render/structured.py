"""JSON and YAML: the same document, ``report.to_dict()``, with its key order kept."""

from __future__ import annotations

import json
from typing import Any

from dractl.render.registry import write_text


def to_json(report: Any) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def to_yaml(report: Any) -> str:
    import yaml

    return str(yaml.safe_dump(report.to_dict(), sort_keys=False, default_flow_style=False, allow_unicode=True,
                              width=100))


def write_json(report: Any, console: Any) -> None:
    write_text(console, to_json(report))


def write_yaml(report: Any, console: Any) -> None:
    write_text(console, to_yaml(report))
