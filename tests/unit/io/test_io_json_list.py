"""A JSON List (``kubectl get -o json``) is read one item at a time (issue 11, memory): the same
objects, duplicate keys, errors and positions as reading the document whole, each item packed
while the rest is read, and a position inside an item composed from that item's text alone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.io import positions
from dractl.io.decode import iter_text
from dractl.io.documents import LoadResult
from dractl.io.loader import DocStream, load_paths
from dractl.io.positions import SourceText
from dractl.io.split import Splitter
from dractl.io.yamlparse import MAX_DEPTH, Packed

PATHS = ("", "metadata", "metadata.name", "spec.devices[0].name", "spec.devices[1].attributes.x", "nope")


def _item(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"s-{i}", "labels": {"a": "é\u2028", "b": 'x\\y"z'}},
        "spec": {
            "driver": "gpu.example.com",
            "devices": [{"name": f"d{d}", "attributes": {"x": {"int": d}}} for d in range(2)],
        },
    }


def kubectl_list(n: int, indent: int | None = 4) -> str:
    """What ``kubectl get -o json`` prints: keys sorted, so the items come before ``kind``."""
    value = {"apiVersion": "v1", "items": [_item(i) for i in range(n)], "kind": "List", "metadata": {}}
    return json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


def _read(text: str, *, pack: bool) -> tuple[Any, ...]:
    """Every object (raw, origin, duplicate keys, the positions of PATHS), the errors and the
    empty-document count, reading ``text`` streamed (pack) or whole (the json module's way)."""
    result = LoadResult()
    splitter = Splitter(result)
    source = SourceText("l.json", lambda: text)
    problems: list[Any] = []
    docs = list(
        splitter.objects("l.json", iter_text(text, "l.json", True, source, problems, pack_items=pack), source)
    )
    result.errors.extend(problems[:1])
    objects = [(d.raw, d.origin, d.duplicate_keys, [d.position(p) for p in PATHS]) for d in docs]
    return objects, [e.one_line() for e in result.errors], result.empty_documents


@pytest.mark.parametrize("indent", [None, 0, 2, 4, "\t"])
def test_a_kubectl_list_reads_as_if_whole(indent: int | str | None) -> None:
    text = kubectl_list(3, indent)  # type: ignore[arg-type]
    streamed = _read(text, pack=True)
    assert streamed == _read(text, pack=False)
    assert len(streamed[0]) == 3 and all(p[0] is not None for *_, ps in streamed[0] for p in ps)


HOSTILE = [
    '{"kind": "List", "items": [{"a": 1}, {"b": 2},]}',
    '{"kind": "List", "items": [{"a": 1} {"b": 2}]}',
    '{"kind": "List", "items": [{"a": 1}, {"b" 2}]}',
    '{"kind": "List", "items": [{"a": 1}, {"b": 2}], }',
    '{"kind": "List", "items": [{"a": 1}, {"b": 2}]',
    '{"kind": "List", "items" [',
    '{"kind": "List", "items": [NaN]}',
    '{"kind": "List", "items": [1, "\\x"]}',
    '{"kind": "List", "items": 5}',
    '{ "items" : [ ] , "kind" : "List" }',
    '{"items":[1,',
    '{"items":[1 ',
    '{"items":[',
    '{"a":1,',
    "{",
    '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a", "name": "b"}}], "kind": "List"}',
    '{"kind": "List", "items": [{"kind": "N"}], "items": [7, {"kind": "D", "metadata": {"name": "q", "name": "r"}}]}',
    '{"kind": "List", "items": []}\n{"kind": "List", "items": [{"x": 1}, 3, null, [1]]}\n',
    '[{"kind": "List", "items": [1]}]',
    '{"kind": "Thing", "items": [{"a": 1}, {"b": [2]}]}',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_malformed_and_odd_lists_read_as_if_whole(text: str) -> None:
    assert _read(text, pack=True) == _read(text, pack=False)


_PUNCT = st.sampled_from([*'{}[],:" \n\t\\0a-.eE', "true", "null", '"items"', '"kind"', "\\u00e9"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3), _PUNCT), min_size=1, max_size=4))
def test_mutated_lists_read_as_if_whole(edits: list[tuple[int, int, str]]) -> None:
    """Random edits (insert, delete, replace characters) of a kubectl List: whatever the json
    module makes of it (a value or an error, at a line and column), streaming says the same."""
    text = kubectl_list(2, 1)
    for at, cut, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + cut :]
    _same_or_more_exact(_read(text, pack=True), _read(text, pack=False))


