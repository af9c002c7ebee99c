"""Read-only access to a sysfs tree (the live ``/sys`` or a captured copy).

Every probe reads through :class:`SysFS`, never through ``open()`` directly, so
that ``--sysfs-root`` can point at a captured tree and ``--save-fixture`` can
record exactly what discovery looked at.  Paths are always relative to the
root (``"bus/pci/devices"``); nothing here writes to the tree.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

# sysfs attributes are at most a page (4 KiB) of text; a few listings (cpulist, meminfo) stay
# well under this.  A bigger file is not sysfs (a link to /dev/zero, a corrupt capture): unread.
MAX_READ = 64 * 1024


@dataclass
class Recording:
    """What a :class:`SysFS` read, by root-relative *real* path (symlinks resolved)."""

    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # link path -> raw target
    dirs: set[str] = field(default_factory=set)
    # Directory listings: real dir path -> {entry: "dir" | "file" | "link"}, so a capture
    # can recreate entries that were listed but never read (as empty dirs/files).
    listings: dict[str, dict[str, str]] = field(default_factory=dict)


class SysFS:
    """A sysfs root.  ``record=True`` keeps a :class:`Recording` of every access.

    Reads never raise for missing or unreadable entries: they return ``None``
    (or an empty list), because every sysfs attribute is optional on some
    kernel or device.
    """

    def __init__(self, root: str | os.PathLike[str] = "/sys", record: bool = False) -> None:
        self.root = Path(root)
        self.recording: Recording | None = Recording() if record else None

    def __repr__(self) -> str:
        return f"SysFS({str(self.root)!r})"

    def _abs(self, rel: str) -> Path:
        return self.root / rel.lstrip("/")

    def exists(self, rel: str) -> bool:
        path = self._abs(rel)
        found = path.exists()
        if found and self.recording is not None:
            self._note_links(rel)
            real = self.realpath(rel)
            if real is not None and path.is_dir():
                self.recording.dirs.add(real)
        return found

    def read(self, rel: str) -> str | None:
        """The stripped text of a file, or None when absent, unreadable, not a regular file (a
        FIFO would block, a device never ends) or longer than MAX_READ bytes."""
        data = read_regular(self._abs(rel), MAX_READ)
        if data is None:
            return None
        text = data.decode("utf-8", errors="replace")
        if self.recording is not None:
            self._note_links(rel)
            real = self.realpath(rel)
            if real is not None:
                self.recording.files[real] = text
        return text.strip()

    def read_int(self, rel: str, base: int = 10) -> int | None:
        text = self.read(rel)
        if text is None:
            return None
        try:
            return int(text, base)
        except ValueError:
            return None

    def readlink(self, rel: str) -> str | None:
        """The raw target of a symlink, or None."""
        try:
            target = os.readlink(self._abs(rel))
        except (OSError, ValueError):
            return None
        if self.recording is not None:
            self._note_links(rel)
        return target

    def listdir(self, rel: str) -> list[str]:
        """Sorted entry names of a directory ([] when absent)."""
        try:
            names = sorted(os.listdir(self._abs(rel)))
        except (OSError, ValueError):
            return []
        if self.recording is not None:
            self._note_links(rel)
            real = self.realpath(rel)
            if real is not None:
                self.recording.dirs.add(real)
                self.recording.listings[real] = {n: _kind(self._abs(rel) / n) for n in names}
                for name, kind in self.recording.listings[real].items():
                    if kind == "link":
                        self.recording.links[f"{real}/{name}" if real else name] = os.readlink(
                            self._abs(rel) / name
                        )
        return names

    def realpath(self, rel: str) -> str | None:
        """The root-relative path with every symlink resolved (None if it escapes the root)."""
        root = os.path.realpath(self.root)
        real = os.path.realpath(self._abs(rel))
        if real == root:
            return ""
        if not real.startswith(root + os.sep):
            return None
        return real[len(root) + 1 :]

    def _note_links(self, rel: str) -> None:
        """Record every symlink met while resolving ``rel`` (so a capture can rebuild it)."""
        assert self.recording is not None
        parts = [p for p in rel.strip("/").split("/") if p]
        current = ""
        for depth, part in enumerate(parts):
            candidate = f"{current}/{part}" if current else part
            abs_candidate = self._abs(candidate)
            if abs_candidate.is_symlink():
                target = os.readlink(abs_candidate)
                self.recording.links[candidate] = target
                resolved = self.realpath(candidate)
                if resolved is None:
                    return
                current = resolved
            else:
                current = candidate
            if depth > 64:  # pragma: no cover - symlink loops are not sysfs
                return


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes, else None.  Opened non-blocking and
    checked with fstat before reading, so a FIFO or device is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return None if total > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _kind(path: Path) -> str:
    if path.is_symlink():
        return "link"
    return "dir" if path.is_dir() else "file"
