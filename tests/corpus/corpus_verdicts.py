"""dractl's schema-level verdict for every object of ``../shared/corpus`` (shared by the test
and by ``python tests/corpus/corpus_verdicts.py --update``, which rewrites expected.jsonl
keeping the reviewed ``why`` of every error that is still there; a new error gets
``"why": "TODO"``, which the test rejects until someone reviews it).  The table's machinery is
``tests/verdict_table.py``, shared with ``tests/realworld``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: verdict_table, run as a script
import verdict_table

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / ".." / "shared" / "corpus"
EXPECTED = Path(__file__).with_name("expected.jsonl")
KUBE_VERSION = "1.37"

# The one reason every API-VERSION-NOT-ENABLED error has (issue 14 item 2 changed these verdicts).
NOT_ENABLED_WHY = (
    "a default 1.37 API server serves no beta/alpha version of resource.k8s.io (KEP-3136): "
    "kubectl apply answers 'no matches for kind' unless --runtime-config enables it"
)


def verdicts(
    corpus: Path = CORPUS, kube_version: str = KUBE_VERSION, runtime_config: str = ""
) -> list[dict[str, Any]]:
    """One record per object (schema level: no API-server rules), in load order, for an API
    server of ``kube_version`` started with ``--runtime-config runtime_config`` ("" = defaults)."""
    return verdict_table.verdicts(corpus, kube_version, runtime_config, semantic=False)


def load_expected(path: Path = EXPECTED) -> list[dict[str, Any]]:
    return verdict_table.load_expected(path)


def update() -> int:
    return verdict_table.update(
        EXPECTED,
        verdicts(),
        lambda f: NOT_ENABLED_WHY if f["rule"] == "API-VERSION-NOT-ENABLED" else "TODO",
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/corpus/corpus_verdicts.py --update")
    sys.exit(update())
