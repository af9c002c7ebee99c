"""ext.Strings v2, ext.Sets, ext.Lists and the Kubernetes lists functions (regexes: dractl.cel.lib.regex)."""

from __future__ import annotations

import itertools
from typing import Any

from dractl.cel.values import (
    NONE,
    EvalError,
    OptionalVal,
    UInt,
    compare,
    equals,
    is_num,
    no_overload,
)

_UNICODE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _s(v: Any, fn: str) -> str:
    if type(v) is not str:
        raise no_overload(fn)
    return v


def _i(v: Any, fn: str) -> int:
    if type(v) is not int:
        raise no_overload(fn)
    return v


def char_at(s: Any, i: Any) -> str:
    s, i = _s(s, "charAt"), _i(i, "charAt")
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return s[i : i + 1]


def index_of(s: Any, sub: Any, *off: Any) -> int:
    """cel-go's ``indexOf``: an offset at or past the end is -1; a negative one is an error."""
    if type(s) is list:
        return list_index_of(s, sub)
    s, sub = _s(s, "indexOf"), _s(sub, "indexOf")
    start = _i(off[0], "indexOf") if off else 0
    if start < 0:
        raise EvalError(f"index out of range: {start}")
    if sub == "":
        return start if start <= len(s) else -1
    if start >= len(s):
        return -1
    return s.find(sub, start)


def last_index_of(s: Any, sub: Any, *off: Any) -> int:
    """cel-go's ``lastIndexOf``: searches backwards from the offset (default: the end); an
    offset at or past the end is -1 (not clamped), a negative one an error."""
    if type(s) is list:
        return list_last_index_of(s, sub)
    s, sub = _s(s, "lastIndexOf"), _s(sub, "lastIndexOf")
    if not off:
        return len(s) if sub == "" else s.rfind(sub)
    end = _i(off[0], "lastIndexOf")
    if end < 0:
        raise EvalError(f"index out of range: {end}")
    if sub == "":
        return end if end <= len(s) else -1
    if end >= len(s):
        return -1
    end = min(end, len(s) - len(sub))
    return s.rfind(sub, 0, end + len(sub)) if end >= 0 else -1


def _ascii(s: str, upper: bool) -> str:
    if upper:
        return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s)
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def lower_ascii(s: Any) -> str:
    return _ascii(_s(s, "lowerAscii"), False)


def upper_ascii(s: Any) -> str:
    return _ascii(_s(s, "upperAscii"), True)


def replace(s: Any, old: Any, new: Any, *n: Any) -> str:
    s, old, new = _s(s, "replace"), _s(old, "replace"), _s(new, "replace")
    count = _i(n[0], "replace") if n else -1
    return s.replace(old, new, count if count >= 0 else -1)


def split(s: Any, sep: Any, *n: Any) -> list[str]:
    s, sep = _s(s, "split"), _s(sep, "split")
    limit = _i(n[0], "split") if n else -1
    if limit == 0:
        return []
    if sep == "":
        chars = list(s)
        if 0 < limit < len(chars):
            return [*chars[: limit - 1], "".join(chars[limit - 1 :])]
        return chars
    return s.split(sep, limit - 1) if limit > 0 else s.split(sep)


def substring(s: Any, start: Any, *end: Any) -> str:
    s, b = _s(s, "substring"), _i(start, "substring")
    e = _i(end[0], "substring") if end else len(s)
    if b < 0 or b > len(s):
        raise EvalError(f"index out of range: {b}")
    if end:
        if e < b:
            raise EvalError(f"invalid substring range. start: {b}, end: {e}")
        if e > len(s):
            raise EvalError(f"index out of range: {e}")
    return s[b:e]


def trim(s: Any) -> str:
    return _s(s, "trim").strip(_UNICODE_SPACE)


def join(lst: Any, *sep: Any) -> str:
    if type(lst) is not list:
        raise no_overload("join")
    sp = _s(sep[0], "join") if sep else ""
    for x in lst:
        if type(x) is not str:
            raise no_overload("join")
    return sp.join(lst)


def quote(s: Any) -> str:
    s = _s(s, "strings.quote")
    esc = {
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\v": "\\v",
        "\\": "\\\\",
        '"': '\\"',
    }
    return '"' + "".join(esc.get(c, c) for c in s) + '"'


# -- sets --------------------------------------------------------------------------------------
def _in(x: Any, lst: list[Any]) -> bool:
    return any(equals(x, y) is True for y in lst)


def sets_contains(a: Any, b: Any) -> bool:
    return all(_in(x, a) for x in b)


def sets_equivalent(a: Any, b: Any) -> bool:
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a: Any, b: Any) -> bool:
    return any(_in(x, b) for x in a)


