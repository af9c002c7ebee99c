"""Plain-scalar resolution (YAML 1.1 as PyYAML does it, timestamps kept as strings) and field paths."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import ScalarNode

_STR = "tag:yaml.org,2002:str"
_SCALAR_TAGS = frozenset({f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null")})
MERGE = object()  # the resolved value of a plain ``<<`` key


class UnknownTag(Exception):
    """A tag dractl doesn't construct (anything but str/int/float/bool/null/map/seq)."""


class Scalars:
    """Resolves plain scalars the way PyYAML's SafeLoader does, memoised by text."""

    def __init__(self) -> None:
        self._resolver = yaml.resolver.Resolver()
        self._constructor = yaml.constructor.SafeConstructor()
        self.cache: dict[str, Any] = {}  # text -> value; callers may read it (never write)

    def plain(self, text: str) -> Any:
        try:
            return self.cache[text]
        except KeyError:
            pass
        tag = self._resolver.resolve(ScalarNode, text, (True, False))
        value = self.tagged(tag, text) if tag != _STR else text
        if len(self.cache) > 50_000:
            self.cache.clear()
        self.cache[text] = value
        return value

    def tagged(self, tag: str, text: str) -> Any:
        if tag == _STR or tag.endswith((":timestamp", ":value")):  # a plain "=" is a string to Kubernetes
            return text
        if tag == "tag:yaml.org,2002:merge":
            return MERGE
        if tag in _SCALAR_TAGS:
            return self._constructor.construct_object(ScalarNode(tag, text))
        raise UnknownTag(tag)


SCALARS = Scalars()


def key_text(value: Any, source: str) -> str:
    """A mapping key as Kubernetes sees it after YAML-to-JSON: always a string."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return source if isinstance(value, float) else str(value)


def format_path(segments: list[Any]) -> str:
    """Kubernetes field-path text: ``spec.devices[0].attributes[gpu.nvidia.com/model]``."""
    out = ""
    for seg in segments:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif seg and all(c.isalnum() or c in "_-" for c in seg):
            out += f".{seg}" if out else seg
        else:
            out += f"[{seg}]"
    return out


def show_tag(tag: str) -> str:
    """``tag:yaml.org,2002:binary`` -> ``!!binary``; other tags as written."""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag
