"""The (report type, format) → writer registry and :func:`render`.

Options that hold for every table of one command run (``--no-headers``) travel in a
:class:`RenderOptions` that :func:`render` makes current for the writer's call
(:func:`options`), so a writer's signature stays ``(report, console)`` and shared helpers
such as :func:`dractl.render.table.write_rows` honour them without each writer knowing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any

from dractl.errors import UsageError


class Format(StrEnum):
    """Every output format dractl knows; each report type supports a subset."""

    TABLE = "table"
    WIDE = "wide"
    NAME = "name"
    JSON = "json"
    YAML = "yaml"
    GITHUB = "github"
    JUNIT = "junit"
    SARIF = "sarif"


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """``no_headers``: tables leave out their header row (kubectl's ``--no-headers``)."""

    no_headers: bool = False


_DEFAULT_OPTIONS = RenderOptions()
_OPTIONS: ContextVar[RenderOptions] = ContextVar("dractl_render_options")


def options() -> RenderOptions:
    """The options of the render call in progress (defaults outside one)."""
    return _OPTIONS.get(_DEFAULT_OPTIONS)


@contextmanager
def using(opts: RenderOptions) -> Iterator[None]:
    token = _OPTIONS.set(opts)
    try:
        yield
    finally:
        _OPTIONS.reset(token)


Writer = Callable[[Any, Any], None]
# A writer, or "module:function" naming one (imported only when that format is rendered).
_WRITERS: dict[tuple[str, Format], Writer | str] = {}
# Modules that register writers when imported (lazily, on the first render/allowed_formats).
# A new report type's writer module is added here (one line).
PROVIDERS = [
    "dractl.render.capacity",
    "dractl.render.discover",
    "dractl.render.explain",
    "dractl.render.selector",
    "dractl.render.validation",
]
_loaded = False


def register(report_type: str, fmt: Format, writer: Writer | str) -> None:
    """Add (or replace) the writer of ``fmt`` for ``report_type``: a callable, or
    ``"package.module:function"`` to import it only when that format is rendered."""
    _WRITERS[(report_type, fmt)] = writer


def _resolve(writer: Writer | str) -> Writer:
    if callable(writer):
        return writer
    module, _, name = writer.partition(":")
    found: Writer = getattr(importlib.import_module(module), name)
    return found


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in PROVIDERS:
            importlib.import_module(name)


def allowed_formats(report_type: str) -> list[Format]:
    """The formats ``report_type`` supports, in :class:`Format` order."""
    _load()
    return [f for f in Format if (report_type, f) in _WRITERS]


def format_enum(report_type: str) -> type[Enum]:
    """A str Enum of the formats of ``report_type`` (drives ``-o`` choices, help and completion)."""
    members = {f.name: f.value for f in allowed_formats(report_type)}
    return Enum(f"{report_type.title().replace('-', '')}Format", members, type=str)  # type: ignore[return-value]


def render(
    report: Any,
    fmt: Format | str | Enum,
    console: Any,
    command: str | None = None,
    opts: RenderOptions | None = None,
) -> None:
    """Write ``report`` in ``fmt`` to ``console`` (a Rich console on stdout) with ``opts``.  Raises
    UsageError when the report type has no writer for the format."""
    _load()
    value = fmt.value if isinstance(fmt, Enum) else str(fmt)
    report_type = report.report_type
    try:
        writer = _resolve(_WRITERS[(report_type, Format(value))])
    except (ValueError, KeyError):
        allowed = ", ".join(f.value for f in allowed_formats(report_type))
        raise UsageError(
            f"--output {value} is not supported by {command or report_type}; one of: {allowed}", command
        ) from None
    with using(opts or RenderOptions()):
        writer(report if Format(value) in _EXACT else _Escaped(report), console)


# Formats whose writers get the exact document (and escape on their own, see render.sanitize);
# every other writer sees a report whose to_dict() has every input string escaped.
_EXACT = frozenset({Format.JSON, Format.YAML, Format.SARIF})


class _Escaped:
    """``report`` with ``to_dict()`` passed through :func:`dractl.render.sanitize.sanitize` (so
    no text writer can print a control character from input); other attributes delegate."""

    def __init__(self, report: Any) -> None:
        self._report = report
        self._docs: dict[tuple[tuple[str, Any], ...], Any] = {}

    def to_dict(self, **options: Any) -> Any:
        """``options``: passed on (a report's lighter document for tables, e.g. availability's
        ``table=True``); each document is escaped once."""
        key = tuple(sorted(options.items()))
        if key not in self._docs:
            from dractl.render.sanitize import sanitize

            self._docs[key] = sanitize(self._report.to_dict(**options))
        return self._docs[key]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._report, name)


def write_text(console: Any, text: str) -> None:
    """Write text (JSON, XML, annotations) to the console's file, ending with a newline.  The last
    line of defence: any unsafe character still in ``text`` (a writer that composed a message from
    input without :mod:`dractl.render.sanitize`) is escaped, newlines kept."""
    from dractl.render.sanitize import escape_block

    text = escape_block(text)
    out = console.file
    out.write(text if text.endswith("\n") or not text else text + "\n")
    out.flush()
