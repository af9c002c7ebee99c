"""CliEnv: what every command gets from the root callback (kubectl's Factory + IOStreams).

Consoles are built lazily, once, with Rich markup, emoji and highlighting off;
stdout is for data, stderr for diagnostics.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer
    from rich.console import Console


@dataclass
class CliEnv:
    debug: bool = False
    _out: Console | None = field(default=None, repr=False)
    _err: Console | None = field(default=None, repr=False)

    @staticmethod
    def of(ctx: typer.Context) -> CliEnv:
        """The environment of the running command (a default one when called without the root)."""
        root = ctx.find_root()
        if not isinstance(root.obj, CliEnv):
            root.obj = CliEnv()
        return root.obj

    @property
    def out(self) -> Console:
        if self._out is None:
            self._out = _console(stderr=False)
        return self._out

    @property
    def err(self) -> Console:
        if self._err is None:
            self._err = _console(stderr=True)
        return self._err

    def warn(self, message: str) -> None:
        """Print ``Warning: …`` to stderr (engines get this as their ``warn=`` callback)."""
        self.err.print(f"Warning: {message}", soft_wrap=True)

    def write(self, text: str) -> None:
        """Write raw text (JSON, YAML, SARIF, …) to stdout without Rich processing."""
        from dractl.render.sanitize import escape_block

        text = escape_block(text)  # JSON/YAML writers escape already; this is the backstop
        sys.stdout.write(text)
        if text and not text.endswith("\n"):
            sys.stdout.write("\n")


def _console(stderr: bool) -> Any:
    from dractl.render.sanitize import safe_console  # input strings are escaped when rendered

    return safe_console(stderr=stderr, markup=False, emoji=False, highlight=False, soft_wrap=False)
