"""Write man/ — dractl(1) and one page per command (dractl-explain-allocation(1), …) — from the
CLI itself: each command's help, options (as --help prints them), examples, exit status,
environment and files.  Tests fail when man/ is stale; pages ship in the wheel (share/man/man1).

Usage: python scripts/gen_man.py [--check]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

MAN_DIR = REPO / "man"

EXIT_STATUS = [
    ("0", "Success (warnings allowed); the claim fits; the manifest was written."),
    ("1", "Error-level findings, or not allocatable (or any warning with --strict)."),
    ("2", "Usage or input error: a bad flag, an unreadable or malformed input."),
    ("3", "Cluster or API error."),
    ("70", "Internal error (rerun with --debug for the traceback)."),
    ("130", "Interrupted."),
]
ENVIRONMENT = [
    ("KUBECONFIG", "Kubeconfig files to read (as kubectl); default ~/.kube/config."),
    ("NO_COLOR", "When set, no colour in tables."),
    ("COLUMNS", "Terminal width for tables."),
    ("XDG_CACHE_HOME", "Base directory of the completion cache (default ~/.cache)."),
    ("DRACTL_COMPLETION_TIMEOUT", "Seconds shell completion waits for names (default 2)."),
]
FILES = [
    ("~/.kube/config", "The default kubeconfig."),
    ("$XDG_CACHE_HOME/dractl/completion/", "Cached names for shell completion."),
]


def _esc(text: str) -> str:
    """Roff-escape running text: backslashes, leading dots/quotes, non-ASCII as \\[uXXXX]."""
    text = text.replace("\\", "\\e")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def _opt(text: str) -> str:
    """Option names and commands: hyphens are minus signs (so they can be copied and searched)."""
    return _esc(text).replace("-", "\\-")


def _commands(cmd: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    subs = getattr(cmd, "commands", None)
    if isinstance(subs, dict):
        for name, sub in sorted(subs.items()):
            if not sub.hidden:
                yield from _commands(sub, (*path, name))
    else:
        yield path, cmd


def _paragraphs(text: str) -> list[str]:
    text = "\n".join(line for line in text.splitlines() if line.strip() != "\b")
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]


def _examples(epilog: str) -> list[str]:
    out: list[str] = []
    text = epilog.replace("\\\n", "\\\\\n")
    lines = [line for line in text.splitlines() if line.strip() not in ("\b", "Examples:")]
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            out += [".PP", _esc(stripped.lstrip("# ").strip())]
        else:
            out += [".PP", ".RS 4", ".nf", _opt(stripped.replace("\\\\", "\\")), ".fi", ".RE"]
    return out


def _header(name: str, summary: str, version: str) -> list[str]:
    return [
        f'.TH "{name.upper()}" "1" "" "dractl {version}" "dractl manual"',
        ".SH NAME",
        f"{_opt(name)} \\- {_esc(summary)}",
    ]


def _section(title: str, rows: list[tuple[str, str]], bold: bool = True) -> list[str]:
    out = [f'.SH "{title}"']
    for key, text in rows:
        out += [".TP", f"\\fB{_opt(key)}\\fR" if bold else _opt(key), _esc(text)]
    return out


def command_page(path: tuple[str, ...], cmd: Any, root: Any, version: str) -> str:
    from typer._click import Context

    words = " ".join(path)
    parent = Context(root, info_name="dractl")
    ctx = Context(cmd, info_name=f"dractl {words}", parent=parent)
    paragraphs = _paragraphs(cmd.help or "")
    summary = paragraphs[0].rstrip(".") if paragraphs else words
    lines = _header(f"dractl-{'-'.join(path)}", summary, version)
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    lines += [".SH SYNOPSIS", f"\\fBdractl {_opt(words)}\\fR {_opt(usage)}"]
    lines += [".SH DESCRIPTION"] + [x for p in paragraphs for x in (".PP", _esc(p))]
    records = [p.get_help_record(ctx) for p in cmd.get_params(ctx) if p.param_type_name == "option"]
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    if args:
        lines += [".SH ARGUMENTS"]
        for a in args:
            lines += [
                ".TP",
                f"\\fI{_opt(a.metavar or a.name.upper())}\\fR",
                _esc(getattr(a, "help", "") or ""),
            ]
    lines += [".SH OPTIONS"]
    for record in records:
        if record:
            lines += [".TP", f"\\fB{_opt(record[0])}\\fR", _esc(" ".join(record[1].split()))]
    if "Examples:" in (cmd.epilog or ""):
        lines += [".SH EXAMPLES", *_examples(cmd.epilog or "")]
    lines += _section("EXIT STATUS", EXIT_STATUS)
    lines += _section("ENVIRONMENT", ENVIRONMENT)
    lines += _section("FILES", FILES, bold=False)
    lines += ['.SH "SEE ALSO"', "\\fBdractl\\fR(1), \\fBkubectl\\fR(1)"]
    return "\n".join(lines) + "\n"


def root_page(root: Any, commands: list[tuple[tuple[str, ...], Any]], version: str) -> str:
    lines = _header("dractl", "a toolkit for Kubernetes Dynamic Resource Allocation (DRA)", version)
    lines += [
        ".SH SYNOPSIS",
        "\\fBdractl\\fR [\\fB\\-\\-debug\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        "\\fBdractl \\-\\-version\\fR",
        ".SH DESCRIPTION",
    ]
    lines += [
        x for p in _paragraphs(root.help or "")[1:] or _paragraphs(root.help or "") for x in (".PP", _esc(p))
    ]
    lines += [
        ".PP",
        "Also a kubectl plugin: with \\fBkubectl\\-dra\\fR on PATH, \\fBkubectl dra\\fR "
        "\\fICOMMAND\\fR runs \\fBdractl\\fR \\fICOMMAND\\fR.",
    ]
    lines += [".SH COMMANDS"]
    for path, cmd in commands:
        summary = (_paragraphs(cmd.help or "") or [""])[0]
        lines += [".TP", f"\\fBdractl\\-{_opt('-'.join(path))}\\fR(1)", _esc(summary)]
    lines += _section("EXIT STATUS", EXIT_STATUS) + _section("ENVIRONMENT", ENVIRONMENT)
    lines += _section("FILES", FILES, bold=False)
    see = ", ".join(f"\\fBdractl\\-{_opt('-'.join(p))}\\fR(1)" for p, _ in commands)
    lines += ['.SH "SEE ALSO"', see + ", \\fBkubectl\\fR(1)"]
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name → page text, for the CLI as it is now."""
    import typer.main

    from dractl import __version__
    from dractl.cli.root import build_app

    root = typer.main.get_command(build_app())
    commands = list(_commands(root))
    out = {"dractl.1": root_page(root, commands, __version__)}
    for path, cmd in commands:
        out[f"dractl-{'-'.join(path)}.1"] = command_page(path, cmd, root, __version__)
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = pages()
    stale = sorted(
        n for n, t in wanted.items() if not (MAN_DIR / n).exists() or (MAN_DIR / n).read_text() != t
    )
    extra = sorted(p.name for p in MAN_DIR.glob("*.1") if p.name not in wanted) if MAN_DIR.exists() else []
    if not check:
        MAN_DIR.mkdir(exist_ok=True)
        for name in stale:
            (MAN_DIR / name).write_text(wanted[name])
        for name in extra:
            (MAN_DIR / name).unlink()
    if stale or extra:
        print(("stale: " if check else "updated: ") + ", ".join(stale + extra))
    return 1 if check and (stale or extra) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
