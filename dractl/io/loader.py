"""Read files, directories and stdin into :class:`LoadResult` objects.

Every problem with an input becomes one :class:`~dractl.errors.InputError`
(``file:line:col: message``) in ``LoadResult.errors`` and loading goes on with
the other inputs; nothing else escapes :func:`load_paths`.  See
:mod:`dractl.io.decode` for the byte-level checks, :mod:`dractl.io.yamlparse`
for the YAML safety rules and :mod:`dractl.io.split` for how documents become
objects.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Sequence
from typing import BinaryIO

from dractl.errors import InputError, SourcePos
from dractl.io.decode import DEFAULT_MAX_INPUT_SIZE, decode, human_size, parse_text
from dractl.io.documents import LoadResult
from dractl.io.positions import SourceText
from dractl.io.split import Splitter
from dractl.io.yamlparse import Document

YAML_SUFFIXES = (".yaml", ".yml", ".json")
TEMPLATE_SUFFIXES = (".tmpl", ".tpl", ".gotmpl", ".j2", ".jinja", ".jinja2")


def load_paths(
    paths: Sequence[str], *, max_input_size: int = DEFAULT_MAX_INPUT_SIZE, stdin: BinaryIO | None = None
) -> LoadResult:
    """Load files, directories (recursively: ``*.yaml``, ``*.yml``, ``*.json``, sorted, hidden
    directories skipped) and ``-`` (stdin; ``sys.stdin.buffer`` when ``stdin`` is None).

    Never raises for bad input: each unreadable or unparsable input is one error in the
    result.  A file given by name is read whatever its suffix, except templates (``.tmpl``…),
    which are reported as "not YAML".
    """
    result = LoadResult()
    splitter = Splitter(result)
    seen: set[str] = set()
    stdin_read = False
    for path in paths:
        if path == "-":
            if stdin_read:
                result.errors.append(InputError("stdin ('-') given more than once", SourcePos("-")))
                continue
            stdin_read = True
            _load_stdin(stdin, max_input_size, result, splitter)
            continue
        for file in _expand(path, result):
            key = os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                try:
                    _load_file(file, max_input_size, result, splitter, named=file == path)
                except RecursionError:  # the parsers bound depth; this is the last line of defence
                    result.errors.append(InputError("nesting too deep to read", SourcePos(file)))
                except MemoryError:
                    result.errors.append(
                        InputError(
                            "not enough memory to read this input (lower --max-input-size?)", SourcePos(file)
                        )
                    )
    return result


def _expand(path: str, result: LoadResult) -> list[str]:
    """The files a path stands for: itself, or the YAML/JSON files below a directory."""
    if os.path.isdir(path):
        files = _walk(path, result)
        if not files:
            result.errors.append(
                InputError("no *.yaml, *.yml or *.json files in this directory", SourcePos(path))
            )
        return files
    if not os.path.exists(path):
        result.errors.append(InputError("no such file or directory", SourcePos(path)))
        return []
    return [path]


def _walk(root: str, result: LoadResult) -> list[str]:
    """Regular ``*.yaml``/``*.yml``/``*.json`` files below ``root``.  Symbolic links to directories
    are followed (a directory reached twice, e.g. through a link back up, is walked once); named
    pipes, sockets and devices are never opened (reading one could block forever): each is an
    input error saying it was skipped, as is a dangling link, so every walked path is accounted
    for.  Hidden directories (``.git``…) are not walked."""

    def onerror(err: OSError) -> None:
        result.errors.append(
            InputError(f"cannot read directory: {err.strerror}", SourcePos(err.filename or root))
        )

    found: list[str] = []
    visited: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        if (st.st_dev, st.st_ino) in visited:  # a link loop, or two links to one directory
            dirnames[:] = []
            continue
        visited.add((st.st_dev, st.st_ino))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.lower().endswith(YAML_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            skip = _not_regular(path)
            if skip is None:
                found.append(path)
            else:
                result.errors.append(InputError(f"{skip}; skipped", SourcePos(path)))
    return sorted(found)


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _not_regular(path: str) -> str | None:
    """Why a walked path is not read (None for a regular file, or a link to one)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if os.path.islink(path) and e.errno == errno.ENOENT:
            return "a symbolic link to nothing (dangling)"
        return f"cannot read: {e.strerror or e}"
    if stat.S_ISREG(mode):
        return None
    for test, what in _KINDS:
        if test(mode):
            return f"not a regular file: {what}, never opened"
    return "not a regular file, never opened"


