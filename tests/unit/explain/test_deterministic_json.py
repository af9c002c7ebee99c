"""explain-allocation's JSON is the same on every run (issue 14 item 6): share IDs of a dry run are
derived, not random."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CASE = (
    Path(__file__).resolve().parents[2]
    / "golden"
    / "explain-allocation"
    / "conformance-capacity-insufficient"
)


def test_share_ids_are_deterministic(run_cli: Any, tmp_path: Path) -> None:
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: share, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: class-a, capacity: {requests: {capacity-0: "1"}}}
"""
    (tmp_path / "claim.yaml").write_text(claim)
    args = [
        "explain-allocation",
        str(tmp_path / "claim.yaml"),
        "-f",
        str(CASE / "cluster.yaml"),
        "-o",
        "json",
        "--ignore-allocations",
    ]
    first, second = run_cli(args), run_cli(args)
    assert first.exit_code == second.exit_code and first.stdout == second.stdout
    assert '"shareID"' in first.stdout, first.stdout[:2000]


def test_dry_run_share_ids_are_fresh_per_run() -> None:
    from dractl.explain.engine import dry_run_share_ids

    a, b = dry_run_share_ids(), dry_run_share_ids()
    assert [a(), a()] == [b(), b()] and len({a(), a()}) == 2
