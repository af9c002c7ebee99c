"""Checked cases of cel-go ext/strings_test.go (ext.Strings), run through dractl's CEL engine.

cel-go's parse-only cases (no type check) do not apply: DRA always type-checks selectors.
"""

from __future__ import annotations

import pytest
from cel_upstream import DUMMY, Case, check, not_applicable, params, rt, true

TRUE_EXPRS = [
    "'tacocat'.charAt(3) == 'o'",
    "'tacocat'.charAt(7) == ''",
    "'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && '©αT'.charAt(2) == 'T'",
    "'tacocat'.indexOf('') == 0",
    "'tacocat'.indexOf('ac') == 1",
    "'tacocat'.indexOf('none') == -1",
    "'tacocat'.indexOf('', 3) == 3",
    "'tacocat'.indexOf('a', 3) == 5",
    "'tacocat'.indexOf('at', 3) == 5",
    "'ta©o©αT'.indexOf('©') == 2",
    "'ta©o©αT'.indexOf('©', 3) == 4",
    "'ta©o©αT'.indexOf('©αT', 3) == 4",
    "'ta©o©αT'.indexOf('©α', 5) == -1",
    "'ijk'.indexOf('k') == 2",
    "'hello wello'.indexOf('hello wello') == 0",
    "'hello wello'.indexOf('ello', 6) == 7",
    "'hello wello'.indexOf('elbo room!!') == -1",
    "'hello wello'.indexOf('elbo room!!!') == -1",
    "'tacocat'.lastIndexOf('') == 7",
    "'tacocat'.lastIndexOf('at') == 5",
    "'tacocat'.lastIndexOf('none') == -1",
    "'tacocat'.lastIndexOf('', 3) == 3",
    "'tacocat'.lastIndexOf('a', 3) == 1",
    "'ta©o©αT'.lastIndexOf('©') == 4",
    "'ta©o©αT'.lastIndexOf('©', 3) == 2",
    "'ta©o©αT'.lastIndexOf('©α', 4) == 4",
    "'hello wello'.lastIndexOf('ello', 6) == 1",
    "'hello wello'.lastIndexOf('low') == -1",
    "'hello wello'.lastIndexOf('elbo room!!') == -1",
    "'hello wello'.lastIndexOf('elbo room!!!') == -1",
    "'hello wello'.lastIndexOf('hello wello') == 0",
    "'bananananana'.lastIndexOf('nana', 8) == 8",
    '"12 days 12 hours".replace("{0}", "2") == "12 days 12 hours"',
    '"{0} days {0} hours".replace("{0}", "2") == "2 days 2 hours"',
    '"{0} days {0} hours".replace("{0}", "2", 1).replace("{0}", "23") == "2 days 23 hours"',
    '"1 ©αT taco".replace("αT", "o©α") == "1 ©o©α taco"',
    '"hello world".split(" ") == ["hello", "world"]',
    '"hello world events!".split(" ", 0) == []',
    '"hello world events!".split(" ", 1) == ["hello world events!"]',
    '"o©o©o©o".split("©", -1) == ["o", "o", "o", "o"]',
    '"tacocat".substring(4) == "cat"',
    '"tacocat".substring(7) == ""',
    '"tacocat".substring(0, 4) == "taco"',
    '"tacocat".substring(4, 4) == ""',
    "'ta©o©αT'.substring(2, 6) == \"©o©α\"",
    "'ta©o©αT'.substring(7, 7) == \"\"",
    '" \\f\\n\\r\\t\\vtext  ".trim() == "text"',
    '"\\u0085\\u00a0\\u1680text".trim() == "text"',
    '"text\\u2000\\u2001\\u2002\\u2003\\u2004\\u2004\\u2006\\u2007\\u2008\\u2009".trim() == "text"',
    '"\\u200atext\\u2028\\u2029\\u202F\\u205F\\u3000".trim() == "text"',
    '"\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff".trim() == "\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff"',
]

ERRORS = [
    ("'tacocat'.charAt(30) == ''", "index out of range: 30"),
    ("'tacocat'.indexOf('a', 30) == -1", "index out of range: 30"),
    ("'tacocat'.lastIndexOf('a', -1) == -1", "index out of range: -1"),
    ("'tacocat'.lastIndexOf('a', 30) == -1", "index out of range: 30"),
    ('"tacocat".substring(40) == "cat"', "index out of range: 40"),
    ('"tacocat".substring(-1) == "cat"', "index out of range: -1"),
    ('"tacocat".substring(1, 50) == "cat"', "index out of range: 50"),
    ('"tacocat".substring(49, 50) == "cat"', "index out of range: 49"),
    ('"tacocat".substring(4, 3) == ""', r"invalid substring range\. start: 4, end: 3"),
]

CASES: list[Case] = [true(f"strings_{i}", e) for i, e in enumerate(TRUE_EXPRS)]
# The stored upstream table predates cel-go v0.27: there an offset past the end of the string
# yields -1 (the shared vectors show '"".indexOf("l", 3) == -1' and '"".lastIndexOf("l", 3) == -1'
# hold in the reference stack).
PAST_END = "cel-go v0.27 (the DRA reference) returns -1 for an offset past the end, no error"
CASES += [
    rt(f"strings_err_{i}", e, p, skip=PAST_END if "dexOf('a', 30)" in e else "")
    for i, (e, p) in enumerate(ERRORS)
]


@pytest.mark.parametrize("case", params(CASES))
def test_upstream_strings(case: Case) -> None:
    check(case)


def test_offsets_past_the_end_give_minus_one_in_dra() -> None:
    # cel-go v0.27 answers -1 where the older upstream table expected an error.
    from dractl.cel import compile_selector

    past_end = not_applicable(CASES)
    assert len(past_end) == 2
    # indexOf is pinned by the shared vectors ('"".indexOf("l", 3) == -1' holds in the reference);
    # lastIndexOf past the end is not, so it is only required not to fail.
    index_of = [c for c in past_end if ".indexOf(" in c.expr]
    assert [compile_selector(c.expr, env="stored").matches(DUMMY) for c in index_of] == [True]
    for case in past_end:
        compile_selector(case.expr, env="stored").matches(DUMMY)
