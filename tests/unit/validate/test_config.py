"""The .dractl.yaml config file (issue 14 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.errors import InputError
from dractl.validate import config

FULL = """\
kubeVersion: "1.36"
runtimeConfig: resource.k8s.io/v1beta2=true
featureGates: {DRAListTypeAttributes: true, DRAPrioritizedList: false}
classesFrom: [platform/classes.yaml]
rules:
  disable: [ADV-CLASS-EXISTS, "lint-selector-*"]
  enable: [LINT-SELECTOR-NO-MATCH]
exclude:
  - path: charts/*/tests/*
    rules: [LINT-*]
  - path: vendor/
"""


def test_full_config(tmp_path: Path) -> None:
    (tmp_path / ".dractl.yaml").write_text(FULL)
    cfg = config.load(start=tmp_path / "a" / "b")  # found upward
    assert cfg.path == str(tmp_path / ".dractl.yaml")
    assert cfg.kube_version == "1.36" and cfg.runtime_config == ("resource.k8s.io/v1beta2=true",)
    assert cfg.feature_gates == "DRAListTypeAttributes=true,DRAPrioritizedList=false"
    assert cfg.classes_from == (str(tmp_path / "platform/classes.yaml"),)
    policy = cfg.policy
    assert policy.decide("ADV-CLASS-EXISTS", "x.yaml") is not None
    assert policy.decide("LINT-SELECTOR-NO-MATCH", "x.yaml") is None
    assert policy.decide("LINT-SELECTOR-UNKNOWN-ATTRIBUTE", "x.yaml") is not None
    assert policy.decide("LINT-DUPLICATE-UUID", str(tmp_path / "charts/gpu/tests/t.yaml")) is not None
    assert policy.decide("RC-REQ-NAME", str(tmp_path / "charts/gpu/tests/t.yaml")) is None
    assert policy.decide("RC-REQ-NAME", str(tmp_path / "vendor/x.yaml")) is not None


def test_no_config_and_explicit_config(tmp_path: Path) -> None:
    empty = config.load(start=tmp_path)
    assert empty.path is None and empty.policy.empty and empty.kube_version is None
    other = tmp_path / "ci.yaml"
    other.write_text("rules: {only: [RC-*]}\n")
    cfg = config.load(str(other))
    assert (
        cfg.policy.decide("ADV-CLASS-EXISTS", "x") is not None
        and cfg.policy.decide("RC-REQ-NAME", "x") is None
    )
    with pytest.raises(InputError, match="cannot read config file"):
        config.load(str(tmp_path / "missing.yaml"))


@pytest.mark.parametrize(
    "text, field, line, message",
    [
        ("kubeVersion: 1.36\nrulez: {}\n", "rulez", 2, "unknown key (did you mean rules?)"),
        ("rules:\n  disabled: [X]\n", "rules.disabled", 2, "did you mean rules.disable?"),
        ("rules: [X]\n", "rules", 1, "expected a mapping"),
        ("rules:\n  disable: [1]\n", "rules.disable", 2, "expected strings"),
        ("exclude: [{rules: [X]}]\n", "exclude[0]", 1, "expected a mapping with a path"),
        ("exclude: [{path: a, rule: [X]}]\n", "exclude[0].rule", 1, "unknown key"),
        ("featureGates: {A: yes please}\n", "featureGates", 1, "true/false"),
        ("kubeVersion: [1]\n", "kubeVersion", 1, "expected a version"),
        ("- a\n", None, 1, "must be a mapping"),
        ("rules: {disable: [\n", None, None, "invalid YAML"),
    ],
)
def test_bad_config_is_one_line_with_file_line_and_key(
    tmp_path: Path, text: str, field: str | None, line: int | None, message: str
) -> None:
    path = tmp_path / ".dractl.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        config.load(str(path))
    err = info.value
    assert message in err.message and err.field == field
    assert err.source is not None and err.source.file == str(path)
    if line is not None:
        assert err.source.line == line
    assert "\n" not in err.one_line()


def test_empty_config_is_no_policy(tmp_path: Path) -> None:
    path = tmp_path / ".dractl.yml"
    path.write_text("")
    cfg = config.load(start=tmp_path)
    assert cfg.path == str(path) and cfg.policy.empty


def test_runtime_precedence_flags_then_config_then_snapshot(tmp_path: Path) -> None:
    from dractl.validate.versions import Availability, check

    cfg = config.parse("runtimeConfig: [resource.k8s.io/v1beta1=true]\n", str(tmp_path / ".dractl.yaml"))
    served = ["resource.k8s.io/v1", "resource.k8s.io/v1beta2"]

    def beta(runtime: object, version: str) -> Availability:
        return check(version, "ResourceClaim", "1.37", runtime).availability  # type: ignore[arg-type]

    assert (
        beta(config.runtime_for(["resource.k8s.io/v1beta2=true"], cfg, served), "v1beta1")
        is Availability.NOT_ENABLED
    )
    assert beta(config.runtime_for([], cfg, served), "v1beta1") is Availability.DEPRECATED
    assert beta(config.runtime_for([], config.Config(), served), "v1beta2") is Availability.DEPRECATED
    assert beta(config.runtime_for([], config.Config(), None), "v1beta2") is Availability.NOT_ENABLED
    bad = config.parse("runtimeConfig: resource.k8s.io/v7=true\n", str(tmp_path / ".dractl.yaml"))
    with pytest.raises(InputError, match="has no API version 'v7'") as info:
        config.runtime_for([], bad)
    assert info.value.field == "runtimeConfig"


def test_classes_from_reads_only_device_classes(tmp_path: Path) -> None:
    (tmp_path / "chart.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n---\n"
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: plugin}\n"
    )
    docs, errors = config.class_docs([str(tmp_path)])
    assert [d.raw["metadata"]["name"] for d in docs] == ["gpu.example.com"] and errors == []
    _, errors = config.class_docs([str(tmp_path / "missing.yaml")])
    assert len(errors) == 1