def _load_file(path: str, limit: int, result: LoadResult, splitter: Splitter, *, named: bool) -> None:
    result.files.append(path)
    if named and path.lower().endswith(TEMPLATE_SUFFIXES):
        result.errors.append(
            InputError(
                "not YAML: a template file (render it first, e.g. with helm template)", SourcePos(path)
            )
        )
        return
    try:
        data = _read_limited(path, limit)
    except InputError as e:
        result.errors.append(e)
        return
    except OSError as e:
        result.errors.append(InputError(f"cannot read: {e.strerror or e}", SourcePos(path)))
        return
    _load_bytes(path, data, result, splitter, lambda: _reread(path, limit))


CHUNK = 1 << 20


def read_bounded(stream: BinaryIO, limit: int, expected: int = 0) -> bytes:
    """At most ``limit + 1`` bytes of ``stream``, read in chunks: never allocates the limit (which
    may be huge: ``--max-input-size 9223372036854775807``), only what the stream really holds.
    ``expected`` (a regular file's size) lets a file be read in one call."""
    limit = max(0, limit)
    if 0 < expected <= limit:
        first = stream.read(expected + 1)
        if len(first) <= expected:
            return first
        chunks, total = [first], len(first)
    else:
        chunks, total = [], 0
    while total <= limit:
        chunk = stream.read(min(CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _read_limited(path: str, limit: int) -> bytes:
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory", SourcePos(path))
    if st.st_size > limit:
        raise _too_big(path, st.st_size, limit)
    with open(path, "rb") as f:
        data = read_bounded(f, limit, st.st_size if stat.S_ISREG(st.st_mode) else 0)
    if len(data) > limit:
        raise _too_big(path, len(data), limit, at_least=True)
    return data


def _too_big(name: str, size: int, limit: int, *, at_least: bool = False) -> InputError:
    more = "more than " if at_least else ""
    return InputError(
        f"input is {more}{human_size(size)}, over the {human_size(limit)} limit "
        "(raise it with --max-input-size)",
        SourcePos(name),
    )


def _reread(path: str, limit: int) -> str:
    return decode(_read_limited(path, limit), path)


def _load_stdin(stdin: BinaryIO | None, limit: int, result: LoadResult, splitter: Splitter) -> None:
    result.files.append("-")
    stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", None)
    if stream is None:
        result.errors.append(InputError("cannot read stdin: there is none", SourcePos("-")))
        return
    try:
        data = read_bounded(stream, limit)
    except (OSError, ValueError) as e:  # ValueError: reading a closed stream
        result.errors.append(InputError(f"cannot read stdin: {e}", SourcePos("-")))
        return
    if len(data) > limit:
        result.errors.append(_too_big("-", len(data), limit, at_least=True))
        return
    _load_bytes("-", data, result, splitter, None)


def _load_bytes(
    name: str, data: bytes, result: LoadResult, splitter: Splitter, reread: Callable[[], str] | None
) -> None:
    try:
        text = decode(data, name)
    except InputError as e:
        result.errors.append(e)
        return
    del data
    source = SourceText(name, reread if reread is not None else lambda: text)
    documents, error = parse_text(text, name, name.lower().endswith(".json"), source)
    objects = splitter.add_documents(name, documents, source)
    if error is not None:
        result.errors.append(error)
    elif objects == 0:
        result.errors.append(InputError(_why_empty(text, documents), SourcePos(name, 0, 1)))


def _why_empty(text: str, documents: list[Document]) -> str:
    if not text.strip():
        return "empty file: no objects"
    if not documents:
        return "no objects: the file holds only comments"
    return "no objects: every document is empty"
