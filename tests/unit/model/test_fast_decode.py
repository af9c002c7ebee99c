"""The decoding fast paths build exactly what the general paths build.

* ``fast_init(C)`` constructs the same object as ``C(...)`` for every model dataclass;
* ``device()`` on the usual ``{name, attributes, capacity}`` shape equals the general path
  (forced here by an extra, ignored key), for generated devices with hostile values;
* interned attribute values and quantities keep their exact types (``{bool: true}`` is
  never ``{int: 1}``) and stay correct when the bounded caches are cleared.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.model import build as b
from dractl.model import objects as o
from dractl.model import quantity as q
from dractl.model.fastinit import fast_init
from dractl.model.quantity import Quantity, QuantityError

MODEL_CLASSES = [
    c
    for c in vars(o).values()
    if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == o.__name__
]


def _other_fast_classes() -> list[type]:
    """The other classes the views build with fast_init."""
    from dractl.inventory.availability import Counts, DeviceState, PoolAvailability
    from dractl.inventory.core import HealthReport
    from dractl.inventory.health import Signal
    from dractl.model.origin import Origin

    return [DeviceState, Counts, PoolAvailability, HealthReport, Signal, Origin]


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    a: int
    b: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class _Derived(_Base):  # slotted bases: fast_init stores through the class's own slots
    c: str = "c"


def _fields(obj: Any) -> list[Any]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]


def _hashed(obj: Any) -> object:
    try:
        return hash(obj)
    except TypeError as e:  # a field of an unhashable default (a dict): the same error
        return str(e)


def _sample(f: dataclasses.Field[Any], i: int) -> Any:
    return (f.name, i)  # any value will do: the constructor does not check types


@pytest.mark.parametrize(
    "cls", [*MODEL_CLASSES, *_other_fast_classes(), _Base, _Derived], ids=lambda c: c.__name__
)
def test_fast_init_builds_the_same_object(cls: type) -> None:
    make = fast_init(cls)
    fields = dataclasses.fields(cls)
    required = [
        f for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    # only the required fields: defaults and default factories apply
    args = [_sample(f, i) for i, f in enumerate(required)]
    got, want = make(*args), cls(*args)
    assert type(got) is cls and _fields(got) == _fields(want)
    # every field, by keyword
    kwargs = {f.name: _sample(f, i) for i, f in enumerate(fields)}
    assert _fields(make(**kwargs)) == _fields(cls(**kwargs))
    # frozen as before
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(got, fields[0].name, "changed")
    # a default factory gives each object its own value
    for f in fields:
        if f.default_factory is not dataclasses.MISSING:
            assert getattr(make(*args), f.name) is not getattr(make(*args), f.name)
    with pytest.raises(TypeError):
        make(*args, *range(len(fields) + 1))  # too many arguments, as the real constructor says
    # the very object the constructor makes: equal (eq=False classes: identity), repr, hashed
    # alike, copies and pickling
    assert repr(got) == repr(want) and got.__slots__ == want.__slots__
    if cls.__eq__ is not object.__eq__:
        assert got == want
        if cls.__hash__ is not None:
            texts = [repr(a) for a in args]
            assert _hashed(make(*texts)) == _hashed(cls(*texts))
    assert copy.copy(got) == got if cls.__eq__ is not object.__eq__ else type(copy.copy(got)) is cls
    assert _fields(copy.copy(got)) == _fields(pickle.loads(pickle.dumps(got))) == _fields(want)


def test_fast_init_refuses_what_it_cannot_copy() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class PostInit:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class NotInit:
        x: int
        y: int = dataclasses.field(default=0, init=False)

    for cls in (NoSlots, PostInit, NotInit, dict):
        with pytest.raises(TypeError):
            fast_init(cls)


SCALARS = st.one_of(
    st.text(max_size=8),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, width=16),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
ATTR_KINDS = st.sampled_from([*o.ATTRIBUTE_KINDS, "bogus"])
ATTRIBUTE = st.one_of(
    st.dictionaries(ATTR_KINDS, SCALARS, max_size=2), SCALARS, st.just({"string": "NVIDIA H100"})
)
CAPACITY = st.one_of(
    st.fixed_dictionaries({"value": st.sampled_from(["80Gi", "1", "0.5", 7, "1e3"])}),
    st.fixed_dictionaries(
        {"value": st.sampled_from(["80Gi", "4"]), "requestPolicy": st.just({"default": "1Gi"})}
    ),
    st.just({}),
)
DEVICE = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.text(max_size=6), st.integers()),
        "attributes": st.one_of(st.dictionaries(st.text(max_size=6), ATTRIBUTE, max_size=4), SCALARS),
        "capacity": st.one_of(st.dictionaries(st.text(max_size=6), CAPACITY, max_size=2), st.none()),
    },
)


@settings(max_examples=300, deadline=None)
@given(DEVICE)
def test_plain_devices_decode_as_the_general_path_does(raw: dict[str, Any]) -> None:
    general = b.device({**raw, "ignoredByTheModel": True}, "drv", "pool")  # not the plain shape
    assert b.device(raw, "drv", "pool") == general
    b._ATTRIBUTES.clear()
    b._CAPACITIES.clear()
    assert b.device(raw, "drv", "pool") == general  # cold caches: the same


def test_interned_attributes_keep_their_types() -> None:
    one, true = b.attribute({"int": 1}), b.attribute({"bool": True})
    assert (one.kind, type(one.value)) == ("int", int)
    assert (true.kind, type(true.value)) == ("bool", bool)
    assert b.attribute({"bool": True}) is true  # shared
    assert b.attribute({"int": True}).value is True  # a wrong-typed value is kept as given
    assert type(b.attribute({"int": 1.0}).value) is float
    attrs, unknown = b._attributes({"a": {"int": 1}, "b": {"bool": True}, "c": {}, "d": {"string": None}})
    assert attrs == {"a": one, "b": true} and unknown == ("c", "d")
    assert type(attrs["a"].value) is int and type(attrs["b"].value) is bool


def test_intern_caches_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(b, "_INTERN_MAX", 4)
    monkeypatch.setattr(q, "_PARSED_MAX", 4)
    b._ATTRIBUTES.clear()
    for i in range(20):
        assert b.attribute({"string": f"v{i}"}) == o.AttributeValue("string", f"v{i}")
        assert b.device({"capacity": {"m": {"value": f"{i}Gi"}}}).capacity["m"].value == Quantity(
            i * 2**30, 0, "BinarySI"
        )
        assert Quantity.parse(f"{i}k").unscaled == i
    assert len(b._ATTRIBUTES) <= 4 and len(b._CAPACITIES) <= 4 and len(q._PARSED) <= 4


def test_parsed_quantities_are_shared_and_errors_are_not_kept() -> None:
    assert Quantity.parse("80Gi") is Quantity.parse("80Gi")
    assert Quantity.parse("80Gi").format == "BinarySI" and Quantity.parse("1.5").dec is False
    for _ in range(2):
        with pytest.raises(QuantityError):
            Quantity.parse("80 Gi")
    assert "80 Gi" not in q._PARSED
    with pytest.raises(QuantityError):
        Quantity.parse(True)  # type: ignore[arg-type]


STRINGISH = st.one_of(st.text(max_size=5), st.integers(), st.none(), st.booleans())
RESULT = st.fixed_dictionaries(
    {},
    optional={"request": STRINGISH, "driver": STRINGISH, "pool": STRINGISH, "device": STRINGISH},
)


@settings(max_examples=200, deadline=None)
@given(st.lists(RESULT, max_size=3), st.one_of(st.none(), st.just([{"opaque": {"driver": "d"}}])))
def test_plain_allocation_results_decode_as_the_general_path_does(
    results: list[dict[str, Any]], configs: Any
) -> None:
    raw = {"devices": {"results": results, **({"config": configs} if configs is not None else {})}}
    general = {"devices": {**raw["devices"], "results": [{**r, "adminAccess": None} for r in results]}}
    assert b.allocation(raw) == b.allocation(general)


META = st.fixed_dictionaries(
    {},
    optional={
        "name": STRINGISH,
        "namespace": STRINGISH,
        "labels": st.one_of(st.dictionaries(st.text(max_size=3), STRINGISH, max_size=2), STRINGISH),
        "annotations": st.one_of(st.dictionaries(st.text(max_size=3), STRINGISH, max_size=2), STRINGISH),
        "ownerReferences": st.one_of(
            st.lists(st.one_of(st.just({"kind": "Pod"}), STRINGISH), max_size=2), STRINGISH
        ),
        "generation": STRINGISH,
    },
)


@settings(max_examples=200, deadline=None)
@given(META)
def test_metadata_decodes_field_by_field(raw: dict[str, Any]) -> None:
    """meta() against the field-by-field meaning: wrong types read as absent."""
    m = b.meta(raw)

    def s(v: Any) -> str:
        return v if isinstance(v, str) else ""

    def strmap(v: Any) -> dict[str, str]:
        return {k: x for k, x in v.items() if isinstance(x, str)} if isinstance(v, dict) else {}

    owners = raw.get("ownerReferences")
    generation = raw.get("generation")
    assert (m.name, m.namespace, m.labels, m.annotations) == (
        s(raw.get("name")),
        s(raw.get("namespace")),
        strmap(raw.get("labels")),
        strmap(raw.get("annotations")),
    )
    assert m.owner_references == (
        tuple(x for x in owners if isinstance(x, dict)) if isinstance(owners, list) else ()
    )
    assert m.generation == (generation if type(generation) is int else 0)
    assert m.uid == "" and m.creation_timestamp is None


EXACTLY = st.fixed_dictionaries(
    {},
    optional={"deviceClassName": STRINGISH, "allocationMode": STRINGISH, "count": STRINGISH},
)
PLAIN_REQUEST = st.fixed_dictionaries({"name": STRINGISH, "exactly": st.one_of(EXACTLY, STRINGISH)})


@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN_REQUEST, max_size=3))
def test_plain_claim_specs_are_shared_and_decode_as_the_general_path_does(requests: list[Any]) -> None:
    raw = {"devices": {"requests": requests}}
    general = b._claim_spec(raw["devices"])  # never shared
    got = b.claim_spec(raw)
    assert got == general
    b._SPECS.clear()
    assert b.claim_spec(raw) == general  # cold cache: the same
    if b._plain_spec_key(raw["devices"]) is not None:
        assert b.claim_spec({"devices": {"requests": [dict(r) for r in requests]}}) is b.claim_spec(raw)
    # the key tells True from 1 (a bool count is no count: the general path reads it as absent)
    plain = {"name": "r", "exactly": {"deviceClassName": "c", "count": 1}}
    assert b._plain_spec_key({"requests": [plain]}) == ("r", "c", None, 1)
    assert (
        b._plain_spec_key({"requests": [{**plain, "exactly": {"deviceClassName": "c", "count": True}}]})
        is None
    )
