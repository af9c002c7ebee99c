"""render.sanitize: the one escaping layer (Go %q escapes in text, exact JSON/YAML, XML-safe
JUnit, injection-proof GitHub annotations), and every findings format fed hostile strings."""

from __future__ import annotations

import io
import json
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from dractl.errors import InputError, SourcePos
from dractl.render import allowed_formats, render
from dractl.render.sanitize import (
    TEXT_LIMIT,
    UNSAFE,
    dumps_json,
    dumps_yaml,
    escape,
    escape_block,
    escape_message,
    excerpt,
    github_data,
    github_property,
    plain_document,
    quote,
    sanitize,
    xml_text,
)
from dractl.validate.findings import Finding, Severity
from dractl.validate.report import ObjectResult, ValidationReport

HOSTILE = [
    "\x1b[31mred\x1b[0m",
    "\x9b2J",
    "a\nb",
    "cr\rlf",
    "\u202eevil",
    "\ud800",
    "\x00nul",
    "\x7f",
    "tab\there",
    "::error file=x::pwned",
    "%0A",
    "\u2028",
    "\ufeff",
    "\U000e0041",
    "\ufffe",
    "ok é 中",
]
# A terminal or an XML parser must never see these raw.
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff\ufffe\uffff]"
)


def test_unsafe_set_covers_every_control_format_and_separator_character() -> None:
    cats = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if unicodedata.category(ch) in cats or code in (0xFFFE, 0xFFFF):
            assert UNSAFE.match(ch), hex(code)
    assert not UNSAFE.search("plain ASCII text, é, 中文, emoji 🙂 and NBSP\xa0")


def test_go_q_style_escapes() -> None:
    assert escape("a\x1b[1mb") == "a\\x1b[1mb"
    assert escape("\a\b\f\n\r\t\v") == "\\a\\b\\f\\n\\r\\t\\v"
    assert escape("\x7f\x85\x9b") == "\\x7f\\u0085\\u009b"
    assert escape("\u202e\u2066\ud800\U000e0001") == "\\u202e\\u2066\\ud800\\U000e0001"
    assert quote('say "hi"\\\x9b') == '"say \\"hi\\"\\\\\\u009b"'
    s = "plain"
    assert escape(s) is s


@given(st.text())
def test_escape_is_one_safe_line_and_idempotent(text: str) -> None:
    out = escape(text)
    assert not UNSAFE.search(out)
    assert escape(out) == out
    out.encode("utf-8")  # no lone surrogate left (raises otherwise)


def test_cel_snippet_newlines_survive_but_no_other() -> None:
    cel = "compilation failed: ERROR: <input>:1:1: undeclared\n | gpu > 1\n | ^"
    assert escape_message(cel) == cel
    assert escape_message("a\n::error x\n | y") == "a\\n::error x\n | y"
    for line in escape_message("k\n::warning::x\n | \n::error::y").splitlines():
        assert not line.lstrip().startswith("::")


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4),
        max_leaves=20,
    )
)
def test_json_and_yaml_stay_exact_and_terminal_safe(doc: object) -> None:
    j = dumps_json(doc)
    assert json.loads(j) == doc
    assert not RAW.search(j.replace("\n", ""))
    y = dumps_yaml(doc)
    assert yaml.safe_load(y) == doc
    assert not RAW.search(y.replace("\n", ""))


def test_xml_text_is_well_formed() -> None:
    for s in HOSTILE:
        el = ET.Element("x", attr=xml_text(s))
        el.text = xml_text(s)
        ET.fromstring(ET.tostring(el, encoding="unicode"))


def test_github_values_cannot_start_a_command() -> None:
    for s in HOSTILE:
        assert "\n" not in github_data(s) and "\r" not in github_data(s)
        assert not re.search("[:,\n\r]", github_property(s))


def test_excerpt_bounds_long_values() -> None:
    assert excerpt("x" * 10) == "x" * 10
    cut = excerpt("y" * 3_000_000)
    assert len(cut) < 300 and cut.endswith("… (3,000,000 characters)")


def test_sanitize_escapes_keys_and_values_and_keeps_clean_documents() -> None:
    doc = {"a\x1b": ["\x9b", 1, None, {"k": "\u202e"}], "n": 2.5}
    assert sanitize(doc) == {"a\\x1b": ["\\u009b", 1, None, {"k": "\\u202e"}], "n": 2.5}
    clean = {"a": ["b", 1]}
    assert sanitize(clean) is clean


DOC_TEXT = st.text() | st.sampled_from([*HOSTILE, "plain", 'q"uote', "back\\slash", "x" * 4001])


