"""The one escaping layer: every string that came from input passes here before it is printed.

Input (manifests, snapshots, sysfs, NVML, live-cluster objects, file names, command-line
expressions) may hold terminal escape sequences, C1 controls (U+009B is CSI), bidi overrides
that reorder what a reviewer sees, lone surrogates that cannot be encoded, and newlines that
split one finding into two lines (the second one a GitHub workflow command).  Renderers never
print such a string raw:

* text formats (table, wide, trees, GitHub annotations, JUnit, error lines) use :func:`escape`
  — Go's ``%q`` escapes (``\\n``, ``\\t``, ``\\x1b``, ``\\u009b``, ``\\u202e``, ``\\U000e0001``)
  for C0, DEL, C1, Unicode format characters (bidi controls, zero-width characters), line and
  paragraph separators, lone surrogates and the non-characters U+FFFE/U+FFFF — without the
  surrounding quotes and without doubling backslashes, so escaping twice changes nothing;
  :func:`quote` is the full ``%q`` (quotes, ``\\"`` and ``\\\\``) for values quoted inside a message;
* :func:`sanitize` applies :func:`escape_message` (:func:`escape`, keeping only the newlines of
  cel-go's ``\n | `` error snippets) to every key and string of a report document, which is what
  :func:`dractl.render.registry.render` hands the text-format writers;
* JSON stays exact: :func:`dumps_json` writes the same values, with the unsafe characters as
  ``\\uXXXX`` escapes (valid JSON, parsed back to the very same string);
* YAML stays exact: :func:`yaml_dumper` double-quotes (and ``\\u``-escapes) any scalar that
  holds an unsafe character;
* XML (JUnit) gets text that XML 1.0 allows (:func:`xml_text`), GitHub annotations
  :func:`github_data` / :func:`github_property` (the Actions workflow-command encoding after
  :func:`escape`, so no ``\\r``/``\\n`` can start a new command);
* :func:`excerpt` bounds a long value quoted in a message (``…`` plus the full length).

Plain ASCII strings take one regex search and come back unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from dractl.errors import excerpt as _excerpt

# Unicode general categories Cc (C0, DEL, C1), Cf (format: bidi controls, zero-width and
# invisible characters, tags), Cs (surrogates; only lone ones reach a Python str), Zl and Zp
# (U+2028, U+2029), plus the non-characters U+FFFE and U+FFFF (forbidden in XML).  Hard-coded
# (Unicode 15) so importing this module stays cheap; tests/unit/render/test_sanitize.py checks the
# set against the running interpreter's unicodedata.
_UNSAFE_RANGES = (
    "\x00-\x1f\x7f-\x9f\xad"
    "\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
UNSAFE = re.compile(f"[{_UNSAFE_RANGES}]")
_UNSAFE_BUT_NEWLINE = re.compile(f"[\\x00-\\x08\\x0b-{_UNSAFE_RANGES[len(chr(0) + '-') :]}]")
# json.dumps already escapes C0 inside strings; what is left of C0 is the indentation's newlines.
_JSON_UNSAFE = re.compile(f"[{_UNSAFE_RANGES[len(chr(0) + '-' + chr(0x1F)) :]}]")
_NAMED = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}

EXCERPT_LIMIT = 200
# Longest string a text format shows whole; longer ones are cut (JSON/YAML keep everything).  A
# multi-megabyte value in one table cell would make the layout take a minute.
TEXT_LIMIT = 4000


def _escape_char(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\u{code:04x}"


def _sub(m: re.Match[str]) -> str:
    return _escape_char(m.group())


def escape(text: str) -> str:
    """``text`` with every unsafe character (see the module docstring) as a Go ``%q`` escape;
    newlines and tabs too, so the result is one line.  Idempotent; printable text unchanged."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(_sub, text)


SNIPPET_BREAK = "\n | "
# The ASCII characters escape_block keeps: printable ones, tab and newline.
_ASCII_BLOCK_SAFE = bytes(range(0x20, 0x7F)) + b"\t\n"


