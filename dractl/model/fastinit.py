"""Positional constructors for the model's frozen, slotted dataclasses, for the builders.

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__`` (the class's
own ``__setattr__`` refuses); building tens of thousands of devices, that is half the cost
of decoding a slice.  :func:`fast_init` generates, once per class, a function that takes the
fields as the dataclass's ``__init__`` does (same names and order, its own defaults and
default factories) and builds the same object about three times as fast: it makes an
instance of a *twin* class (the same ``__slots__``, so the same memory layout, but not
frozen), stores the fields with plain attribute assignments (which the interpreter
specializes for slots), then gives the object its real class (``__class__`` assignment,
which CPython allows exactly between layout-compatible classes; checked once, here).
Only for classes without ``__post_init__`` or ``InitVar``/``init=False`` fields, deriving
from ``object`` alone (it refuses others), so nothing the generated ``__init__`` does is
skipped.
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
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: derives from another class")
    # the same slots as ``cls``, without its frozen __setattr__
    twin = type(f"_{cls.__name__}Twin", (), {"__slots__": cls.__dict__["__slots__"]})
    probe: Any = object.__new__(twin)
    probe.__class__ = cls  # TypeError here, not per object, if CPython disagrees on the layout
    env: dict[str, Any] = {
        "_new": object.__new__,
        "_cls": cls,
        "_twin": twin,
        "_MISSING": dataclasses.MISSING,
    }
    params, body = [], ["    self = _new(_twin)"]
    for i, f in enumerate(fields):
        if f.default is not dataclasses.MISSING:
            env[f"_d{i}"] = f.default
            params.append(f"{f.name}=_d{i}")
            body.append(f"    self.{f.name} = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_f{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    self.{f.name} = _f{i}() if {f.name} is _MISSING else {f.name}")
        else:
            params.append(f.name)
            body.append(f"    self.{f.name} = {f.name}")
    body.append("    self.__class__ = _cls")
    source = f"def make({', '.join(params)}):\n" + "\n".join(body) + "\n    return self\n"
    exec(source, env)  # generated from the dataclass's own field list
    make: Callable[..., T] = env["make"]
    make.__name__ = make.__qualname__ = f"fast_{cls.__name__}"
    return make
