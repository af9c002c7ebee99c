"""Generated documents as text: YAML (``---`` between documents, keys in insertion order, the
way kubectl prints) or JSON (one object, or a ``v1`` ``List`` for several)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import yaml

FORMATS = ("yaml", "json")


class _Dumper(yaml.SafeDumper):
    """Block style, insertion order, strings that look like numbers or booleans quoted."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(docs: Sequence[dict[str, Any]], fmt: str = "yaml") -> str:
    """Text of ``docs`` in ``fmt`` (``yaml`` or ``json``); ValueError for another format."""
    if fmt == "json":
        body: Any = docs[0] if len(docs) == 1 else {"apiVersion": "v1", "kind": "List", "items": list(docs)}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if fmt != "yaml":
        raise ValueError(f"unknown format {fmt!r}")
    return "---\n".join(
        yaml.dump(
            d, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 16
        )
        for d in docs
    )
