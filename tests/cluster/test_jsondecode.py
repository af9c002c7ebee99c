"""dractl.cluster.jsondecode.loads is json.loads: the same value (of the same types) or the same
exception, for every body; msgspec answers only where it agrees."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.cluster import jsondecode
from dractl.cluster.jsondecode import loads
from dractl.cluster.transport import json_loads


def _outcome(decode: Callable[[Any], Any], body: bytes | str) -> tuple[str, Any]:
    try:
        return "value", decode(body)
    except Exception as e:
        return "error", (type(e), str(e))


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (``1 == 1.0 == True`` is not enough) and NaN
    equal to itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


_JSON_LOADS = json.loads  # the reference (tests count the calls loads makes of json.loads)


def _assert_like_json(body: bytes | str) -> tuple[str, Any]:
    ours, theirs = _outcome(loads, body), _outcome(_JSON_LOADS, body)
    assert ours[0] == theirs[0], (body[:80], ours, theirs)
    if ours[0] == "value":
        assert _same(ours[1], theirs[1]), (body[:80], ours, theirs)
    else:
        assert ours[1] == theirs[1], (body[:80], ours, theirs)
    return ours


@contextmanager
def _counted() -> Iterator[list[int]]:
    """How often json.loads answered (msgspec refused)."""
    calls = [0]

    def counting(body: Any, **kw: Any) -> Any:
        calls[0] += 1
        return _JSON_LOADS(body, **kw)

    json.loads = counting
    try:
        yield calls
    finally:
        json.loads = _JSON_LOADS


# Each: a body, and whether json.loads (not msgspec) answers it.
CASES: list[tuple[str, bytes | str, bool]] = [
    ("object", b'{"a": {"b": [1, 2.5, "x", true, false, null]}}', False),
    ("duplicate-keys-last-wins", b'{"a": 1, "b": 0, "a": 2}', False),
    ("int-64-bit", b"9223372036854775807", False),
    ("int-beyond-64-bits", b"123456789012345678901234567890", False),
    ("negative-int-beyond-64-bits", b"-18446744073709551617", False),
    ("int-over-str-digits-limit", b"1" + b"0" * 4400, True),  # json: ValueError (int_max_str_digits)
    ("negative-zero-int", b"-0", False),
    ("negative-zero-float", b"-0.0", False),
    ("float-exponent", b"[1E2, 1.5e+3, 0.1e1, 4.9e-324, 1e-400]", False),
    ("float-many-digits", b"3.141592653589793238462643383279", False),
    ("float-overflow-inf", b"1e400", True),
    ("float-overflow-negative-inf", b"-1e400", True),
    ("nan", b"NaN", True),
    ("infinity", b"[Infinity, -Infinity]", True),
    ("escaped-lone-high-surrogate", b'"\\ud800"', True),
    ("escaped-lone-low-surrogate", b'"\\udc00x"', True),
    ("escaped-surrogate-pair", b'"\\ud834\\udd1e"', False),
    ("utf8-encoded-surrogate", b'"\xed\xa0\x80"', True),  # json: surrogatepass, a lone surrogate
    ("utf8-multibyte", '"é€𝄞"'.encode(), False),
    ("nul-escape-in-key", b'{"\\u0000": 1}', False),
    ("control-character-in-string", b'"a\x01b"', True),
    ("tab-in-string", b'"a\tb"', True),
    ("utf8-bom", b'\xef\xbb\xbf{"a": 1}', True),  # json.loads(bytes) skips it
    ("utf8-bom-in-str", '\ufeff{"a": 1}', True),  # json.loads(str) refuses it
    ("utf16", '{"a": 1}'.encode("utf-16"), True),
    ("utf32", '{"a": 1}'.encode("utf-32"), True),
    ("invalid-utf8", b'"\xff"', True),
    ("trailing-data", b"{} x", True),
    ("trailing-nul", b"{}\x00", True),
    ("trailing-comma", b"[1,]", True),
    ("leading-zero", b"01", True),
    ("form-feed-whitespace", b"\x0c{}", True),
    ("surrounding-whitespace", b" \t\r\n{} \n", False),
    ("bad-escape", b'"\\x"', True),
    ("empty", b"", True),
    ("str-body", '{"a": ["b"]}', False),
    ("deep-but-fine", b"[" * 200 + b"]" * 200, False),
    ("deep", b"[" * 100_000 + b"]" * 100_000, True),
    ("deep-truncated", b'{"items": ' + b"[" * 50_000, True),
]


@pytest.mark.parametrize(("body", "fallback"), [(b, f) for _, b, f in CASES], ids=[i for i, _, _ in CASES])
def test_same_value_or_same_error_as_json_loads(body: bytes | str, fallback: bool) -> None:
    with _counted() as calls:
        _assert_like_json(body)
    assert calls[0] == (1 if fallback else 0)  # msgspec answered exactly where it agrees


def test_nesting_is_refused_where_json_loads_refuses_it() -> None:
    """Both decoders stop at the recursion limit counted from their call; ``loads`` and
    transport.json_loads must refuse from exactly the depth where json.loads did, at any stack
    depth and recursion limit."""

    def limit(decode: Callable[[bytes], Any]) -> int:
        lo, hi = 1, 20_000  # the first depth refused, by bisection (deeper is refused too)
        while lo < hi:
            mid = (lo + hi) // 2
            try:
                decode(b"[" * mid + b"]" * mid)
            except (RecursionError, ValueError):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def at_depth(n: int, decode: Callable[[bytes], Any]) -> int:
        return at_depth(n - 1, decode) if n else limit(decode)

    def reference(body: bytes) -> Any:  # json.loads, called from one frame as loads calls it
        return json.loads(body)

    def json_loads_before(body: bytes) -> Any:  # transport.json_loads as it was, on json.loads alone
        try:
            return json.loads(body)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None

    old = sys.getrecursionlimit()
    try:
        for recursion_limit in (300, 1000, 3000):
            sys.setrecursionlimit(recursion_limit)
            for depth in (0, 50, 150):
                assert at_depth(depth, loads) == at_depth(depth, reference), (recursion_limit, depth)
                assert at_depth(depth, json_loads) == at_depth(depth, json_loads_before), (
                    recursion_limit,
                    depth,
                )
    finally:
        sys.setrecursionlimit(old)


def test_a_body_nested_too_deeply_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        json_loads(b"[" * 100_000 + b"]" * 100_000)


def test_msgspec_answers_api_pages() -> None:
    """What an API server sends is msgspec's to decode (else there is no gain)."""
    assert jsondecode._FAST is not None
    page = {
        "kind": "ResourceSliceList",
        "apiVersion": "resource.k8s.io/v1",
        "metadata": {"resourceVersion": "12", "continue": "abc", "remainingItemCount": 3},
        "items": [{"metadata": {"name": "s"}, "spec": {"devices": [{"name": "gpu-0", "attributes": {}}]}}],
    }
    with _counted() as calls:
        assert _same(loads(json.dumps(page).encode()), page)
    assert calls[0] == 0


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_any_document_json_writes(doc: Any) -> None:
    """Documents json.dumps writes (with NaN, Infinity, escaped and raw non-ASCII, lone
    surrogates as escapes) read the same."""
    _assert_like_json(json.dumps(doc))
    _assert_like_json(json.dumps(doc).encode())
    _assert_like_json(json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass"))


_DIGITS = "0123456789"


@st.composite
def _number(draw: st.DrawFn) -> str:
    """A JSON number literal as the grammar allows it: sign, integer part, fraction, exponent."""
    whole = draw(st.sampled_from("123456789")) + draw(st.text(_DIGITS, max_size=30))
    text = draw(st.sampled_from(["", "-"])) + draw(st.sampled_from(["0", whole]))
    if draw(st.booleans()):
        text += "." + draw(st.text(_DIGITS, min_size=1, max_size=30))
    if draw(st.booleans()):
        text += draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "-"]))
        text += draw(st.text(_DIGITS, min_size=1, max_size=3))
    return text


@settings(max_examples=500, deadline=None)
@given(_number())
def test_any_number(text: str) -> None:
    """Number literals as the grammar allows them: the same int or the same correctly rounded float."""
    _assert_like_json(text.encode())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_any_bytes(body: bytes) -> None:
    _assert_like_json(body)
    _assert_like_json(b'{"k": "' + body + b'"}')
