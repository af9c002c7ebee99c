"""matchAttribute / distinctAttribute: add and remove, scalar and list semantics."""

from __future__ import annotations

from matcher_builders import dev, slice_

from dractl.matcher.constraints import DistinctAttribute, MatchAttribute, lookup


def _devices(*attrs: dict) -> list:
    s = slice_("s", [dev(f"d{i}", attrs=a) for i, a in enumerate(attrs)])
    return list(s.devices)


def test_lookup_by_qualified_or_driver_domain_name() -> None:
    (d,) = _devices({"numa": 1})
    assert lookup(d, "driver-a/numa") is not None
    assert lookup(d, "other/numa") is None


def test_match_attribute_scalar_add_remove() -> None:
    d0, d1, d2 = _devices({"numa": 0}, {"numa": 1}, {"numa": 0})
    m = MatchAttribute((), "driver-a/numa", list_types=False)
    assert m.add("r", "", d0) and not m.add("r", "", d1) and m.add("r", "", d2)
    m.remove("r", "", d2)
    m.remove("r", "", d0)
    assert m.count == 0 and m.add("r", "", d1)  # empty again: any value starts a set


def test_match_attribute_ignores_other_requests() -> None:
    d0, d1 = _devices({"numa": 0}, {})
    m = MatchAttribute(("a", "b/x"), "driver-a/numa", list_types=False)
    assert m.add("c", "", d1)  # not covered
    assert not m.add("a", "", d1)  # covered, no attribute
    assert m.add("b", "x", d0)  # covered via its subrequest name


def test_match_attribute_list_types_intersect() -> None:
    d0, d1, d2 = _devices({"links": [1, 2]}, {"links": [2, 3]}, {"links": [1]})
    m = MatchAttribute((), "driver-a/links", list_types=True)
    assert m.add("r", "", d0) and m.add("r", "", d1)
    assert not m.add("r", "", d2)  # common set is now {2}


def test_distinct_attribute_scalar_and_lists() -> None:
    d0, d1, d2 = _devices({"m": "a"}, {"m": "a"}, {"m": "b"})
    c = DistinctAttribute((), "driver-a/m", list_types=False)
    assert c.add("r0", "", d0) and not c.add("r1", "", d1) and c.add("r1", "", d2)
    l0, l1, l2 = _devices({"m": ["a", "b"]}, {"m": ["b"]}, {"m": ["c"]})
    lc = DistinctAttribute((), "driver-a/m", list_types=True)
    assert lc.add("r0", "", l0) and not lc.add("r1", "", l1) and lc.add("r1", "", l2)
