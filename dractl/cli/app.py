"""The console script's entry point and the one error boundary (``main``).

``dractl --version`` is answered before Typer or any command module is
imported; the command tree lives in :mod:`dractl.cli.root`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Sequence

from dractl import __version__
from dractl.cli import process
from dractl.errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, DractlError, UsageError

# A command builds a large, acyclic heap (a 1,000-node snapshot is millions of objects) and
# exits: with Python's default thresholds the cyclic collector re-walks that heap over and
# over (~25% of explain-allocation's run time).  Collect young objects far less often.
GC_THRESHOLD = (50_000, 20, 100)


def main(argv: Sequence[str] | None = None, *, prog_name: str = "dractl") -> int:
    """Run dractl; return (and exit with) the process exit code.  The one error boundary.
    ``prog_name``: the name usage lines show (``kubectl dra`` for the kubectl plugin)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        _safe_streams()
        process.ends_with_exit()  # what commands keep for the end (dractl.cli.process)
    bad = _not_utf8(args)
    if bad is not None:
        sys.stderr.write(f"dractl: error: {bad}\n")
        return _exit(EXIT_INPUT, argv)
    if args[:1] == ["--version"]:
        sys.stdout.write(f"dractl {__version__}\n")
        return _exit(0, argv)
    first_word = next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))
    threshold = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        code = _run(
            args,
            "--debug" in args[:first_word],
            real_process=argv is None,
            prog_name=prog_name,
            # only the command's module when nothing before it asks for the root's help
            name=args[first_word]
            if first_word < len(args) and set(args[:first_word]) <= {"--debug"}
            else None,
        )
    finally:
        gc.set_threshold(*threshold)
    return _exit(code, argv)


def _safe_streams() -> None:
    """Output never fails on encoding: what the terminal's encoding can't show becomes an escape."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def _not_utf8(args: list[str]) -> str | None:
    """The error for the first argument that is not valid UTF-8 (Python decodes such bytes to lone
    surrogates), or None."""
    for i, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            try:  # the bytes as given: \xff for each one that is not UTF-8
                shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            except UnicodeEncodeError:
                shown = arg.encode("utf-8", "backslashreplace").decode("ascii")
            from dractl.render.sanitize import escape, excerpt

            return f"argument {i} is not valid UTF-8: {excerpt(escape(shown))}"
    return None


def _exit(code: int, argv: Sequence[str] | None) -> int:
    if argv is None:
        sys.stdout.flush()
        # The process ends now.  Python's shutdown runs full collections over everything still
        # alive (0.2-0.4 s after a 1,000-node snapshot); frozen objects are skipped, and their
        # memory goes back with the process.
        gc.freeze()
        _end_now(code)
        raise SystemExit(code)
    return code


def _end_now(code: int) -> None:
    """End the process with ``code`` without tearing its heap down (freeing a 5,000-node
    cluster's ~300 MB of objects one by one takes ~0.1 s): what Python's shutdown does that can be
    seen — other threads waited for, ``atexit`` handlers run, stdout and stderr flushed — then
    ``os._exit``.  Only the console script's process (``main()`` without arguments) ends here.
    Returns (and lets Python's own shutdown run, as it always did) when a non-daemon thread is
    still running or a stream does not flush: that shutdown reports it in its own words."""
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()
    ):
        return
    import atexit

    atexit._run_exitfuncs()  # and cleared: Python's shutdown does not run them again
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return
    os._exit(code & 0xFF)


def _run(
    args: list[str],
    debug: bool,
    real_process: bool = False,
    prog_name: str = "dractl",
    name: str | None = None,
) -> int:
    """Build the command tree (only the module of the command ``name`` when it names one: see
    :data:`dractl.cli.root.MODULE_OF`) and run it, mapping every outcome to an exit code."""
    import typer

    try:
        from typer._click import exceptions as click  # typer 0.29 vendors Click
    except ImportError:  # pragma: no cover - a Typer that depends on Click again
        from click import exceptions as click  # type: ignore[no-redef]

    try:
        import typer.main

        from dractl.cli.coercion import install
        from dractl.cli.root import build_app

        app = build_app(name)
        command = typer.main.get_command(app)
        install(command)  # coerce common values without importing pydantic
        result = command.main(args=args, prog_name=prog_name, standalone_mode=False)
        return result if isinstance(result, int) else 0
    except typer.Exit as e:
        return int(e.exit_code)
    except typer.Abort:
        sys.stderr.write("dractl: aborted\n")
        return EXIT_INTERRUPTED
    except click.NoArgsIsHelpError as e:
        sys.stderr.write(e.format_message() + "\n")
        return EXIT_INPUT
    except click.UsageError as e:
        cmd = e.ctx.command_path if e.ctx is not None else _command_path(command, args)
        text = e.format_message()
        if isinstance(e, click.BadParameter):  # Typer's/pydantic's wording → kubectl's
            from dractl.cli.usage_messages import bad_parameter

            text = bad_parameter(e, args) or text
        sys.stderr.write(f"dractl: error: {_safe(text)}\nSee '{_safe(cmd)} --help'.\n")
        return EXIT_INPUT
    except click.ClickException as e:
        sys.stderr.write(f"dractl: error: {_safe(e.format_message())}\n")
        return e.exit_code
    except UsageError as e:
        if debug:
            _traceback()
        hint = f"\nSee 'dractl {_safe(e.command)} --help'." if e.command else ""
        sys.stderr.write(f"dractl: error: {_safe(e.one_line())}{hint}\n")
        return e.exit_code
    except DractlError as e:
        if debug:
            _traceback()
        sys.stderr.write(f"dractl: error: {_safe(e.one_line())}\n")
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("\ndractl: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        if real_process:  # never redirect the caller's stdout when embedded (tests, other tools)
            _quiet_broken_pipe()
        return 0
    except Exception as e:
        if debug:
            _traceback()
        sys.stderr.write(
            f"dractl: internal error: {type(e).__name__}: {_safe(str(e))} (rerun with --debug)\n"
        )
        return EXIT_INTERNAL


def _safe(text: str) -> str:
    """An error line as the boundary prints it: input escaped (render.sanitize), long values cut."""
    from dractl.render.sanitize import escape_message, excerpt

    return escape_message(excerpt(text, 2000))


def _command_path(command: object, args: list[str]) -> str:
    """``dractl`` plus the subcommand words that lead ``args`` (for errors raised without a context)."""
    path = ["dractl"]
    for word in args:
        subs = getattr(command, "commands", None)
        if word.startswith("-") or not isinstance(subs, dict) or word not in subs:
            break
        path.append(word)
        command = subs[word]
    return " ".join(path)


def _traceback() -> None:
    from rich.console import Console

    Console(stderr=True, markup=False, emoji=False, highlight=False).print_exception(show_locals=True)


def _quiet_broken_pipe() -> None:
    # Python flushes stdout at exit and would complain again: point it at /dev/null.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":  # pragma: no cover
    main()
