"""Node selection: does a slice or device (nodeName / allNodes / nodeSelector) reach a node?

``node_selector_matches`` follows k8s.io/component-helpers nodeaffinity: the terms
are ORed, the requirements of a term ANDed; an empty term matches nothing;
``matchFields`` only knows ``metadata.name``.  A malformed selector raises
:class:`NodeSelectorError` (the allocator turns it into an error).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dractl.model.objects import Node


class NodeSelectorError(ValueError):
    """The node selector cannot be parsed (unknown operator, bad values)."""


def node_matches(
    node: Node | None, node_name: str, all_nodes: bool, selector: Mapping[str, Any] | None
) -> bool:
    """The allocator's NodeMatches: name first, then allNodes, then the selector."""
    if node_name:
        return node is not None and node.meta.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return node_selector_matches(selector, node)
    return False


def node_selector_matches(selector: Mapping[str, Any], node: Node | None) -> bool:
    terms = selector.get("nodeSelectorTerms") or []
    parsed = [_parse_term(t) for t in terms]  # parse all first: errors win over matches
    if node is None:
        return False
    return any(_term_matches(t, node) for t in parsed)


Requirement = tuple[str, str, tuple[str, ...]]
Term = tuple[tuple[Requirement, ...], tuple[Requirement, ...]]


def _parse_term(term: Any) -> Term:
    t = term if isinstance(term, Mapping) else {}
    return (
        tuple(_parse_req(r, field=False) for r in t.get("matchExpressions") or []),
        tuple(_parse_req(r, field=True) for r in t.get("matchFields") or []),
    )


def _parse_req(raw: Any, *, field: bool) -> Requirement:
    r = raw if isinstance(raw, Mapping) else {}
    key, op = str(r.get("key", "")), str(r.get("operator", ""))
    values = tuple(str(v) for v in r.get("values") or [])
    if field and key != "metadata.name":
        raise NodeSelectorError(f"not a valid field selector key: {key!r}")
    if op in ("In", "NotIn") and not values:
        raise NodeSelectorError(f"{key}: values must be non-empty for operator {op}")
    if op in ("Exists", "DoesNotExist") and values:
        raise NodeSelectorError(f"{key}: values must be empty for operator {op}")
    if op in ("Gt", "Lt") and (len(values) != 1 or not _is_int(values[0])):
        raise NodeSelectorError(f"{key}: operator {op} needs one integer value")
    if op not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        raise NodeSelectorError(f"{op!r} is not a valid node selector operator")
    return key, op, values


def _is_int(s: str) -> bool:
    try:
        int(s)
    except ValueError:
        return False
    return True


def _term_matches(term: Term, node: Node) -> bool:
    exprs, fields = term
    if not exprs and not fields:
        return False
    labels = node.meta.labels
    if not all(_req_matches(r, labels) for r in exprs):
        return False
    return all(_req_matches(r, {"metadata.name": node.meta.name}) for r in fields)


def _req_matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    key, op, values = req
    has = key in labels
    value = labels.get(key, "")
    if op == "In":
        return has and value in values
    if op == "NotIn":
        return not has or value not in values
    if op == "Exists":
        return has
    if op == "DoesNotExist":
        return not has
    if not has or not _is_int(value):
        return False
    return int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])


def merge_requirements(into: list[dict[str, Any]], extra: Sequence[Any]) -> None:
    """Append each requirement of ``extra`` unless one with the same key, operator
    and value set is already present (the allocator's node-selector merge)."""
    for req in extra:
        if not isinstance(req, Mapping):
            continue
        values = set(req.get("values") or [])
        if not any(
            r.get("key") == req.get("key")
            and r.get("operator") == req.get("operator")
            and set(r.get("values") or []) == values
            for r in into
        ):
            into.append(dict(req))
