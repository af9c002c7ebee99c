"""CliEnv: what every command gets from the root callback (kubectl's Factory + IOStreams).

The API a command uses (see "How to add a command" in :mod:`dractl.cli.root`)::

    env = CliEnv.of(ctx)                       # the environment of the running command
    release = env.release(kube_version, feature_gates, header)   # version + gates, warned once
    env.warn("…")                              # "Warning: …" on stderr (engines get it as warn=)
    env.render(report, output)                 # the one renderer call: registry → stdout
    raise typer.Exit(report.exit_code)         # the report owns its exit code

Consoles are built lazily, once, with Rich markup, emoji and highlighting off; stdout is for
data, stderr for diagnostics.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from dractl.io.release import Release
    from dractl.io.snapshot_header import SnapshotHeader


@dataclass
class CliEnv:
    debug: bool = False
    command: str = ""
    kube_patch: int | None = None
    _out: Console | None = field(default=None, repr=False)
    _err: Console | None = field(default=None, repr=False)

    @staticmethod
    def of(ctx: typer.Context) -> CliEnv:
        """The environment of the running command (a default one when called without the root);
        remembers the command's name (``claim validate``) for messages."""
        from dractl.cli.options import command_name

        root = ctx.find_root()
        if not isinstance(root.obj, CliEnv):
            root.obj = CliEnv()
        env: CliEnv = root.obj
        if ctx is not root:
            from dractl.cli.options import KUBE_PATCH

            env.command = command_name(ctx)
            env.kube_patch = ctx.meta.get(KUBE_PATCH)
        return env

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

    def error(self, message: str) -> None:
        """Print ``dractl: error: …`` to stderr for a partial failure the command reports after
        its output (the exit code says it failed; exceptions are for failures that stop it)."""
        self.err.print(f"dractl: error: {message}", soft_wrap=True)

    def release(
        self, kube_version: str | None, feature_gates: str | None, header: SnapshotHeader | None = None
    ) -> Release:
        """The Kubernetes release and feature gates from ``--kube-version``, ``--feature-gates`` and
        a snapshot header (:func:`dractl.io.release.resolve_release`; warnings go to stderr)."""
        from dractl.io.release import KubeVersion, resolve_release

        flag = (
            KubeVersion(kube_version, self.kube_patch)
            if kube_version and self.kube_patch is not None
            else kube_version
        )
        return resolve_release(flag, feature_gates, header, command=self.command or None, warn=self.warn)

    def render(self, report: Any, output: Any, *, no_headers: bool = False) -> None:
        """Write ``report`` in the ``-o`` format through the render registry, then each input that
        could not be read (``report.input_errors``, when it has them) as one line on stderr.
        ``no_headers`` (``--no-headers``) reaches every table the writer draws with
        ``render.table.write_rows``; so does piping (no wrapped or cut cells when stdout is not a
        terminal).  Raises UsageError when the report type has no writer for the format."""
        from dractl.render import RenderOptions, render

        render(report, output, self.out, self.command or None, RenderOptions(no_headers=no_headers))
        for error in getattr(report, "input_errors", ()):
            self.error(error.one_line())

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
