"""Positional constructors for the model's frozen, slotted dataclasses, for the builders.

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__`` (the class's
own ``__setattr__`` refuses); building tens of thousands of devices, that is half the cost
of decoding a slice.  :func:`fast_init` generates, once per class, a function that takes the
fields as the dataclass's ``__init__`` does (same names and order, its own defaults and
default factories) and stores them into a fresh object of a plain *twin* class with the very
same slots (plain attribute stores, the interpreter's fastest), then makes the object the
dataclass's (``__class__`` assignment, which Python allows between classes of one layout and
checks): the same object, made three times as fast.  Where the twin's layout is not the
class's (a dataclass with slotted bases), the fields are stored through the class's own slot
descriptors instead.  Only for classes without ``__post_init__`` or ``InitVar``/``init=False``
fields (it refuses others), so nothing the generated ``__init__`` does is skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> Callable[..., T]:
    """``fast_init(C)(...)`` builds the same object as ``C(...)`` (same positional and keyword
    parameters)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: not a slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: has __post_init__")
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__) or any(not f.init for f in fields):
        raise TypeError(f"{cls.__name__}: has InitVar or init=False fields")
    if any(f.name.startswith("_") or f.name == "self" for f in fields):
        raise TypeError(f"{cls.__name__}: a field name would shadow the generated code's names")
    twin = _twin(cls)
    env: dict[str, Any] = {
        "_new": object.__new__,
        "_cls": cls,
        "_twin": twin,
        "_MISSING": dataclasses.MISSING,
    }
    params, body = [], [f"    self = _new({'_cls' if twin is None else '_twin'})"]
    for i, f in enumerate(fields):
        if twin is None:
            env[f"_set{i}"] = getattr(cls, f.name).__set__
        if f.default is not dataclasses.MISSING:
            env[f"_d{i}"] = f.default
            params.append(f"{f.name}=_d{i}")
            value = f.name
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_f{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            value = f"_f{i}() if {f.name} is _MISSING else {f.name}"
        else:
            params.append(f.name)
            value = f.name
        body.append(f"    self.{f.name} = {value}" if twin is not None else f"    _set{i}(self, {value})")
    if twin is not None:
        body.append("    self.__class__ = _cls")
    source = f"def make({', '.join(params)}):\n" + "\n".join(body) + "\n    return self\n"
    exec(source, env)  # generated from the dataclass's own field list
    make: Callable[..., T] = env["make"]
    make.__name__ = make.__qualname__ = f"fast_{cls.__name__}"
    return make


def _twin(cls: type) -> type | None:
    """A plain class with ``cls``'s slots, whose objects may become ``cls``'s (checked here by
    Python's own layout test on one); None where they may not."""
    if cls.__bases__ != (object,):
        return None
    twin = type(f"{cls.__name__}Twin", (), {"__slots__": tuple(cls.__dict__["__slots__"])})
    probe: Any = object.__new__(twin)
    try:
        probe.__class__ = cls
    except TypeError:  # a layout Python will not swap
        return None
    return twin
