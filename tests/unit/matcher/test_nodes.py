"""Node selector semantics (nodeaffinity)."""

from __future__ import annotations

import pytest
from matcher_builders import node

from dractl.matcher.nodes import NodeSelectorError, merge_requirements, node_matches


def _sel(*reqs: dict, fields: tuple = ()) -> dict:
    term: dict = {"matchExpressions": list(reqs)}
    if fields:
        term["matchFields"] = list(fields)
    return {"nodeSelectorTerms": [term]}


@pytest.mark.parametrize(
    ("req", "expected"),
    [
        ({"key": "zone", "operator": "In", "values": ["a"]}, True),
        ({"key": "zone", "operator": "NotIn", "values": ["a"]}, False),
        ({"key": "gpu", "operator": "Exists"}, False),
        ({"key": "gpu", "operator": "DoesNotExist"}, True),
        ({"key": "size", "operator": "Gt", "values": ["3"]}, True),
        ({"key": "size", "operator": "Lt", "values": ["3"]}, False),
    ],
)
def test_operators(req: dict, expected: bool) -> None:
    assert node_matches(node("n", zone="a", size="5"), "", False, _sel(req)) is expected


def test_name_all_nodes_and_fields() -> None:
    n = node("n1")
    assert node_matches(n, "n1", False, None) and not node_matches(n, "n2", True, None)
    assert node_matches(n, "", True, None) and not node_matches(n, "", False, None)
    field = {"key": "metadata.name", "operator": "In", "values": ["n1"]}
    assert node_matches(n, "", False, {"nodeSelectorTerms": [{"matchFields": [field]}]})
    assert not node_matches(n, "", False, {"nodeSelectorTerms": [{}]})


def test_bad_operator_raises() -> None:
    with pytest.raises(NodeSelectorError):
        node_matches(node(), "", False, _sel({"key": "a", "operator": "Near", "values": ["x"]}))


def test_merge_requirements_skips_duplicates() -> None:
    into = [{"key": "a", "operator": "In", "values": ["1", "2"]}]
    merge_requirements(
        into, [{"key": "a", "operator": "In", "values": ["2", "1"]}, {"key": "b", "operator": "Exists"}]
    )
    assert [r["key"] for r in into] == ["a", "b"]
