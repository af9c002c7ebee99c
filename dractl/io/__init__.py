"""Loading inputs: files, directories and stdin (YAML/JSON), with positions on demand; snapshots.

Public API::

    load_paths(paths, *, max_input_size=DEFAULT_MAX_INPUT_SIZE, stdin=None) -> LoadResult
    read_snapshot(path) -> LoadResult          # raises InputError for a bad header
    write_snapshot(objects, *, server_version, feature_gates, time) -> str
"""

from dractl.io.decode import DEFAULT_MAX_INPUT_SIZE
from dractl.io.documents import LoadedDoc, LoadResult
from dractl.io.loader import load_paths
from dractl.io.snapshot import read_snapshot, write_snapshot
from dractl.io.snapshot_header import SNAPSHOT_API_VERSION, SNAPSHOT_KIND

__all__ = [
    "DEFAULT_MAX_INPUT_SIZE",
    "SNAPSHOT_API_VERSION",
    "SNAPSHOT_KIND",
    "LoadResult",
    "LoadedDoc",
    "load_paths",
    "read_snapshot",
    "write_snapshot",
]
