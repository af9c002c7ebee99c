"""Bad flag values worded as kubectl words them, whatever produced the complaint.

Typer checks some values itself, through pydantic (enums, ``Literal`` choices, bounded numbers),
and its messages read like a Python library's: ``Invalid value for '-o' / '--output': Value error,
'html' is not one of 'yaml', 'json'.`` or ``Input should be a valid integer, unable to parse string
as an integer``.  kubectl says ``invalid argument "html" for "-o, --output" flag: …``.
:func:`bad_parameter` gives every such error that one shape; the error boundary in
:mod:`dractl.cli.app` prints it.  To teach it a new wording, add a row to :data:`_REWRITES`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# (pattern on the library's message, kubectl-style reason); groups are substituted.
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Value error, (?P<v>'.*?') is not one of (?P<c>.*?)\.?$", re.S), "expected one of {c}"),
    (re.compile(r"^(?P<v>'.*?') is not one of (?P<c>.*?)\.?$", re.S), "expected one of {c}"),
    (re.compile(r"^Input should be (?P<c>'.*')\.?$", re.S), "expected {c}"),
    (re.compile(r"^Input should be a valid integer.*$", re.S), "expected an integer"),
    (re.compile(r"^Input should be a valid number.*$", re.S), "expected a number"),
    (re.compile(r"^Input should be a valid boolean.*$", re.S), "expected true or false"),
    (re.compile(r"^Input should be greater than or equal to (?P<n>\S+?)\.?$"), "must be at least {n}"),
    (re.compile(r"^Input should be greater than (?P<n>\S+?)\.?$"), "must be more than {n}"),
    (re.compile(r"^Input should be less than or equal to (?P<n>\S+?)\.?$"), "must be at most {n}"),
    (re.compile(r"^Input should be less than (?P<n>\S+?)\.?$"), "must be less than {n}"),
    (re.compile(r"^Value error, (?P<m>.*)$", re.S), "{m}"),
)


def reason(message: str) -> str:
    """The library's complaint as a short reason (``expected one of 'yaml', 'json'``); a message it
    does not know is returned as is, without pydantic's "Value error," prefix."""
    text = message.strip()
    for pattern, template in _REWRITES:
        match = pattern.match(text)
        if match:
            return template.format(**match.groupdict()).strip()
    return text


def _given(opts: Sequence[str], args: Sequence[str]) -> str | None:
    """The value the command line gave one of ``opts`` (the last occurrence), if it can be told."""
    found = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        for opt in opts:
            if arg == opt and i + 1 < len(args):
                found = args[i + 1]
            elif opt.startswith("--") and arg.startswith(opt + "="):
                found = arg[len(opt) + 1 :]
            elif not opt.startswith("--") and arg.startswith(opt) and len(arg) > len(opt):
                found = arg[len(opt) :].removeprefix("=")
    return found


def bad_parameter(error: Any, args: Sequence[str]) -> str | None:
    """The kubectl-style line for a Click ``BadParameter`` raised while parsing ``args``:
    ``invalid argument "html" for "-o, --output" flag: expected one of 'yaml', 'json'``.  None
    when ``error`` is not about one option's value (the caller keeps Click's own wording)."""
    param = getattr(error, "param", None)
    message = getattr(error, "message", None)
    opts = [o for o in getattr(param, "opts", ()) or () if o.startswith("-")]
    if param is None or not isinstance(message, str) or not opts:
        return None
    opts = sorted(opts, key=len)
    why = reason(message)
    value = _given(opts, args)
    flag = ", ".join(opts)
    if value is None:
        return f'invalid value for "{flag}" flag: {why}'
    return f'invalid argument "{value}" for "{flag}" flag: {why}'
