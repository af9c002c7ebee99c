"""The shared kubectl-style options and the choice of world source; no kubernetes import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dractl.cli.cluster_options import cluster_options, world_source
from dractl.cluster.options import ClusterOptions, parse_timeout
from dractl.cluster.source import ClusterSource
from dractl.errors import UsageError
from dractl.io.sources import FileSource, SnapshotSource


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 30.0),
        ("30s", 30.0),
        ("1m", 60.0),
        ("2h", 7200.0),
        ("500ms", 0.5),
        ("1.5s", 1.5),
        ("0", None),
        (None, None),
    ],
)
def test_request_timeout_durations(text: str | None, seconds: float | None) -> None:
    assert parse_timeout(text) == seconds


@pytest.mark.parametrize("text", ["", "abc", "-1", "1x", "1.2.3s", "nan", "inf", "s"])
def test_bad_request_timeouts_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="--request-timeout: invalid duration"):
        parse_timeout(text, "claims")


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"chunk_size": -1}, "--chunk-size must be 0 or greater"),
        ({"context": " "}, "--context must not be empty"),
        ({"namespace": ""}, "--namespace must not be empty"),
        ({"node": ""}, "--node must not be empty"),
    ],
)
def test_bad_option_values(kw: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        cluster_options(**kw)  # type: ignore[arg-type]


def test_cluster_options_carries_every_flag() -> None:
    opts = cluster_options(
        kubeconfig="k",
        context="c",
        namespace="n",
        all_namespaces=True,
        request_timeout="5s",
        chunk_size=7,
        partial=True,
        node="x",
        label_selector="a=b",
    )
    assert opts == ClusterOptions("k", "c", "n", True, 5.0, 7, True, "x", "a=b")


def test_world_source_choice() -> None:
    opts = ClusterOptions()
    assert isinstance(world_source(snapshot="s.yaml", files=["a"], cluster=opts), SnapshotSource)
    assert isinstance(world_source(snapshot=None, files=["a", "b"], cluster=opts), FileSource)
    live = world_source(snapshot=None, files=[], cluster=opts, kinds=("ResourceSlice",))
    assert isinstance(live, ClusterSource) and live.kinds == ("ResourceSlice",)
    assert live.describe() == "cluster"


def test_options_and_source_construction_do_not_import_kubernetes() -> None:
    code = (
        "import sys; from dractl.cli.cluster_options import world_source; from dractl.cluster.options "
        "import ClusterOptions; world_source(snapshot=None, files=[], cluster=ClusterOptions()); "
        "print('kubernetes' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
