"""dractl.io.yamlemit writes YAML that reads back exactly as its input, for every kind of
scalar the API server can send — and hostile ones."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.io.yamlemit import dump_all

HOSTILE = [
    "",
    " x",
    "x ",
    "null",
    "Null",
    "~",
    "Yes",
    "no",
    "ON",
    "y",
    "1.0",
    "0x1F",
    "0o17",
    "1e5",
    "-1",
    ".5",
    "+1",
    "NaN",
    ".inf",
    "2024-01-01",
    "12:30",
    "- a",
    "a: b",
    "a #b",
    "#x",
    "? x",
    "*ref",
    "&a",
    "!tag",
    "%x",
    "@x",
    "`x",
    "<<",
    "'q'",
    '"dq"',
    "a\\b",
    "a\tb",
    "line\nbreak",
    "trailing\n",
    "é",
    "😀",
    "\u2028",
    "\u0085",
    "\ufeff",
    "\x01",
    "\x7f",
    "\ud800",
    "gpu.nvidia.com",
    "device.driver == 'x'",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_strings_read_back_the_same(text: str) -> None:
    doc = {"value": text, text or "k": [text], "nested": {"list": [{"k": text}]}}
    assert list(yaml.safe_load_all(dump_all([doc]))) == [doc]


def test_every_json_type_and_empty_containers() -> None:
    doc: dict[str, Any] = {
        "i": 3,
        "neg": -2,
        "f": 1.5,
        "t": True,
        "n": None,
        "e": {},
        "l": [],
        "deep": [[1, [2]], {"x": [{}]}],
        "1": "numeric key",
        "true": "bool key",
        "a b": "space key",
    }
    assert list(yaml.safe_load_all(dump_all([doc, {"second": 1}]))) == [doc, {"second": 1}]


def test_non_finite_floats() -> None:
    back = next(yaml.safe_load_all(dump_all([{"a": math.inf, "b": -math.inf, "c": math.nan}])))
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])


def test_documents_start_with_a_marker_and_keep_key_order() -> None:
    text = dump_all([{"b": 1, "a": {"z": 1, "w": 2}}])
    assert text == "---\nb: 1\na:\n  z: 1\n  w: 2\n"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False, allow_infinity=False),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(), _json, max_size=5))
def test_any_json_document_round_trips(doc: dict[str, Any]) -> None:
    try:
        "".join(str(doc)).encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates can't be in a UTF-8 file at all
    assert list(yaml.safe_load_all(dump_all([doc]))) == [doc]


def test_remembered_strings_are_written_as_the_first_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The string cache (bounded) never changes the text: each string as written uncached."""
    from dractl.io import yamlemit

    monkeypatch.setattr(yamlemit, "_STRINGS_MAX", 3)
    words = ["name", "yes", "80Gi", "zoë", "a: b", "", "\u202e", "1", "null", "name", "yes", "\ud800"] * 3
    doc = {w: [w, {w: w}] for w in words} | {"n": 1, "t": True, "list": words}
    yamlemit._STRINGS.clear()
    first = yamlemit.dump_all([doc, doc])
    assert len(yamlemit._STRINGS) <= 3
    for w in words:
        assert yamlemit._string(w) == yamlemit._string_text(w)
    yamlemit._STRINGS.clear()
    assert yamlemit.dump_all([doc, doc]) == first
    plain = [w for w in words if w != "\ud800"]  # PyYAML cannot read a lone surrogate back
    again = {w: [w, {w: w}] for w in plain} | {"list": plain}
    assert list(yaml.safe_load_all(yamlemit.dump_all([again, again]))) == [again, again]
