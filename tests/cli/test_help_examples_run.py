"""Help that teaches: every ``dractl …`` line of every command's ``--help`` Examples runs.

The examples are run from a sandbox made of ``examples/demo/``: the repository's examples/
directory, plus the file names examples use for "your files" (``cluster.yaml`` is a snapshot
of the demo cluster, ``slices.yaml`` its slices, ``claim.yaml`` a claim, ``deploy/`` and
``manifests/`` its manifests, …).  An example passes when dractl answers it (exit 0 or 1:
success or findings), never with a usage/input error (2) or an internal error (70).  Examples
that read a live cluster (no ``-f``/``--snapshot``; for lint and the validate commands, those
that opt in with ``--cluster``/``--context``) may end with a cluster error (3): the sandbox has
no cluster.  Hardware probes (``discover``) report what is missing, exit 0.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import typer.main

from dractl.cli.root import build_app

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
ROOT = typer.main.get_command(build_app())
_SHELL_OPERATORS = frozenset({">", ">>", "<", "|", "&&", "||", ";", "2>", "2>&1"})
# stdin for examples that read '-'
STDIN = (DEMO / "claims-pending.yaml").read_bytes()


def _examples() -> list[tuple[str, list[str]]]:
    out = []
    stack = [((), ROOT)]
    while stack:
        path, cmd = stack.pop()
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            stack.extend(((*path, n), c) for n, c in subs.items() if not c.hidden)
            continue
        for line in (cmd.epilog or "").replace("\\\n", " ").splitlines():
            match = re.search(r"(?:^|\|\s*)dractl\s+(.*)$", line.strip())
            if match and not line.strip().startswith("#"):
                words = shlex.split(match.group(1))
                end = next((i for i, w in enumerate(words) if w in _SHELL_OPERATORS), len(words))
                out.append((" ".join(path), words[:end]))
    return sorted(out)


EXAMPLES = _examples()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("examples")
    shutil.copytree(REPO / "examples", root / "examples")
    shutil.copytree(
        REPO / "tests" / "fixtures" / "discover" / "h100-8gpu", root / "node-fixture", symlinks=True
    )
    manifests = [p for p in sorted(DEMO.glob("*.yaml"))]
    for name in ("deploy", "manifests", "claims", "slices", "deployments"):
        (root / name).mkdir()
        for p in manifests:
            if name not in ("claims", "slices") or name.rstrip("s") in p.name:
                shutil.copy(p, root / name / p.name)
    import yaml

    from dractl.io import write_snapshot

    objects = [d for p in manifests for d in yaml.safe_load_all(p.read_text()) if d]
    (root / "cluster.yaml").write_text(
        write_snapshot(objects, server_version="v1.37.0", feature_gates={}, time="2026-01-01T00:00:00Z")
    )
    (root / "slices.yaml").write_bytes((DEMO / "slices-gpu-node-1.yaml").read_bytes())
    (root / "published.yaml").write_bytes((DEMO / "slices-gpu-node-1.yaml").read_bytes())
    (root / "new.yaml").write_bytes((DEMO / "slices-gpu-node-1.yaml").read_bytes())
    (root / "deviceclass.yaml").write_bytes((DEMO / "deviceclasses.yaml").read_bytes())
    (root / "deployments" / "deviceclass.yaml").write_bytes((DEMO / "deviceclasses.yaml").read_bytes())
    (root / "claim.yaml").write_bytes((DEMO / "claims-pending.yaml").read_bytes())
    (root / "claim-with-status.yaml").write_bytes((DEMO / "claims-allocated.yaml").read_bytes())
    (root / "devices.csv").write_text(
        "name,productName,index,capacity.memory\ngpu-0,H100,0,80Gi\ngpu-1,H100,1,80Gi\n"
    )
    return root


def _reads_a_cluster(argv: list[str]) -> bool:
    return not any(
        a in ("-f", "--filename", "--snapshot") or a.startswith(("--snapshot=", "-f")) for a in argv
    )


@pytest.mark.parametrize("command, argv", EXAMPLES, ids=[" ".join(a) for _, a in EXAMPLES])
def test_help_example_runs(command: str, argv: list[str], sandbox: Path, run_cli) -> None:
    if "--save-fixture" in argv:  # writes a new fixture: into an empty directory
        fresh = sandbox / "fresh"
        shutil.rmtree(fresh, ignore_errors=True)
        fresh.mkdir()
        result = run_cli(argv, cwd=fresh)
    elif "--interactive" in argv:
        result = run_cli(argv, input=b"\n\n1\n1\n\n\ny\n", cwd=sandbox)
    else:
        result = run_cli(argv, input=STDIN, cwd=sandbox)
    allowed = {0, 1} | (
        {3}
        if command in ("snapshot",)
        or any(a in ("--cluster", "--context", "--kubeconfig") for a in argv)  # opt-in live context
        or (
            _reads_a_cluster(argv)
            and command
            not in (
                "generate claim",
                "generate template",
                "generate class",
                "generate slice",
                "generate taint-rule",
                "completion",
                "selector check",
                "discover",
                "lint",
                "validate",
            )
            and "--explain" not in argv
        )
        else set()
    )
    assert result.exit_code in allowed, f"dractl {' '.join(argv)} → {result.exit_code}\n{result.stderr}"
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_every_command_has_an_example_that_runs() -> None:
    commands = {c for c, _ in EXAMPLES}
    stack, leaves = [((), ROOT)], set()
    while stack:
        path, cmd = stack.pop()
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            stack.extend(((*path, n), c) for n, c in subs.items() if not c.hidden)
        else:
            leaves.add(" ".join(path))
    assert leaves <= commands, f"commands without a runnable example: {sorted(leaves - commands)}"
