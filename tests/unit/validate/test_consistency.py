"""Consistency bugs of issue 14 item 6, one regression test each (engine side)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dractl.io.loader import load_paths
from dractl.validate.lint import lint
from dractl.validate.options import ValidateOptions

V1 = "resource.k8s.io/v1"
CLASS = {
    "apiVersion": V1,
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.example.com"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}


def _docs(tmp_path: Path, *objs: dict[str, Any]) -> Any:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(list(objs), sort_keys=False))
    return load_paths([str(path)]).docs


def test_a_placeholder_device_is_not_counted_as_a_device(tmp_path: Path) -> None:
    """A doc's `- ...` entry (a string, the schema's error) is no device for lint's counts."""
    slice_ = {
        "apiVersion": V1,
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": "n1",
            "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
            "devices": ["...", {"name": "gpu-0", "attributes": {"model": {"string": "a100"}}}],
        },
    }
    claim = {
        "apiVersion": V1,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "d"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": "gpu.example.com",
                            "selectors": [
                                {"cel": {"expression": 'device.attributes["gpu.example.com"].memory == 1'}}
                            ],
                        },
                    }
                ]
            }
        },
    }
    found = lint(_docs(tmp_path, CLASS, slice_, claim), ValidateOptions())
    texts = [f.message for f in found]
    assert any("published by 0 of 1 devices" in t for t in texts), texts
    assert not any("of 2 devices" in t for t in texts), texts


def test_an_unknown_feature_gate_gets_a_did_you_mean_not_the_whole_list() -> None:
    import pytest

    from dractl.model.features import GATE_NAMES, Features

    with pytest.raises(ValueError) as info:
        Features.parse("DRAPrioritisedList=true")
    assert (
        str(info.value) == "unknown DRA feature gate 'DRAPrioritisedList'; did you mean DRAPrioritizedList?"
    )
    with pytest.raises(ValueError) as info:
        Features.parse("Foo=true")
    listed = [g for g in GATE_NAMES.values() if g in str(info.value) and g != "DRAPrioritizedList"]
    assert listed == [] and "e.g. DRAPrioritizedList" in str(info.value)


def test_versions_as_users_write_them() -> None:
    import pytest

    from dractl.model.features import parse_kube_version

    assert [parse_kube_version(v) for v in ("1.35", "v1.35", "1.35.2", "v1.35.2", "v1.37.1-gke.100")] == [
        ("1.35", None),
        ("1.35", None),
        ("1.35", 2),
        ("1.35", 2),
        ("1.37", 1),
    ]
    for bad in ("1.2.3.4", "2.0", "v", "1.x", "", "1.35.", "one.two"):
        with pytest.raises(ValueError, match=r"expected 1\.MINOR or 1\.MINOR\.PATCH"):
            parse_kube_version(bad)


def test_a_patch_release_changes_the_missing_selector_verdict(tmp_path: Path) -> None:
    """kubernetes PR #141648: a DeviceTaintRule without deviceSelector tainted every device (scheduler)
    up to v1.37.0 and matches none from v1.37.1; other minors: before = tainted, a patch = its minor."""
    from dractl.model.features import patch_has

    rule = {
        "apiVersion": V1,
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"taint": {"key": "k", "effect": "NoSchedule"}},
    }
    docs = _docs(tmp_path, rule)

    def message(version: str, patch: int | None) -> str:
        (f,) = lint(docs, ValidateOptions(kube_version=version, kube_patch=patch))
        assert f.rule == "LINT-DTR-NO-SELECTOR"
        return f.message

    assert "in Kubernetes v1.37.0 the scheduler treats it as tainting every device" in message("1.37", 0)
    assert "in Kubernetes v1.37.2 it matches no device, as documented" in message("1.37", 2)
    both = message("1.37", None)
    assert "v1.37.0 the scheduler treats" in both and "from v1.37.1 it matches no device" in both
    assert "in Kubernetes v1.36.4 the scheduler treats it" in message("1.36", 4)
    assert [
        patch_has("dtr-nil-selector-matches-none", v, p)
        for v, p in (("1.36", None), ("1.37", 0), ("1.37", 1), ("1.37", None))
    ] == [False, False, True, None]
