"""Help that reads like kubectl's: no Python type names in ``--help``.

Typer 0.29 prints an argument as ``NAME <str>`` (its type after the metavar, always) and an
option without a metavar as ``--namespace <str>``.  :func:`install` makes arguments show only
their metavar and options fall back to a word for the value (``N`` for integers, ``NUMBER`` for
floats, else the option's name in capitals, e.g. ``NAMESPACE``); choices stay as
``<table|json|yaml>``.  Installed once by :func:`dractl.cli.root.build_app`, so ``--help``, man
pages and completion all see the same names.
"""

from __future__ import annotations

from typing import Any

_INSTALLED = False


def value_word(param: Any) -> str:
    """The metavar for an option that declares none."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    inner = getattr(annotation, "__args__", None)
    base = inner[0] if inner and getattr(annotation, "__origin__", None) is list else annotation
    if base is int:
        return "N"
    if base is float:
        return "NUMBER"
    long = next((o for o in param.opts if o.startswith("--")), param.opts[0] if param.opts else param.name)
    return long.lstrip("-").upper()


def install() -> None:
    """Patch Typer's help classes (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    from typer.core import TyperArgument, TyperOption

    original = TyperOption.display_type_rich

    def option_type(self: Any, ctx: Any) -> str | None:
        shown = original(self, ctx)
        if self.metavar is None and shown and "|" not in shown and shown.startswith("<"):
            return value_word(self) + ("..." if shown.endswith("...") else "")
        return shown

    TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]
    TyperOption.display_type_rich = option_type  # type: ignore[method-assign]
    _INSTALLED = True