def escape_message(text: str) -> str:
    """:func:`escape`, except that a newline starting one of cel-go's snippet lines (``\n | ``,
    the expression and its caret under a CEL error) is kept.  No other newline survives, and a
    kept one is followed by ``" | "``, so no line of the output can start a workflow command."""
    if UNSAFE.search(text) is None:
        return text
    if SNIPPET_BREAK not in text:
        return UNSAFE.sub(_sub, text)
    return SNIPPET_BREAK.join(UNSAFE.sub(_sub, part) for part in text.split(SNIPPET_BREAK))


def escape_block(text: str) -> str:
    """Like :func:`escape` but keeps ``\\n`` and tabs: for multi-line text the renderer composed
    itself (and the tab-separated lines of shell completion)."""
    if text.isascii() and not text.encode("ascii").translate(None, _ASCII_BLOCK_SAFE):
        return text  # the usual case, checked in C: a 60 MB snapshot in 0.08 s instead of 1.6 s
    if _UNSAFE_BUT_NEWLINE.search(text) is None:
        return text
    return _UNSAFE_BUT_NEWLINE.sub(_sub, text)


def quote(text: str) -> str:
    """Go's ``%q`` of ``text``: double quotes, ``\\\\`` and ``\\"`` escaped, unsafe characters as
    in :func:`escape` (C1 included, which ``repr``-style quoting misses)."""
    return '"' + escape(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def excerpt(text: str, limit: int = EXCERPT_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, ending ``… (2,900,000 characters)`` when cut (the
    engines' own helper, :func:`dractl.errors.excerpt`)."""
    return _excerpt(text, limit)


def sanitize(value: Any) -> Any:
    """A copy of a report document (dicts, lists, tuples, scalars) with :func:`escape_message`
    applied to every string and every string key, strings longer than TEXT_LIMIT cut to an
    :func:`excerpt`.  Returns ``value`` itself when nothing needed escaping (:func:`plain_document`
    says so for a whole document at once, the usual case)."""
    if type(value) is dict and plain_document(value):
        return value
    return _sanitize(value)


# A run of characters without a quote longer than TEXT_LIMIT: in JSON text without a backslash,
# every string longer than that is one (so are long runs of numbers: those take the slow path).
# Such a run starts the text or follows a quote: the search tries only quotes (found by a fast
# scan), and counts each run once (``[^"]{n,}`` alone would count it again from every character
# in it: a fifth of a 5,000-node view's rendering).
_LONG_RUN = re.compile(f'"[^"]{{{TEXT_LIMIT + 1}}}')


def plain_document(doc: Any) -> bool:
    """Whether every string and key of ``doc`` is printable ASCII of at most TEXT_LIMIT
    characters, so :func:`sanitize` would change nothing: one ``json.dumps`` (in C) and three scans
    of its text instead of one Python call per value.  The JSON text is printable ASCII without a
    backslash exactly when every string in it is printable ASCII (``json.dumps`` writes any control
    character, quote or backslash inside a string with a backslash).  False when in doubt (a value
    JSON cannot write)."""
    try:
        text = json.dumps(doc, ensure_ascii=False, check_circular=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return False
    return (
        text.isascii()
        and "\\" not in text
        and text.isprintable()
        and (len(text) <= TEXT_LIMIT or ('"' in text[: TEXT_LIMIT + 1] and _LONG_RUN.search(text) is None))
    )


def _sanitize(value: Any) -> Any:
    t = type(value)
    if t is str:
        if value.isascii() and value.isprintable() and len(value) <= TEXT_LIMIT:
            return value  # printable ASCII holds no unsafe character (the common case, no regex)
        return escape_message(value if len(value) <= TEXT_LIMIT else excerpt(value, TEXT_LIMIT))
    if t is int or t is bool or t is float or value is None:  # most of a report: no ABC checks
        return value
    if isinstance(value, str):
        return escape_message(value if len(value) <= TEXT_LIMIT else excerpt(value, TEXT_LIMIT))
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for k, v in value.items():
            k2 = _key(k) if isinstance(k, str) else k
            v2 = _sanitize(v)
            changed = changed or k2 is not k or v2 is not v
            out[k2] = v2
        return out if changed else value
    if isinstance(value, list | tuple):
        items = [_sanitize(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items if isinstance(value, list) else tuple(items)
        return value
    return value


def _key(key: str) -> str:
    return key if key.isascii() and key.isprintable() else escape_message(key)


# JSON ------------------------------------------------------------------------------------------


def _json_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_safe(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it) with every unsafe character inside its strings as a
    ``\\u`` escape.  The document means exactly the same; the terminal sees no control."""
    if _JSON_UNSAFE.search(text) is None:
        return text
    return _JSON_UNSAFE.sub(_json_escape, text)


def dumps_json(doc: Any, indent: int | None = 2) -> str:
    """``json.dumps(doc, indent=indent, ensure_ascii=False)``, made terminal- and encoding-safe."""
    return json_safe(json.dumps(doc, indent=indent, ensure_ascii=False))


# YAML ------------------------------------------------------------------------------------------


@cache
def yaml_dumper() -> Any:
    """``yaml.SafeDumper`` that writes every scalar holding an unsafe character double-quoted,
    with those characters (and any other non-ASCII in that scalar) as escapes.  Built on first
    use, so importing this module does not import PyYAML."""
    import yaml

    class SafeYamlDumper(yaml.SafeDumper):
        def analyze_scalar(self, scalar: str) -> Any:
            analysis = super().analyze_scalar(scalar)
            if UNSAFE.search(scalar) is not None:
                analysis.allow_flow_plain = analysis.allow_block_plain = False
                analysis.allow_single_quoted = analysis.allow_block = False
                analysis.allow_double_quoted = True
            return analysis

        def write_double_quoted(self, text: str, split: bool = True) -> None:
            if UNSAFE.search(text) is None:
                super().write_double_quoted(text, split)
                return
            allow = self.allow_unicode
            self.allow_unicode = False
            try:
                super().write_double_quoted(text, split)
            finally:
                self.allow_unicode = allow

    return SafeYamlDumper


def dumps_yaml(doc: Any, **kwargs: Any) -> str:
    """``yaml.dump(doc, Dumper=yaml_dumper(), ...)``: keys in order, unicode kept where safe."""
    import yaml

    options: dict[str, Any] = {"sort_keys": False, "default_flow_style": False, "allow_unicode": True}
    options.update(kwargs)
    return str(yaml.dump(doc, Dumper=yaml_dumper(), **options))


# Rich ------------------------------------------------------------------------------------------

DIAGNOSTIC_PREFIXES = ("dractl: ", "Warning: ", "Note: ")


@cache
def _safe_console_class() -> Any:
    from rich.console import Console

    class SafeConsole(Console):
        """A Rich console that escapes every plain string it renders (``print`` arguments, table
        cells, tree labels) with :func:`escape_block`: markup is off, and no control character
        from input reaches the terminal, while Rich's own styling still does."""

        def render_str(self, text: str, **kwargs: Any) -> Any:
            # A diagnostic ("dractl: error: …", "Warning: …") is one line by contract: a newline
            # from input (a file name, a key) must not split it.
            one_line = text.startswith(DIAGNOSTIC_PREFIXES)
            return super().render_str(escape_message(text) if one_line else escape_block(text), **kwargs)

    return SafeConsole


def safe_console(**kwargs: Any) -> Any:
    """``rich.console.Console(**kwargs)`` that escapes the strings it renders (Rich imported now)."""
    return _safe_console_class()(**kwargs)


# XML and GitHub --------------------------------------------------------------------------------


def xml_text(text: str) -> str:
    """Text XML 1.0 can hold (and a terminal can show): :func:`escape` removes every character
    XML forbids (C0 but tab/newline/CR, surrogates, U+FFFE/U+FFFF).  Keeps newlines."""
    return escape_block(text)


def github_data(text: str) -> str:
    """A workflow-command message: :func:`escape_message`, then ``%``, CR and LF encoded as the
    Actions runner decodes them (so the whole annotation is one line)."""
    return escape_message(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A workflow-command property value (``file=``, ``title=``): one line, and ``:`` and ``,``
    encoded too."""
    encoded = escape(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return encoded.replace(":", "%3A").replace(",", "%2C")
