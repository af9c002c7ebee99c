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
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from dractl.errors import InputError, SourcePos
from dractl.io.decode import DEFAULT_MAX_INPUT_SIZE, decode, human_size, iter_text
from dractl.io.documents import LoadedDoc, LoadResult
from dractl.io.positions import SourceText
from dractl.io.snapshot_header import header_errors
from dractl.io.split import Splitter, is_snapshot
from dractl.io.yamlparse import parse_stream

YAML_SUFFIXES = (".yaml", ".yml", ".json")
TEMPLATE_SUFFIXES = (".tmpl", ".tpl", ".gotmpl", ".j2", ".jinja", ".jinja2")


def load_paths(
    paths: Sequence[str], *, max_input_size: int = DEFAULT_MAX_INPUT_SIZE, stdin: BinaryIO | None = None
) -> LoadResult:
    """Load files, directories (recursively: ``*.yaml``, ``*.yml``, ``*.json``, sorted, hidden
    directories skipped) and ``-`` (stdin; ``sys.stdin.buffer`` when ``stdin`` is None).

    Never raises for bad input: each unreadable or unparsable input is one error in the
    result.  A file given by name is read whatever its suffix, except templates (``.tmpl``…),
    which are reported as "not YAML".  :class:`DocStream` is the same, one object at a time.
    """
    stream = DocStream(paths, max_input_size=max_input_size, stdin=stdin)
    stream.result.docs.extend(stream)
    return stream.result


