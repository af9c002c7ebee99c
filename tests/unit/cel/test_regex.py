"""matches()/find()/findAll(): Go's regexp syntax, RE2 (linear-time) matching, Go's findAll."""

from __future__ import annotations

import re

import pytest
from cel_helpers import gpu
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cel import CelCache
from dractl.cel.lib.regex import RegexError, compile_regex, translate
from dractl.errors import CelCompileError, CelRuntimeError


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"\x{e9}", "café", "é"),
        ("(?i)caf(?-i)É", "CAFÉ", "CAFÉ"),
        ("(?i)caf(?-i)É", "CAFé", ""),
        ("(?<name>a+)b", "xaab", "aab"),
        ("(?P<name>a+)b", "xaab", "aab"),
        ("(?U)a+", "aaa", "a"),
        ("(?U)a+?", "aaa", "aaa"),
        (r"\Qa.b\E+", "a.bbb axb", "a.bbb"),
        (r"\Qa.b", "xa.b", "a.b"),
        (r"\_", "a_b", "_"),
        (r"\101\x41\x{41}", "AAA", "AAA"),
        (r"\p{Greek}+", "abc αβγ", "αβγ"),
        (r"\p{greek}+", "abc αβγ", "αβγ"),  # Go 1.25+: loose names
        (r"\p{Letter}+", "1ab2", "ab"),
        (r"\p{ASCII}+", "éab", "ab"),
        (r"[\P{L}]+", "ab12cd", "12"),
        (r"[[:^alpha:]]+", "ab12cd", "12"),
        ("a{,5}", "a{,5}", "a{,5}"),  # not a repeat: literal braces, as Go reads it
        (r"\Aab\z", "ab", "ab"),
        ("^b", "ab", ""),
    ],
)
def test_go_syntax_is_accepted_and_matches_as_go(pattern: str, text: str, found: str) -> None:
    assert compile_regex(pattern).find(text) == found


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (r"a\Z", r"invalid escape sequence: `\Z`"),
        (r"\C", r"invalid escape sequence: `\C`"),
        (r"\8", r"invalid escape sequence: `\8`"),
        (r"\1", r"invalid escape sequence: `\1`"),
        ("[a", "missing closing ]: `[a`"),
        ("x[a-", "missing closing ]: `[a-`"),
        ("(a", "missing closing ): `(a`"),
        ("a)", "unexpected ): `a)`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("(a{2}){501}", "invalid repeat count: `{501}`"),
        ("a{3,2}", "invalid repeat count: `{3,2}`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"),
        ("(?<n!>a)", "invalid named capture: `(?<n!>`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("a*?+", "invalid nested repetition operator: `*?+`"),
        ("*a", "missing argument to repetition operator: `*`"),
        ("a|+?", "missing argument to repetition operator: `+?`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:word2:]]", "invalid character class range: `[:word2:]`"),
        (r"\p{Klingon}", r"invalid character class range: `\p{Klingon}`"),
        (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
        ("ab\\", "trailing backslash at end of expression: ``"),
    ],
)
def test_what_go_rejects_is_rejected_with_gos_text(pattern: str, message: str) -> None:
    with pytest.raises(RegexError) as err:
        translate(pattern)
    assert str(err.value) == message


def test_constant_patterns_fail_at_compile_time_and_others_at_run_time() -> None:
    cache = CelCache()
    with pytest.raises(CelCompileError, match="invalid matches argument"):
        cache.compile(r'device.driver.matches("a\\Z")')
    with pytest.raises(
        CelCompileError,
        match=r"program instantiation failed: error parsing regexp: "
        r"invalid escape sequence: `\\C`",
    ):
        cache.compile(r'device.driver.find("\\C") == ""')
    sel = cache.compile('device.driver.matches(device.attributes["gpu.nvidia.com"].productName)')
    with pytest.raises(CelRuntimeError, match="error parsing regexp: missing closing \\]: `\\[x`"):
        sel.matches(gpu(productName=("string", "[x")))
    assert cache.compile(r'device.driver.matches("^gpu\\.\\x{6e}vidia")').matches(gpu())


def test_find_all_skips_an_empty_match_right_after_a_match_as_go_does() -> None:
    assert compile_regex("a*").find_all("baaac") == ["", "aaa", ""]
    assert compile_regex("").find_all("ab") == ["", "", ""]
    assert compile_regex("[0-9]+").find_all("a1b22c333", 2) == ["1", "22"]
    assert compile_regex("é|").find_all("éa") == ["é", ""]
    assert compile_regex("^a").find_all("aaa") == ["a"]


def test_backtracking_prone_patterns_run_in_linear_time() -> None:
    # Python's re needs hours for these; RE2 answers at once (no timeout involved)
    hostile = "a" * 100_000 + "!"
    assert compile_regex("(a+)+$").search(hostile) is False
    assert compile_regex("(a|aa)*b").search(hostile) is False
    assert compile_regex("(x+x+)+y").find_all("x" * 50_000) == []
    sel = CelCache().compile('device.attributes["gpu.nvidia.com"].productName.matches("^(a+)+$")')
    assert sel.matches(gpu(productName=("string", hostile))) is False


_ATOMS = st.sampled_from(["a", "b", ".", "[ab]", "[^a]", r"\d", r"\w", "(a|b)", "(?:ab)", "x"])
_OPS = st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "*?", "+?"])


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    parts=st.lists(st.tuples(_ATOMS, _OPS), min_size=1, max_size=5),
    text=st.text(alphabet="ab1x_ ", max_size=12),
)
def test_agrees_with_a_backtracking_engine_where_the_dialects_coincide(
    parts: list[tuple[str, str]], text: str
) -> None:
    pattern = "".join(a + o for a, o in parts)
    ours = compile_regex(pattern)
    theirs = re.compile(pattern)
    m = theirs.search(text)
    assert ours.find(text) == (m.group(0) if m else "")
    assert ours.search(text) is (m is not None)
