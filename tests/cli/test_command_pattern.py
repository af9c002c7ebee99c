"""The command pattern every command shares: one --kube-version, one release resolver (flags +
snapshot header), one -o error from the render registry.  Regression tests for issue 10 item 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.main

from dractl.cli.root import build_app

UNSUPPORTED = 'invalid argument "1.2" for "--kube-version" flag: unsupported Kubernetes release 1.2; one of: '

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: example.com/maintenance, value: "true", effect: NoSchedule}]
"""
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        tolerations: [{key: example.com/maintenance, operator: Exists, effect: NoSchedule}]
"""
# A 1.37 cluster that turned device taints off: the server drops taints and tolerations.
SNAPSHOT = """\
apiVersion: dractl/v1alpha1
kind: Snapshot
serverVersion: v1.37.1
featureGates: {DRADeviceTaints: false}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {}
"""


def _commands() -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []

    def walk(cmd: object, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if isinstance(subs, dict):
            for name, sub in sorted(subs.items()):
                walk(sub, (*path, name))
        else:
            out.append(path)

    walk(typer.main.get_command(build_app()), ())
    return out


def _with_option(option: str) -> list[tuple[str, ...]]:
    root = typer.main.get_command(build_app())
    found = []
    for path in _commands():
        cmd = root
        for word in path:
            cmd = cmd.commands[word]  # type: ignore[attr-defined]
        if any(option in p.opts for p in cmd.params):
            found.append(path)
    return found


KUBE_VERSION_COMMANDS = _with_option("--kube-version")
# Report commands (generate and snapshot write Kubernetes manifests, not reports).
OUTPUT_COMMANDS = [p for p in _with_option("--output") if p[0] not in ("generate", "snapshot", "completion")]


def test_the_walk_finds_the_version_sensitive_commands() -> None:
    for path in [
        ("validate",),
        ("lint",),
        ("explain-allocation",),
        ("selector", "check"),
        ("discover",),
        ("claim", "validate"),
        ("slice", "validate"),
        ("class", "validate"),
    ]:
        assert path in KUBE_VERSION_COMMANDS


@pytest.mark.parametrize("path", KUBE_VERSION_COMMANDS, ids=[" ".join(p) for p in KUBE_VERSION_COMMANDS])
def test_one_message_for_an_unsupported_kube_version(path: tuple[str, ...], run_cli) -> None:
    result = run_cli([*path, "--kube-version", "1.2"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"dractl: error: {UNSUPPORTED}1.34, 1.35, 1.36, 1.37\nSee 'dractl {' '.join(path)} --help'.\n"
    )


@pytest.mark.parametrize("text", ["1.37.x", "latest", "", "1", "v1.36.2.1", "1.36-rc.0"])
def test_malformed_kube_version(text: str, run_cli) -> None:
    result = run_cli(["validate", "x.yaml", "--kube-version", text])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f'dractl: error: invalid argument "{text}" for "--kube-version" flag: '
        "expected a Kubernetes release such as 1.35, v1.35, 1.35.2 or v1.35.2\n"
    )


@pytest.mark.parametrize("text", ["1.35", "v1.35", "1.35.2", "v1.35.2", "V1.35.0"])
def test_versions_as_users_write_them(text: str, run_cli, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CLAIM)
    result = run_cli(["validate", "c.yaml", "--kube-version", text, "-o", "json"], cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["kubeVersion"] == "1.35"


@pytest.mark.parametrize("path", OUTPUT_COMMANDS, ids=[" ".join(p) for p in OUTPUT_COMMANDS])
def test_the_registry_words_every_bad_output(path: tuple[str, ...], run_cli) -> None:
    result = run_cli([*path, "-o", "html"])
    assert result.exit_code == 2
    name = " ".join(path)
    assert result.stderr.startswith(f"dractl: error: --output html is not supported by {name}; one of: table")
    assert result.stderr.endswith(f"See 'dractl {name} --help'.\n")


def test_output_is_case_insensitive(run_cli, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CLAIM)
    result = run_cli(["validate", "c.yaml", "-o", "JSON"], cwd=tmp_path)
    assert result.exit_code == 0 and json.loads(result.stdout)["kind"] == "ValidationReport"


def _rules(stdout: str) -> set[str]:
    return {item["rule"] for item in json.loads(stdout)["items"]}


@pytest.mark.parametrize(
    "args",
    [
        ["slice", "validate", "s.yaml"],
        ["lint", "s.yaml"],
        ["claim", "validate", "c.yaml"],
        ["lint", "c.yaml"],
    ],
)
def test_snapshot_feature_gates_apply_to_every_validation_command(
    args: list[str], run_cli, tmp_path: Path
) -> None:
    (tmp_path / "s.yaml").write_text(SLICE)
    (tmp_path / "c.yaml").write_text(CLAIM)
    (tmp_path / "snap.yaml").write_text(SNAPSHOT)
    plain = run_cli([*args, "-o", "json"], cwd=tmp_path)
    assert "WARN-DROPPED-FIELD" not in _rules(plain.stdout), plain.stdout
    gated = run_cli([*args, "--snapshot", "snap.yaml", "-o", "json"], cwd=tmp_path)
    assert "WARN-DROPPED-FIELD" in _rules(gated.stdout), gated.stdout
    assert json.loads(gated.stdout)["summary"]["kubeVersion"] == "1.37"
    flag_wins = run_cli(
        [*args, "--snapshot", "snap.yaml", "--feature-gates", "DRADeviceTaints=true", "-o", "json"],
        cwd=tmp_path,
    )
    assert "WARN-DROPPED-FIELD" not in _rules(flag_wins.stdout)


def test_validate_applies_the_gates_of_a_snapshot_given_as_input(run_cli, tmp_path: Path) -> None:
    (tmp_path / "snap.yaml").write_text(SNAPSHOT + "---\n" + SLICE)
    result = run_cli(["validate", "snap.yaml", "-o", "json"], cwd=tmp_path)
    assert "WARN-DROPPED-FIELD" in _rules(result.stdout), result.stdout


def test_explain_uses_the_same_resolver(run_cli) -> None:
    result = run_cli(
        [
            "explain-allocation",
            "--claim",
            "two-h100",
            "-f",
            "examples/demo/",
            "--kube-version",
            "v1.36.1",
            "-o",
            "json",
        ],
        cwd=Path(__file__).resolve().parents[2],
    )
    assert json.loads(result.stdout)["context"]["kubeVersion"] == "1.36", result.stderr


def test_a_snapshot_from_an_unsupported_release_warns(run_cli, tmp_path: Path) -> None:
    (tmp_path / "snap.yaml").write_text(SNAPSHOT.replace("v1.37.1", "v1.29.4"))
    (tmp_path / "s.yaml").write_text(SLICE)
    result = run_cli(["lint", "s.yaml", "--snapshot", "snap.yaml", "-o", "json"], cwd=tmp_path)
    assert json.loads(result.stdout)["summary"]["kubeVersion"] == "1.37"
    assert (
        "Warning: the snapshot is from Kubernetes v1.29.4, which dractl has no rules for; using 1.37"
        in result.stderr
    )
