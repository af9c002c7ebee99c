"""dractl's verdict for every object of ``../shared/realworld`` (64 real manifests new this round),
as ``dractl validate`` gives it: schema and the API server's rules, Kubernetes 1.37, a default API
server (no ``--runtime-config``), on create.

Shared by the test and by ``python tests/realworld/realworld_verdicts.py --update``, which rewrites
``expected.jsonl`` keeping the reviewed ``why`` of every error that is still there; a new error gets
``"why": "TODO"``, which the test rejects until someone reviews it against Kubernetes' rules.  The
table's machinery is ``tests/verdict_table.py``, shared with ``tests/corpus``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: verdict_table, run as a script
import verdict_table

REPO = Path(__file__).resolve().parents[2]
REALWORLD = REPO / ".." / "shared" / "realworld"
EXPECTED = Path(__file__).with_name("expected.jsonl")
KUBE_VERSION = "1.37"


def verdicts(
    root: Path = REALWORLD, kube_version: str = KUBE_VERSION, runtime_config: str = ""
) -> list[dict[str, Any]]:
    """One record per object (and per input that could not be read), in load order."""
    return verdict_table.verdicts(root, kube_version, runtime_config)


def load_expected(path: Path = EXPECTED) -> list[dict[str, Any]]:
    return verdict_table.load_expected(path)


def update() -> int:
    return verdict_table.update(EXPECTED, verdicts())


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/realworld/realworld_verdicts.py --update")
    sys.exit(update())