# -- lists -------------------------------------------------------------------------------------
def _l(v: Any, fn: str) -> list[Any]:
    if type(v) is not list:
        raise no_overload(fn)
    return v


def list_slice(lst: Any, start: Any, end: Any) -> list[Any]:
    lst, b, e = _l(lst, "slice"), _i(start, "slice"), _i(end, "slice")
    if b < 0 or e < 0:
        raise EvalError(f"cannot slice({b}, {e}), negative indexes not supported")
    if b > e:
        raise EvalError(f"cannot slice({b}, {e}), start index must be less than or equal to end index")
    if e > len(lst):
        raise EvalError(f"cannot slice({b}, {e}), list is length {len(lst)}")
    return lst[b:e]


def flatten(lst: Any, *depth: Any) -> list[Any]:
    lst = _l(lst, "flatten")
    d = _i(depth[0], "flatten") if depth else 1
    if d < 0:
        raise EvalError("level must be non-negative")
    out: list[Any] = []
    for x in lst:
        if type(x) is list and d > 0:
            out += flatten(x, d - 1)
        else:
            out.append(x)
    return out


def lists_range(n: Any) -> list[int]:
    return list(range(_i(n, "lists.range")))


def distinct(lst: Any) -> list[Any]:
    out: list[Any] = []
    for x in _l(lst, "distinct"):
        if not _in(x, out):
            out.append(x)
    return out


def reverse(lst: Any) -> list[Any]:
    return list(reversed(_l(lst, "reverse")))


def _sort_key_check(lst: list[Any]) -> None:
    if lst:
        t0 = type(lst[0])
        if not all(type(x) is t0 or (is_num(x) and is_num(lst[0])) for x in lst):
            raise EvalError("list elements must have the same type")


def sort(lst: Any) -> list[Any]:
    lst = _l(lst, "sort")
    _sort_key_check(lst)
    import functools

    return sorted(lst, key=functools.cmp_to_key(lambda a, b: compare(a, b, "sort")))


def sort_by_keys(lst: Any, keys: Any) -> list[Any]:
    lst, keys = _l(lst, "sortBy"), _l(keys, "sortBy")
    _sort_key_check(keys)
    import functools

    key = functools.cmp_to_key(lambda i, j: compare(keys[i], keys[j], "sortBy"))
    order = sorted(range(len(lst)), key=key)
    return [lst[i] for i in order]


def first(lst: Any) -> OptionalVal:
    lst = _l(lst, "first")
    return OptionalVal(True, lst[0]) if lst else NONE


def last(lst: Any) -> OptionalVal:
    lst = _l(lst, "last")
    return OptionalVal(True, lst[-1]) if lst else NONE


def is_sorted(lst: Any) -> bool:
    lst = _l(lst, "isSorted")
    return all(compare(a, b, "isSorted") <= 0 for a, b in itertools.pairwise(lst))


def list_sum(lst: Any) -> Any:
    lst = _l(lst, "sum")
    from dractl.cel.stdlib import add

    if not lst:
        return 0
    total = lst[0]
    for x in lst[1:]:
        total = add(total, x)
    return total


def list_min(lst: Any) -> Any:
    lst = _l(lst, "min")
    if not lst:
        raise EvalError("min called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if compare(x, best, "min") < 0:
            best = x
    return best


def list_max(lst: Any) -> Any:
    lst = _l(lst, "max")
    if not lst:
        raise EvalError("max called on empty list")
    best = lst[0]
    for x in lst[1:]:
        if compare(x, best, "max") > 0:
            best = x
    return best


def list_index_of(lst: list[Any], x: Any) -> int:
    for i, y in enumerate(lst):
        if equals(x, y) is True:
            return i
    return -1


def list_last_index_of(lst: list[Any], x: Any) -> int:
    for i in range(len(lst) - 1, -1, -1):
        if equals(x, lst[i]) is True:
            return i
    return -1


def map_insert(m: Any, k: Any, *v: Any) -> dict[Any, Any]:
    if not isinstance(m, dict):
        raise no_overload("cel.@mapInsert")
    out = dict(m)
    if v:
        if k in out:
            raise EvalError(f"insert failed: key {k} already exists")
        out[k] = v[0]
        return out
    if not isinstance(k, dict):
        raise no_overload("cel.@mapInsert")
    for kk, vv in k.items():
        if kk in out:
            raise EvalError(f"insert failed: key {kk} already exists")
        out[kk] = vv
    return out


def starts_with(s: Any, p: Any) -> bool:
    return _s(s, "startsWith").startswith(_s(p, "startsWith"))


def ends_with(s: Any, p: Any) -> bool:
    return _s(s, "endsWith").endswith(_s(p, "endsWith"))


def contains(s: Any, p: Any) -> bool:
    return _s(p, "contains") in _s(s, "contains")


__all__ = ["UInt"]
