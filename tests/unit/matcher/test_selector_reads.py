"""Selector results are shared between devices that look the same *to the expression*:
``device.driver == "x"`` sees the driver only, ``device.attributes["d"].n`` one attribute.
Every shared answer must equal evaluating the expression on the device itself."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.cel.cache import CelCache
from dractl.errors import CelRuntimeError
from dractl.matcher.selection import (
    SelectorCache,
    SelectorFailure,
    SelectorFailureAt,
    convert_print,
    make_printer,
    printer,
    read_print,
)
from dractl.model.features import Features
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.model.quantity import Quantity

EXPRESSIONS = [
    'device.driver == "d"',
    'device.attributes["d"].n > 1',
    'device.attributes["d"]["n"] == 2',
    'device.attributes["d"].n == 2 && device.attributes["e"].m == \'x\'',
    'has(device.attributes["d"].n)',
    'device.attributes[?"d"].?n.orValue(0) >= 1',
    'device.attributes["d"].exists(k, k == "n")',
    '"n" in device.attributes["d"]',
    'size(device.attributes["d"]) > 1',
    'device.capacity["d"].mem.compareTo(quantity("2")) >= 0',
    "device.allowMultipleAllocations",
    '[1, 2].exists(device, device == 2) && device.driver == "d"',
    'dyn(device).driver == "d"',
    "true",
]


@st.composite
def devices(draw: st.DrawFn, i: int = 0) -> Device:
    driver = draw(st.sampled_from(["d", "e"]))
    attrs: dict[str, AttributeValue] = {}
    for name in draw(st.lists(st.sampled_from(["n", "d/n", "e/m", "m", "x", "d/x", "v", "d/v"]), max_size=4)):
        if name.endswith("v"):
            attrs[name] = AttributeValue("version", draw(st.sampled_from(["1.0.0", "bad"])))
        elif name.endswith("m"):
            attrs[name] = AttributeValue("string", draw(st.sampled_from(["x", "y"])))
        else:
            attrs[name] = AttributeValue("int", draw(st.integers(0, 3)))
    caps = {
        name: DeviceCapacity(Quantity.parse(draw(st.sampled_from(["1", "2", "3"]))))
        for name in draw(st.lists(st.sampled_from(["mem", "d/mem", "e/mem"]), max_size=2))
    }
    unknown = ("odd",) if draw(st.integers(0, 9)) == 0 else ()
    return Device(
        f"dev-{draw(st.integers(0, 10**6))}",
        driver=driver,
        attributes=attrs,
        capacity=caps,
        allow_multiple_allocations=draw(st.sampled_from([None, True, False])),
        unknown_attributes=unknown,
    )


def _direct(expression: str, device: Device) -> bool | str:
    cache = CelCache()
    try:
        return cache.matches(cache.compile(expression), device)
    except CelRuntimeError as err:
        return err.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(devices(), min_size=1, max_size=12), st.booleans())
def test_shared_results_equal_direct_evaluation(devs: list[Device], hide: bool) -> None:
    shared = SelectorCache(Features.for_version("1.37"), CelCache(), hide_multi=hide)
    for device in devs:
        for expression in EXPRESSIONS:
            try:
                got: bool | str = shared.matches(expression, device)
            except SelectorFailure as fail:
                assert not fail.compile_error
                got = fail.message
            seen = device if not hide else Device(**{**_fields(device), "allow_multiple_allocations": None})
            assert got == _direct(expression, seen), (expression, device)


def _fields(d: Device) -> dict[str, object]:
    return {name: getattr(d, name) for name in Device.__dataclass_fields__}


def test_a_driver_only_selector_is_evaluated_once_for_devices_that_differ_elsewhere() -> None:
    cache = SelectorCache(Features.for_version("1.37"), CelCache())
    devs = [Device(f"g{i}", driver="d", attributes={"index": AttributeValue("int", i)}) for i in range(50)]
    assert all(cache.matches('device.driver == "d"', d) for d in devs)
    assert cache.evaluations == 1
    assert [cache.matches('device.attributes["d"].index > 24', d) for d in devs] == [
        i > 24 for i in range(50)
    ]
    assert cache.evaluations == 1 + 50
    # a device that does not convert (a bad version attribute) is not given the shared answer
    bad = Device("bad", driver="d", attributes={"v": AttributeValue("version", "not-a-version")})
    try:
        cache.matches('device.driver == "d"', bad)
    except SelectorFailure as fail:
        assert "parse semantic version" in fail.message
    else:
        raise AssertionError("a device that does not convert must fail every selector")


def test_reads_of_expressions() -> None:
    cel = CelCache()
    assert cel.compile('device.driver == "x"').device_reads == {("driver",)}
    assert cel.compile(
        'device.attributes["d"].n > 1 || device.capacity["d"].m.isGreaterThan(quantity("0"))'
    ).device_reads == {
        ("attributes", "d", "n"),
        ("capacity", "d", "m"),
    }
    assert cel.compile('device.attributes["d"].exists(k, true)').device_reads == {("attributes",)}
    assert cel.compile("[1].exists(device, device == 1)").device_reads is None  # shadowed
    assert cel.compile("true").device_reads == frozenset()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(devices(), min_size=1, max_size=6),
    st.lists(st.sampled_from([*EXPRESSIONS, "device.attributes[", "1 + 1"]), min_size=1, max_size=4),
    st.booleans(),
)
def test_first_false_is_matches_in_turn(devs: list[Device], exprs: list[str], hide: bool) -> None:
    """The allocator's one-call form: the first false selector's index, or the first
    failure (compile or runtime) with its index, exactly as calling ``matches`` in turn."""
    features = Features.for_version("1.37")
    fast = SelectorCache(features, CelCache(), hide_multi=hide)
    slow = SelectorCache(features, CelCache(), hide_multi=hide)
    for device in devs:
        expected: object = -1
        for i, e in enumerate(exprs):
            try:
                if not slow.matches(e, device):
                    expected = i
                    break
            except SelectorFailure as fail:
                expected = (i, fail.message, fail.compile_error)
                break
        try:
            got: object = fast.first_false(tuple(exprs), device)
        except SelectorFailureAt as at:
            got = (at.index, at.failure.message, at.failure.compile_error)
        assert got == expected, (exprs, device)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(devices(), min_size=1, max_size=8),
    st.lists(st.sampled_from([*EXPRESSIONS, "device.attributes[", "1 + 1"]), min_size=1, max_size=4),
    st.booleans(),
    st.lists(st.integers(0, 7), max_size=4),
)
def test_first_false_once_is_first_false(
    devs: list[Device], exprs: list[str], hide: bool, again: list[int]
) -> None:
    """The form for a device asked about once answers as ``first_false`` (failures and all),
    evaluates nothing ``first_false`` would not, and remembers only devices it had to
    evaluate; a device asked about again (``again``) is answered the same."""
    features = Features.for_version("1.37")
    once = SelectorCache(features, CelCache(), hide_multi=hide)
    plain = SelectorCache(features, CelCache(), hide_multi=hide)

    def answer(ask: Callable[[tuple[str, ...], Device], int], device: Device) -> object:
        try:
            return ask(tuple(exprs), device)
        except SelectorFailureAt as at:
            return (at.index, at.failure.message, at.failure.compile_error)

    order = devs + [devs[i % len(devs)] for i in again]
    for device in order:
        assert answer(once.first_false_once, device) == answer(plain.first_false, device), (exprs, device)
    assert once.evaluations == plain.evaluations
    assert len(once._devices) <= len(plain._devices)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(devices(), min_size=1, max_size=6), st.booleans())
def test_a_printer_prints_as_read_print(devs: list[Device], hide: bool) -> None:
    """The per-reads printer the cache builds once gives what ``read_print`` gives (its
    TypeError is read_print's fall back to the device's id)."""
    cel = CelCache()
    reads_sets = {cel.compile(e).device_reads for e in EXPRESSIONS} - {None}
    reads_sets |= {
        frozenset({("capacity", "d", "mem"), ("attributes", "d", "n")}),
        frozenset({("capacity",)}),
    }
    for reads in reads_sets:
        assert reads is not None
        make = make_printer(reads)
        assert printer(reads) is printer(reads)
        for device in devs:
            base = convert_print(device)
            try:
                got = make(device, hide, base)
            except TypeError:
                got = ("id", id(device))
            assert got == read_print(device, reads, hide, base), (reads, device)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(devices(), min_size=1, max_size=5),
    st.lists(st.tuples(st.integers(0, 4), st.sampled_from(EXPRESSIONS), st.booleans()), max_size=16),
    st.booleans(),
)
def test_one_cache_answers_mixed_calls_as_fresh_caches(
    devs: list[Device], calls: list[tuple[int, str, bool]], hide: bool
) -> None:
    """``matches`` and ``first_false`` on one cache, in any order and on devices seen before
    (their base print and per-reads prints then come from what the other call kept), answer as
    a fresh cache does; a print is made once per device and reads."""
    features = Features.for_version("1.37")
    shared = SelectorCache(features, CelCache(), hide_multi=hide)
    for at, expression, via_first_false in calls:
        device = devs[at % len(devs)]
        fresh = SelectorCache(features, CelCache(), hide_multi=hide)
        got, expected = (_ask(c, expression, device, via_first_false) for c in (shared, fresh))
        assert got == expected, (expression, device)
    assert len(shared._devices) <= len({id(d) for d in devs})
    for prints in shared._slot_prints.values():
        assert set(prints) <= set(shared._devices)


def _ask(cache: SelectorCache, expression: str, device: Device, via_first_false: bool) -> object:
    """``first_false`` (after the driver-only selector) or ``matches``: the answer or failure."""
    try:
        if via_first_false:
            return cache.first_false((EXPRESSIONS[0], expression), device)
        return cache.matches(expression, device)
    except SelectorFailureAt as at:
        return (at.index, at.failure.message)
    except SelectorFailure as fail:
        return fail.message


def test_prints_are_kept_per_reads() -> None:
    """A device's print for one expression's reads is not taken for another's: two devices
    that agree on an attribute but not on a capacity share the attribute selector's result
    only."""
    cache = SelectorCache(Features.for_version("1.37"), CelCache())
    by_attr, by_cap = 'device.attributes["d"].n > 1', 'device.capacity["d"].mem.compareTo(quantity("2")) >= 0'
    small, big = (
        Device(
            name,
            driver="d",
            attributes={"n": AttributeValue("int", 2)},
            capacity={"mem": DeviceCapacity(Quantity.parse(mem))},
        )
        for name, mem in (("small", "1"), ("big", "3"))
    )
    for device, fits in ((small, 1), (big, -1), (small, 1)):
        assert cache.first_false((by_attr,), device) == -1
        assert cache.first_false((by_cap,), device) == (0 if fits == 1 else -1)
        assert cache.matches(by_cap, device) is (fits == -1)
    assert cache.evaluations == 1 + 2
