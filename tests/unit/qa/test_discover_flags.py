"""QA: `dractl discover` flags a user can get wrong (exit 2, one clear line, never a traceback)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--only", ""], "--only: unknown kind ''"),  # regression: an empty --only meant "everything"
        (["--only", " , "], "--only: unknown kind"),
        (["--only", "gpux"], "--only: unknown kind gpux"),
        (["--node", "Bad_Node"], "--node 'Bad_Node': must be a lower-case DNS subdomain"),
        (["--pool", "A_B", "-o", "yaml"], "--pool 'A_B': must be DNS subdomains joined by '/'"),
        (["--driver", "foo=x.com"], "--driver 'foo=x.com': expected KIND=NAME"),
        (["--kube-version", "1.33"], "unsupported Kubernetes release 1.33; one of: 1.34, 1.35, 1.36, 1.37"),
        (["--feature-gates", "DRAAdminAccess=maybe"], "--feature-gates: invalid feature gate"),
        (["--sysfs-root", "/nonexistent-qa"], "--sysfs-root: not a directory"),
        (["--only", "gpu", "--nvml-fixture", "/nonexistent-qa.json"], "cannot read NVML fixture"),
    ],
)
def test_bad_flags_are_usage_errors(run_cli: Callable[..., Any], args: list[str], message: str) -> None:
    r = run_cli(["discover", "--only", "cpu", *args] if args[0] != "--only" else ["discover", *args])
    assert r.exit_code == 2, r.stderr
    assert message in r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
