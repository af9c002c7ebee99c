"""``dractl validate`` end to end: exit codes, stdin, formats, flags, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "output" / "validation-report.schema.json").read_text()
)

GOOD = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
"""
DEPRECATED = GOOD.replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta1\n")
UNKNOWN = GOOD + "spec:\n  colour: red\n"


def report(stdout: str) -> dict:
    doc = json.loads(stdout)
    Draft202012Validator(SCHEMA).validate(doc)
    return doc


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, text in {"good.yaml": GOOD, "old.yaml": DEPRECATED, "bad.yaml": UNKNOWN}.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "name, flags, code",
    [
        # old.yaml is v1beta1: not served by a default API server (KEP-3136), so an error at every release.
        ("good.yaml", [], 0),
        ("old.yaml", [], 1),
        ("old.yaml", ["--strict"], 1),
        ("bad.yaml", [], 1),
        ("bad.yaml", ["--lenient"], 0),
        ("bad.yaml", ["--lenient", "--strict"], 1),
        ("old.yaml", ["--kube-version", "1.34"], 1),
    ],
)
def test_exit_codes(run_cli, files: Path, name: str, flags: list[str], code: int) -> None:
    result = run_cli(["validate", name, *flags, "-o", "json"], cwd=files)
    assert result.exit_code == code, result.stderr
    assert report(result.stdout)["summary"]["objects"] == 1


def test_unreadable_input_wins_over_findings(run_cli, files: Path) -> None:
    result = run_cli(["validate", "bad.yaml", "missing.yaml", "-o", "json"], cwd=files)
    assert result.exit_code == 2
    doc = report(result.stdout)
    assert doc["summary"]["errors"] == 1 and doc["summary"]["inputErrors"] == 1
    assert result.stderr == "dractl: error: missing.yaml: no such file or directory\n"


def test_stdin(run_cli) -> None:
    result = run_cli(["validate", "-", "-o", "json"], input=UNKNOWN)
    assert result.exit_code == 1
    (item,) = report(result.stdout)["items"]
    assert (item["file"], item["line"], item["path"]) == ("-", 6, "spec.colour")


def test_directory_walk_counts_files_and_skips_templates(run_cli, files: Path) -> None:
    (files / "sub").mkdir()
    (files / "sub" / "x.yaml.tmpl").write_text("{{ nope }}")
    (files / "sub" / "ns.yml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    doc = report(run_cli(["validate", ".", "-o", "json"], cwd=files).stdout)
    assert doc["summary"]["files"] == 4 and doc["summary"]["skippedByKind"] == {"Namespace": 1}


@pytest.mark.parametrize("fmt", ["table", "wide", "json", "yaml", "github", "junit", "sarif"])
def test_every_format_renders(run_cli, files: Path, fmt: str) -> None:
    result = run_cli(["validate", "bad.yaml", "-o", fmt], cwd=files)
    assert result.exit_code == 1 and result.stdout and result.stderr == ""
    if fmt == "json":
        report(result.stdout)


def test_kube_version_changes_the_verdict(run_cli, tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec:\n  taint: {key: k, effect: NoSchedule}\n"
    )
    assert run_cli(["validate", "r.yaml", "-o", "json"], cwd=tmp_path).exit_code == 0
    old = run_cli(["validate", "r.yaml", "-o", "json", "--kube-version", "1.36"], cwd=tmp_path)
    assert old.exit_code == 1
    assert report(old.stdout)["items"][0]["rule"] == "API-VERSION-NOT-SERVED"


def test_locked_feature_gate_warns(run_cli, files: Path) -> None:
    result = run_cli(["validate", "good.yaml", "--feature-gates", "DRAPrioritizedList=false"], cwd=files)
    assert result.exit_code == 0
    assert result.stderr.startswith("Warning: feature gate DRAPrioritizedList is locked in Kubernetes 1.37")


@pytest.mark.parametrize("size, code", [("1Ki", 0), ("10", 2), ("lots", 2)])
def test_max_input_size(run_cli, files: Path, size: str, code: int) -> None:
    result = run_cli(["validate", "good.yaml", "--max-input-size", size], cwd=files)
    assert result.exit_code == code
    if code:
        assert result.stderr.startswith("dractl: error: ") and result.stderr[-1] == "\n"
        assert result.stderr.count("\n") <= 2


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01\x02binary",
        b"a: [1, 2\n",
        b"- just\n- a list\n",
        b"key: value\n\xff\xfe bad utf8\n",
        b"a: &x [*x]\n",
        b"kind: [\n",
    ],
)
def test_malformed_input_is_one_clear_line(run_cli, tmp_path: Path, content: bytes) -> None:
    (tmp_path / "in.yaml").write_bytes(content)
    result = run_cli(["validate", "in.yaml"], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith("dractl: error: in.yaml") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_explain(run_cli) -> None:
    result = run_cli(["validate", "--explain", "SCHEMA-DUPLICATE-FIELD"])
    assert result.exit_code == 0 and result.stdout.startswith("SCHEMA-DUPLICATE-FIELD")
    assert "kubectl rejects it" in result.stdout
    bad = run_cli(["validate", "--explain", "NOPE-RULE"])
    assert bad.exit_code == 2 and bad.stderr.startswith("dractl: error: unknown rule 'NOPE-RULE'")


def test_snapshot_header_sets_the_default_kube_version(run_cli, tmp_path: Path) -> None:
    (tmp_path / "snap.yaml").write_text(
        "apiVersion: dractl/v1alpha1\nkind: Snapshot\nserverVersion: v1.36.2\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec:\n  taint: {key: k, effect: NoSchedule}\n"
    )
    implied = run_cli(["validate", "snap.yaml", "-o", "json"], cwd=tmp_path)
    assert implied.exit_code == 1, implied.stderr
    assert report(implied.stdout)["summary"]["kubeVersion"] == "1.36"
    explicit = run_cli(["validate", "snap.yaml", "-o", "json", "--kube-version", "1.37"], cwd=tmp_path)
    assert explicit.exit_code == 0 and report(explicit.stdout)["summary"]["kubeVersion"] == "1.37"


@pytest.mark.parametrize(
    "flag, header, expected",
    [
        (None, None, "1.37"),
        ("1.35", {"serverVersion": "v1.36.0"}, "1.35"),
        (None, {"serverVersion": "v1.34.3"}, "1.34"),
        (None, {"serverVersion": "v1.29.0"}, "1.37"),
        (None, {"serverVersion": None}, "1.37"),
    ],
)
def test_release_version_precedence(flag: str | None, header: dict | None, expected: str) -> None:
    from dractl.io.release import resolve_release
    from dractl.io.snapshot_header import SnapshotHeader

    assert resolve_release(flag, None, SnapshotHeader.from_raw(header)).kube_version == expected


@pytest.mark.parametrize(
    "text, value",
    [
        ("1048576", 1048576),
        ("64Mi", 64 * 2**20),
        ("1G", 10**9),
        ("1GB", 10**9),
        ("2GiB", 2 * 2**30),
        ("10k", 10_000),
        ("5B", 5),
    ],
)
def test_parse_size(text: str, value: int) -> None:
    from dractl.cli.options import parse_size

    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5G", "1Q", "Mi"])
def test_parse_size_rejects(text: str) -> None:
    from dractl.cli.options import parse_size
    from dractl.errors import UsageError

    with pytest.raises(UsageError):
        parse_size(text)