class DocStream:
    """:func:`load_paths` one object at a time: iterating yields each :class:`LoadedDoc` as soon
    as its document is parsed, so only the document being read (and the file's text) is in
    memory, not every object of every input.  ``result`` holds the errors, files and snapshot
    header as they are found (complete once the iteration ends; its ``docs`` stays empty).

    :meth:`header` finds the snapshot header before the objects are read (a release must be
    known before the first object is checked, and the header may be in the last input): it
    reads the first document of each input; stdin and other inputs that cannot be read twice
    are kept for the iteration."""

    def __init__(
        self,
        paths: Sequence[str],
        *,
        max_input_size: int = DEFAULT_MAX_INPUT_SIZE,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.paths = list(paths)
        self.limit = max_input_size
        self.stdin = stdin
        self.result = LoadResult()
        self._kept: dict[str, bytes] = {}  # inputs read by header() that cannot be read again

    def __iter__(self) -> Iterator[LoadedDoc]:
        result = self.result
        splitter = Splitter(result)
        seen: set[str] = set()
        stdin_read = False
        for path in self.paths:
            if path == "-":
                if stdin_read:
                    result.errors.append(InputError("stdin ('-') given more than once", SourcePos("-")))
                    continue
                stdin_read = True
                yield from self._stdin(splitter)
                continue
            for file in _expand(path, result):
                key = os.path.realpath(file)
                if key in seen:
                    continue
                seen.add(key)
                try:
                    yield from self._file(file, splitter, named=file == path)
                except RecursionError:  # the parsers bound depth; this is the last line of defence
                    result.errors.append(InputError("nesting too deep to read", SourcePos(file)))
                except MemoryError:
                    result.errors.append(
                        InputError(
                            "not enough memory to read this input (lower --max-input-size?)", SourcePos(file)
                        )
                    )

    def header(self) -> dict[str, Any] | None:
        """The snapshot header the iteration will find (the first input whose first document is
        a valid header), or None; reads nothing into ``result``."""
        seen: set[str] = set()
        for path in self.paths:
            if path == "-":
                if "-" not in self._kept:
                    data = self._read_stdin()
                    if not isinstance(data, bytes):
                        continue
                    self._kept["-"] = data
                found = _first_header("-", self._kept["-"], complete=True)[0]
            else:
                found = None
                for file in _expand(path, LoadResult()):
                    key = os.path.realpath(file)
                    if key in seen or (file == path and file.lower().endswith(TEMPLATE_SUFFIXES)):
                        continue
                    seen.add(key)
                    found = self._sniff(file)
                    if found is not None:
                        break
            if found is not None:
                return found
        return None

    def _sniff(self, file: str) -> dict[str, Any] | None:
        """The header of one file: from its first 64 KiB when the first document ends there (a
        header is a few hundred bytes), else from the whole file."""
        try:
            st = os.stat(file)
            if stat.S_ISREG(st.st_mode) and st.st_size <= self.limit:
                with open(file, "rb") as f:
                    head = f.read(SNIFF + 1)
                found, decided = _first_header(file, head, complete=len(head) <= SNIFF)
                if decided:
                    return found
            data = _read_limited(file, self.limit)
        except (OSError, InputError):
            return None
        if not stat.S_ISREG(st.st_mode):  # a pipe given by name (<(cmd)): read once, kept
            self._kept[file] = data
        return _first_header(file, data, complete=True)[0]

    def _file(self, path: str, splitter: Splitter, *, named: bool) -> Iterator[LoadedDoc]:
        result = self.result
        result.files.append(path)
        if named and path.lower().endswith(TEMPLATE_SUFFIXES):
            result.errors.append(
                InputError(
                    "not YAML: a template file (render it first, e.g. with helm template)", SourcePos(path)
                )
            )
            return
        data = self._kept.pop(path, None)
        if data is None:
            try:
                data = _read_limited(path, self.limit)
            except InputError as e:
                result.errors.append(e)
                return
            except OSError as e:
                result.errors.append(InputError(f"cannot read: {e.strerror or e}", SourcePos(path)))
                return
        limit = self.limit
        text = _decoded(path, data, result)
        del data  # only the text stays while the file is read (the bytes would be one more copy)
        if text is not None:
            yield from _objects(path, text, result, splitter, lambda: _reread(path, limit))

    def _read_stdin(self) -> bytes | InputError:
        stream = self.stdin if self.stdin is not None else getattr(sys.stdin, "buffer", None)
        if stream is None:
            return InputError("cannot read stdin: there is none", SourcePos("-"))
        try:
            return read_bounded(stream, self.limit)
        except (OSError, ValueError) as e:  # ValueError: reading a closed stream
            return InputError(f"cannot read stdin: {e}", SourcePos("-"))

    def _stdin(self, splitter: Splitter) -> Iterator[LoadedDoc]:
        result = self.result
        result.files.append("-")
        data = self._kept.pop("-", None)
        if data is None:
            read = self._read_stdin()
            if isinstance(read, InputError):
                result.errors.append(read)
                return
            data = read
        if len(data) > self.limit:
            result.errors.append(_too_big("-", len(data), self.limit, at_least=True))
            return
        text = _decoded("-", data, result)
        del data
        if text is not None:
            yield from _objects("-", text, result, splitter, None)


SNIFF = 64 * 1024


def _first_header(name: str, data: bytes, *, complete: bool) -> tuple[dict[str, Any] | None, bool]:
    """(the snapshot header that is the first non-empty document of ``data``, or None; whether
    that is decided).  ``complete``: ``data`` is the whole input; else it is the input's head,
    and the answer is decided only when the first document ends inside it."""
    is_json = name.lower().endswith(".json")
    if not complete:
        cut = data.rfind(b"\n")
        if cut < 0:
            return None, False
        data = data[: cut + 1]
    try:
        text = decode(data, name)
    except InputError:  # the same bytes are in the whole input: the loader refuses it
        return None, True
    del data
    if complete and "Snapshot" not in text and "\\" not in text:  # no header is written without either
        return None, True
    source = SourceText(name, lambda: text)
    documents = iter_text(text, name, is_json, source, [], pack_items=True)  # a List: never whole
    try:
        for index, doc in enumerate(documents):
            if doc.value is None:
                continue
            value = doc.value
            header = (
                value if isinstance(value, dict) and is_snapshot(value) and not header_errors(value) else None
            )
            if complete or is_json:  # a JSON value that parsed is whole
                return header, True
            next(documents, None)  # the next document's start proves this one ended in the head
            decided = len(source.starts) > index + 1
            return (header if decided else None), decided
    finally:
        documents.close()  # type: ignore[attr-defined]
    return None, complete


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


def _decoded(name: str, data: bytes, result: LoadResult) -> str | None:
    try:
        return decode(data, name)
    except InputError as e:
        result.errors.append(e)
        return None


def _objects(
    name: str, text: str, result: LoadResult, splitter: Splitter, reread: Callable[[], str] | None
) -> Iterator[LoadedDoc]:
    source = SourceText(name, reread if reread is not None else lambda: text)
    source.hold(text)  # positions asked for while the file is read use this copy
    problems: list[InputError] = []
    documents = iter_text(text, name, name.lower().endswith(".json"), source, problems, pack_items=True)
    try:
        yield from splitter.objects(name, documents, source)
    finally:
        source.release()  # later questions (lint's findings) read the file again
    if problems:
        result.errors.append(problems[0])
    elif splitter.non_empty == 0:
        result.errors.append(InputError(_why_empty(text), SourcePos(name, 0, 1)))


def _why_empty(text: str) -> str:
    if not text.strip():
        return "empty file: no objects"
    if not _has_document(text):
        return "no objects: the file holds only comments"
    return "no objects: every document is empty"


def _has_document(text: str) -> bool:
    """Whether ``text`` (which parsed, and held no object) has a document at all."""
    return bool(parse_stream(text).documents)
