"""Cheap parameter coercion for the common cases, so a command run doesn't import pydantic.

Typer 0.29 coerces every parameter value through a pydantic ``TypeAdapter`` built on first
use; importing pydantic and building the adapters costs ~60-80 ms per process, more than
validating a small file.  :func:`install` walks the Click command tree once and gives each
Typer parameter a :class:`FastRuntimeParam`: for values whose coerced result is obvious
(a ``str`` for a ``str`` option, a tuple of ``str`` for ``list[str]``, an enum member or a
matching choice string for an ``Enum``, an in-range ``int`` for an ``int``, ``None``) it
returns exactly what Typer's adapter would return; for anything else -- including every
value Typer would reject -- it defers to Typer's own coercion, so results and error
messages are identical.

It reaches into Typer's private modules, so it runs only on the exact Typer versions it was
written and tested against (:data:`TESTED_TYPER`); on any other version :func:`install` does
nothing and Typer's own (documented) coercion runs: slower, never wrong.  CI runs the CLI
tests once more against the newest Typer to keep that fallback honest (``.ci/run``).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, get_args, get_origin

_MISSING = object()
# Typer releases whose private coercion API this module was checked against.
TESTED_TYPER = frozenset({"0.29.2"})


def install(command: Any) -> None:
    """Give every Typer parameter of ``command`` (and its subcommands) the fast coercion (only on
    a Typer of :data:`TESTED_TYPER`)."""
    import typer

    if getattr(typer, "__version__", None) not in TESTED_TYPER:
        return
    try:
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_choice
        from typer.core import _TyperParameter
    except ImportError:  # pragma: no cover - a Typer without these internals keeps its own path
        return
    fast = _fast_class(RuntimeParam, build_runtime_param, coerce_cli_choice)

    def give(param: Any) -> Any:
        if isinstance(param, _TyperParameter) and getattr(param, "_runtime_param", _MISSING) is None:
            desc = param.type_descriptor
            param._runtime_param = fast(
                parameter_info=desc.parameter_info, annotation=desc.annotation, descriptor=desc
            )
        return param

    stack = [command]
    while stack:
        cmd = stack.pop()
        for param in getattr(cmd, "params", ()):
            give(param)
        help_option = getattr(cmd, "get_help_option", None)
        if help_option is not None:  # --help is built on first use, per command
            cmd.get_help_option = lambda ctx, _get=help_option: give(_get(ctx))
        stack.extend(getattr(cmd, "commands", {}).values())


_CLASS: dict[int, type] = {}


def _fast_class(base: type, build: Any, choice: Any) -> type:
    key = id(base)
    if key in _CLASS:
        return _CLASS[key]

    class FastRuntimeParam(base):
        """A Typer runtime param that answers the obvious cases and defers the rest."""

        def __init__(self, *, parameter_info: Any, annotation: Any, descriptor: Any) -> None:
            object.__setattr__(self, "parameter_info", parameter_info)
            object.__setattr__(self, "annotation", annotation)
            object.__setattr__(self, "_descriptor", descriptor)
            object.__setattr__(self, "_slow", None)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            result = _quick(self.annotation, self.parameter_info, value, ctx, choice)
            if result is not _MISSING:
                return result
            if self._slow is None:
                object.__setattr__(self, "_slow", build(self._descriptor))
            return self._slow._coerce_value(value, param=param, ctx=ctx)

    _CLASS[key] = FastRuntimeParam
    return FastRuntimeParam


def _quick(annotation: Any, info: Any, value: Any, ctx: Any, choice: Any) -> Any:
    """Typer's coerced value when it is obvious, else ``_MISSING`` (let Typer decide)."""
    if info.parser is not None:
        return _MISSING
    if annotation is str:
        return value if type(value) is str else _MISSING
    if annotation is bool:
        return value if type(value) is bool else _MISSING
    if annotation is int or annotation is float:  # a default (--watch-interval 2.0); typed text goes to Typer
        if (
            type(value) is annotation
            and (info.min is None or value >= info.min)
            and (info.max is None or value <= info.max)
            and not info.clamp
        ):
            return value
        return _MISSING
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return choice(value, choices=tuple(annotation), case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError:
            return _MISSING
    if (
        get_origin(annotation) is list
        and get_args(annotation) == (str,)
        and isinstance(value, list | tuple)
        and all(type(v) is str for v in value)
    ):
        return list(value)
    return _MISSING