def _same_or_more_exact(streamed: tuple[Any, ...], whole: tuple[Any, ...]) -> None:
    """The same objects, duplicate keys and errors; the same positions, except where the whole
    document has none (libyaml cannot compose it, e.g. a newline between a JSON key and its
    colon) and the item's own text gives one."""
    assert [o[:3] for o in streamed[0]] == [o[:3] for o in whole[0]]
    assert streamed[2] == whole[2]
    for s, w in zip(streamed[0], whole[0], strict=True):
        assert all(wp == sp or wp == (None, None) for sp, wp in zip(s[3], w[3], strict=True))
    unplaced = re.compile(r"^(l\.json)(?::\d+(?::\d+)?)?: ")
    assert len(streamed[1]) == len(whole[1])
    for s, w in zip(streamed[1], whole[1], strict=True):
        assert s == w or (unplaced.sub(r"\1: ", s) == w), (s, w)


def test_an_item_that_libyaml_cannot_compose_costs_only_its_own_positions() -> None:
    """A lone surrogate escape (libyaml refuses it): read whole, no item of the List had a
    position; read by item, only that item has none."""
    text = '{"kind": "List", "items": [{"x": "\\ud800"}, 3, null, [1]]}\n'
    streamed, whole = _read(text, pack=True), _read(text, pack=False)
    assert [o[:3] for o in streamed[0]] == [o[:3] for o in whole[0]]
    assert streamed[1] == [
        "l.json:1:45: items[1]: list item is a number, not a Kubernetes object (a mapping)",
        "l.json:1:48: items[2]: list item is null, not a Kubernetes object (a mapping)",
        "l.json:1:54: items[3]: list item is a list, not a Kubernetes object (a mapping)",
    ]
    assert whole[1] == [e.replace(e.split(" ")[0], "l.json:") for e in streamed[1]]


def test_items_are_packed_and_positions_compose_one_item(monkeypatch: pytest.MonkeyPatch) -> None:
    text = kubectl_list(40)
    source = SourceText("l.json", lambda: text)
    (doc,) = list(iter_text(text, "l.json", True, source, [], pack_items=True))
    assert all(type(i) is Packed for i in doc.value["items"])
    assert len(source.item_spans[0]) == 4 * 40
    composed: list[int] = []
    real = positions._compose_one
    monkeypatch.setattr(positions, "_compose_one", lambda t: composed.append(len(t)) or real(t))
    line, col = source.position(0, 39, "spec.devices[1].name")
    lines = text.split("\n")
    assert lines[line - 1][col - 1 :].startswith('"name": "d1"')
    assert composed and max(composed) < len(text) / 30  # the item's text, not the List's


def test_a_deep_item_is_reported_at_its_own_position() -> None:
    deep = "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)
    text = '{"kind": "List", "items": [\n{"a": 1},\n {"b": ' + deep + "}\n]}"
    problems: list[Any] = []
    source = SourceText("l.json", lambda: text)
    assert list(iter_text(text, "l.json", True, source, problems, pack_items=True)) == []
    assert (
        problems[0]
        .one_line()
        .startswith(f"l.json:3:{7 + MAX_DEPTH - 2}: nesting deeper than {MAX_DEPTH} levels")
    )


def test_loader_streams_a_json_list_with_findings_positions(tmp_path: Path) -> None:
    f = tmp_path / "l.json"
    f.write_text(kubectl_list(30))
    stream = DocStream([str(f)])
    seen = 0
    for doc in stream:
        seen += 1
        assert doc.origin.item == seen - 1
        line, _ = doc.position("metadata.name")
        assert f.read_text().split("\n")[line - 1].strip() == f'"name": "s-{seen - 1}"'
    assert seen == 30 and not stream.result.errors
    whole = load_paths([str(f)])
    assert [d.raw for d in whole.docs] == json.loads(f.read_text())["items"]