@given(
    st.dictionaries(
        DOC_TEXT,
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | DOC_TEXT,
            lambda c: (
                st.lists(c, max_size=4)
                | st.tuples(c, c)
                | st.dictionaries(DOC_TEXT | st.integers(), c, max_size=4)
            ),
            max_leaves=20,
        ),
        max_size=4,
    )
)
def test_plain_document_is_exactly_the_documents_sanitize_keeps(doc: dict[object, object]) -> None:
    # The fast check (one json.dumps) says "nothing to escape" only where the value-by-value walk
    # changes nothing, and sanitize's answer is the walk's either way.
    from dractl.render.sanitize import _sanitize

    walked = _sanitize(doc)
    if plain_document(doc):
        assert walked is doc
    assert sanitize(doc) == walked


@given(st.text(st.characters(max_codepoint=0x7F)) | st.text() | st.sampled_from(HOSTILE))
def test_escape_block_keeps_only_newlines_and_tabs(text: str) -> None:
    from dractl.render.sanitize import _UNSAFE_BUT_NEWLINE, _sub

    out = escape_block(text)
    assert out == _UNSAFE_BUT_NEWLINE.sub(_sub, text)  # the ASCII fast path changes no answer
    assert not RAW.search(out.replace("\n", "").replace("\t", ""))
    assert escape_block("a\tb\nc") == "a\tb\nc" and escape_block("a\x1bb\x7f") == "a\\x1bb\\x7f"


def test_plain_document_refuses_what_it_cannot_see() -> None:
    assert plain_document({"a": ["b", 1, 2.5, None, True], "n": {"k": ("t", 3)}})
    for bad in ("\x1b", 'q"', "b\\s", "é", "\u202e", "x" * 4001):
        assert not plain_document({"a": [bad]}) and not plain_document({bad: 1})
    assert plain_document({"a": "x" * 4000})
    assert not plain_document({"a": {1, 2}})  # not JSON: the walk decides
    assert sanitize({"a": {1, 2}}) == {"a": {1, 2}}


@pytest.mark.parametrize(
    ("doc", "plain"),
    [
        ({"a": "x" * 4000, "b": "y" * 4000}, True),
        ({"a": ["x" * 4000, "y" * 4001]}, False),
        ({"x" * 4000: "y" * 3999, "z" * 4001: 1}, False),
        ({"a": list(range(2000))}, False),  # a run of numbers past the limit: the walk decides
        ({"a": list(range(900))}, True),
        ({"a": [1] * 1999 + ["x"]}, True),  # runs of exactly the limit, split by the quote
        ({"a": [1] * 2001 + ["x"]}, False),
    ],
)
def test_plain_document_finds_every_run_longer_than_the_text_limit(
    doc: dict[str, object], plain: bool
) -> None:
    text = json.dumps(doc, separators=(",", ":"))
    longest = max(len(run) for run in text.split('"'))
    assert (longest <= TEXT_LIMIT) is plain  # the case is the one it claims to be
    assert plain_document(doc) is plain


def hostile_report() -> ValidationReport:
    findings, objects = [], []
    for i, s in enumerate(HOSTILE):
        file = f"dir/{s}.yaml"
        findings.append(
            Finding(
                Severity.ERROR if i % 2 else Severity.WARNING,
                f"RULE-{s}",
                f"bad {s} value",
                f"spec.{s}",
                None,
                file,
                0,
                i + 1,
                1,
                f"Kind{s}",
                f"name{s}",
                f"ns{s}",
            )
        )
        objects.append(
            ObjectResult(
                file, 0, f"api/{s}", f"Kind{s}", f"name{s}", f"ns{s}", errors=i % 2, warnings=1 - i % 2
            )
        )
        objects.append(ObjectResult(file, 1, "v1", f"Skipped{s}", "x", checked=False))
    errors = tuple(InputError(f"cannot parse {s}", SourcePos(f"in/{s}.yaml", 1, 1)) for s in HOSTILE)
    return ValidationReport.build("1.37", findings, objects, errors, [o.file for o in objects], {})


@pytest.mark.parametrize("fmt", [f.value for f in allowed_formats("validation")])
def test_every_findings_format_survives_hostile_strings(fmt: str) -> None:
    rep = hostile_report()
    buf = io.StringIO()
    con = Console(file=buf, width=120, markup=False, emoji=False, highlight=False, color_system=None)
    render(rep, fmt, con)
    out = buf.getvalue()
    out.encode("utf-8")
    assert not RAW.search(out.replace("\n", "")), fmt
    if fmt in ("table", "wide"):
        assert not any(line.lstrip().startswith("::") for line in out.splitlines())
    elif fmt == "github":
        assert len(out.splitlines()) == len(rep.to_dict()["items"]) + len(HOSTILE)
        assert all(line.startswith(("::error ", "::warning ")) for line in out.splitlines())
    elif fmt == "junit":
        ET.fromstring(out.encode("utf-8"))
    elif fmt in ("json", "sarif"):
        doc = json.loads(out)
        if fmt == "json":
            assert doc == json.loads(json.dumps(rep.to_dict()))  # exact
    elif fmt == "yaml":
        assert yaml.safe_load(out) == yaml.safe_load(yaml.safe_dump(rep.to_dict()))
