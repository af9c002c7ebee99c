"""Take a snapshot of a live cluster: the raw objects of a :class:`ClusterSource`, written in
the snapshot format (:func:`dractl.io.snapshot.write_snapshot`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from dractl.cluster.lists import Progress
from dractl.cluster.options import ClusterOptions
from dractl.cluster.source import ClusterSource, paused_gc
from dractl.io.snapshot import write_snapshot
from dractl.io.world import WORLD_KINDS


def take_snapshot(
    opts: ClusterOptions,
    *,
    include_config: bool = False,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    fmt: str = "yaml",
) -> str:
    """The snapshot text.  Raises ClusterError (exit 3) as :meth:`ClusterSource.load_raw`;
    reads that were tolerated (``partial``, a namespace-only user) are named in the header's
    ``missing`` and passed to ``warn``."""
    source = ClusterSource(opts, kinds=WORLD_KINDS, warn=warn, progress=progress)
    with paused_gc():  # pages, then the documents: a big heap of fresh, acyclic containers
        raw = source.load_raw()
        assert raw.server is not None
        text = write_snapshot(
            raw.all_objects(),
            server_version=raw.server.git_version,
            feature_gates=raw.feature_gates,
            time=now().replace(microsecond=0).isoformat().replace("+00:00", "Z"),
            include_config=include_config,
            missing=raw.missing,
            served_versions=raw.server.served,
            fmt=fmt,
        )
        del raw  # freed before the collector is back: it never walks them
    return text
