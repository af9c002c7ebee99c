"""Label selectors as kubectl's ``-l/--selector`` writes them.

``a=b``, ``a==b``, ``a!=b``, ``a in (x,y)``, ``a notin (x,y)``, ``a`` (exists) and
``!a`` (does not exist), joined by commas (all must hold).  The grammar and the
meaning follow k8s.io/apimachinery/pkg/labels: ``!=`` and ``notin`` also match
objects without the label.  A selector that does not parse is a UsageError naming
the part that is wrong (exit 2); the empty selector matches everything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from dractl.errors import UsageError

# A label key: optional DNS-subdomain prefix and a name (kubectl's qualified name).
_KEY = r"(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_VALUE = r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?"
_SET = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s+\(([^()]*)\)\s*$")
_CMP = re.compile(rf"^\s*({_KEY})\s*(==|!=|=)\s*({_VALUE})\s*$")
_EXISTS = re.compile(rf"^\s*(!?)\s*({_KEY})\s*$")
_VALUE_ONLY = re.compile(rf"^{_VALUE}$")


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: str  # in, notin, exists, !exists
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "exists":
            return present
        if self.operator == "!exists":
            return not present
        if self.operator == "in":
            return present and labels[self.key] in self.values
        return not present or labels[self.key] not in self.values


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """All requirements must hold; ``text`` is the selector as given (for reports)."""

    text: str
    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)


def _split(text: str) -> list[str]:
    """Split at commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_selector(
    text: str | None, command: str | None = None, flag: str = "--selector"
) -> LabelSelector | None:
    """The selector, or None when ``text`` is None; raises UsageError."""
    if text is None:
        return None
    if not text.strip():
        return LabelSelector(text)
    reqs = [_requirement(part, text, command, flag) for part in _split(text)]
    return LabelSelector(text, tuple(reqs))


def _requirement(part: str, whole: str, command: str | None, flag: str) -> Requirement:
    def bad(why: str) -> UsageError:
        return UsageError(f"{flag} {whole!r}: {why}", command)

    if not part.strip():
        raise bad("empty requirement (two commas in a row, or a trailing comma?)")
    m = _SET.match(part)
    if m:
        values = tuple(v.strip() for v in m.group(3).split(",")) if m.group(3).strip() else ()
        if not values or any(not v or not _VALUE_ONLY.match(v) for v in values):
            raise bad(f"{part.strip()!r}: the set needs one or more valid label values")
        return Requirement(m.group(1), m.group(2), values)
    m = _CMP.match(part)
    if m:
        return Requirement(m.group(1), "notin" if m.group(2) == "!=" else "in", (m.group(3),))
    m = _EXISTS.match(part)
    if m:
        return Requirement(m.group(2), "!exists" if m.group(1) else "exists")
    raise bad(
        f"{part.strip()!r} is not a label requirement (key, !key, key=value, key!=value, "
        "key in (a,b), key notin (a,b))"
    )
