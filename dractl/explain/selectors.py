"""What a CEL selector refers to, and advice when that does not exist.

A light scan of the expression text (no full parse) finds every
``device.attributes["domain"].name`` and ``device.capacity["domain"].name``
reference, in the ``.name``, ``["name"]`` and optional ``[?"name"]`` forms.  That
is enough to say "no device publishes ``gpu.nvidia.com/memory``: did you mean
capacity ``memory``?" — the classic selector typo.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from dataclasses import dataclass

from dractl.explain.catalog import attribute_value, qualified_names
from dractl.model import objects as o
from dractl.model.quantity import Quantity

_REF = re.compile(
    r"""device\s*\.\s*(attributes|capacity)\s*\[\s*\??\s*(["'])([^"']+)\2\s*\]"""
    r"""(?:\s*\.\s*\??\s*([A-Za-z_][A-Za-z0-9_]*)|\s*\[\s*\??\s*(["'])([^"']+)\5\s*\])?"""
)


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str  # "attributes" | "capacity"
    domain: str
    name: str | None

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.name}" if self.name else self.domain

    @property
    def noun(self) -> str:
        return "attribute" if self.kind == "attributes" else "capacity"


def references(expression: str) -> list[Ref]:
    """Attribute and capacity references in a selector, in order, without duplicates."""
    out: list[Ref] = []
    for m in _REF.finditer(expression):
        name = m.group(4) or m.group(6)
        ref = Ref(m.group(1), m.group(3), name)
        if ref not in out:
            out.append(ref)
    return out


def advice(expressions: list[str], devices: list[o.Device]) -> list[str]:
    """Plain-words hints for selectors evaluated on ``devices``: unknown names with a
    did-you-mean, unknown domains, and the values the referenced attributes have."""
    attrs = qualified_names(devices, "attributes")
    caps = qualified_names(devices, "capacity")
    hints: list[str] = []
    for expr in expressions:
        for ref in references(expr):
            hint = _unknown(ref, attrs, caps, len(devices))
            if hint is None and ref.name:
                hint = _values(ref, devices)
            if hint and hint not in hints:
                hints.append(hint)
    return hints


def _unknown(ref: Ref, attrs: Counter[str], caps: Counter[str], total: int) -> str | None:
    own, other = (attrs, caps) if ref.kind == "attributes" else (caps, attrs)
    domains = {q.rpartition("/")[0] for q in list(attrs) + list(caps)}
    if ref.name is None:
        if ref.domain in domains or not domains:
            return None
        close = difflib.get_close_matches(ref.domain, sorted(domains), n=1, cutoff=0.5)
        better = (
            f": did you mean `{close[0]}`?" if close else f"; published domains: {', '.join(sorted(domains))}"
        )
        return f"selector uses domain `{ref.domain}`, which no candidate device publishes{better}"
    if own.get(ref.qualified, 0) == total and total:
        return None
    if ref.qualified in own:
        return (
            f"only {own[ref.qualified]} of {total} candidate devices publish {ref.noun} `{ref.qualified}`; "
            f"guard it with has() or `.?name.orValue(…)`"
        )
    lead = f"selector references {ref.noun} `{ref.qualified}`, which no candidate device publishes"
    if ref.qualified in other:
        kind = "capacity" if ref.kind == "attributes" else "attribute"
        field = "capacity" if ref.kind == "attributes" else "attributes"
        return f"{lead}: did you mean {kind} `{ref.name}` (device.{field}['{ref.domain}'].{ref.name})?"
    same_domain = sorted(q.rpartition("/")[2] for q in own if q.rpartition("/")[0] == ref.domain)
    close = difflib.get_close_matches(ref.name or "", same_domain, n=1, cutoff=0.6)
    if close:
        return f"{lead}: did you mean `{ref.domain}/{close[0]}`?"
    if ref.domain not in domains and domains:
        return f"{lead}; published domains: {', '.join(sorted(domains))}"
    if same_domain:
        return f"{lead}; published {ref.noun} names: {', '.join(same_domain[:8])}"
    return lead


def _values(ref: Ref, devices: list[o.Device], limit: int = 4) -> str | None:
    values: Counter[str] = Counter()
    for d in devices:
        v = attribute_value(d, ref.qualified) if ref.kind == "attributes" else _capacity(d, ref)
        if v is not None:
            values[repr(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)] += 1
    if not values:
        return None
    shown = ", ".join(f"{v} ({n})" for v, n in values.most_common(limit))
    more = f", … {len(values) - limit} more" if len(values) > limit else ""
    return f"{ref.noun} `{ref.qualified}` on the candidates: {shown}{more}"


def _capacity(device: o.Device, ref: Ref) -> str | None:
    cap = device.capacity.get(ref.qualified)
    if cap is None and ref.domain == device.driver:
        cap = device.capacity.get(ref.name or "")
    return _quantity_text(cap.value) if cap is not None else None


@functools.lru_cache(maxsize=4096)
def _quantity_text(q: Quantity) -> str:
    # Canonical formatting is not cheap and the same few values repeat on every node.
    return str(q)
