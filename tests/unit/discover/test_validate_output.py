"""Everything `dractl discover -o yaml` emits validates clean.

Uses dractl's own validator (``dractl.validate.engine.validate_docs`` on documents read by
``dractl.io.load_paths``, plus the cross-object ``lint`` when present); falls back to the
JSON Schemas in ``schemas/`` when the validator is missing; fails when neither exists.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from discover_support import REPO

from dractl.discover import BuildOptions, DiscoverOptions, Inventory, build, discover
from dractl.model.features import Features


def _validator() -> Any:
    try:
        engine = importlib.import_module("dractl.validate.engine")
        io = importlib.import_module("dractl.io")
        options = importlib.import_module("dractl.validate.options")
    except ImportError:
        return None
    try:
        lint = importlib.import_module("dractl.validate.lint").lint
    except (ImportError, AttributeError):
        lint = None
    return engine.validate_docs, io.load_paths, options.ValidateOptions, lint


def _schema_check(slices: list[dict[str, Any]], version: str) -> list[str]:
    import jsonschema

    path = REPO / "schemas" / f"v{version}" / "resourceslice-v1.json"
    if not path.is_file():
        pytest.fail(f"neither dractl.validate nor {path} exists: nothing to validate the output with")
    validator = jsonschema.Draft202012Validator(json.loads(path.read_text()))
    return [f"{s['metadata']['name']}: {e.message}" for s in slices for e in validator.iter_errors(s)]


def problems(slices: list[dict[str, Any]], version: str, features: Features, tmp_path: Path) -> list[str]:
    """Error findings (and warnings, except feature-gate notices when gates are the defaults)."""
    tool = _validator()
    if tool is None:
        return _schema_check(slices, version)
    validate_docs, load_paths, options, lint = tool
    path = tmp_path / "slices.yaml"
    path.write_text(yaml.safe_dump_all(slices, sort_keys=False))
    loaded = load_paths([str(path)])
    assert not loaded.errors
    opts = options(kube_version=version, features=features)
    report = validate_docs(loaded.docs, opts, input_errors=loaded.errors, files=loaded.files)
    findings = list(report.findings) + (list(lint(loaded.docs, opts)) if lint else [])
    assert report.summary.objects == len(slices)
    return [
        f"{f.severity.value} {f.rule} {f.path}: {f.message}" for f in findings if not _expected(f, version)
    ]


def _expected(f: Any, version: str) -> bool:
    """Lint notices about how real drivers must publish, not problems in the output."""
    # Before 1.35 a counter set must sit in the slice of the devices consuming it; lint notes
    # that this layout stops working at 1.35 (discover switches layouts with --kube-version).
    return f.rule == "LINT-DEVICES-AND-COUNTERS" and version == "1.34"


CASES = [  # (fixture, kinds, build options, kube version, feature gates)
    ("h100-8gpu", "gpu,cpu", {}, "1.37", ""),
    ("h100-8gpu", "gpu", {"mig_mode": "partitionable"}, "1.37", ""),
    ("h100-8gpu", "gpu", {"mig_mode": "partitionable"}, "1.36", ""),
    ("h100-8gpu", "gpu", {"mig_mode": "partitionable"}, "1.35", "DRAPartitionableDevices=true"),
    ("h100-8gpu", "gpu", {"mig_mode": "partitionable"}, "1.34", "DRAPartitionableDevices=true"),
    ("h100-8gpu", "gpu", {"legacy_gpu_attributes": True}, "1.34", ""),
    ("h100-8gpu", "cpu", {"cpu_mode": "individual"}, "1.37", ""),
    ("connectx-sriov", "nic", {}, "1.37", ""),
    ("cpu-2socket", "cpu", {}, "1.36", ""),
    ("cpu-2socket", "cpu", {"cpu_mode": "individual"}, "1.34", ""),
]


@pytest.mark.parametrize(
    ("fixture", "kinds", "extra", "version", "gates"),
    CASES,
    ids=[f"{c[0]}-{c[1]}-{'-'.join(map(str, c[2].values())) or 'default'}-{c[3]}" for c in CASES],
)
def test_fixture_output_validates_clean(
    tmp_path: Path, fixture: str, kinds: str, extra: dict[str, Any], version: str, gates: str
) -> None:
    root = REPO / "tests" / "fixtures" / "discover" / fixture
    nvml = root / "nvml.json"
    inv = discover(
        DiscoverOptions(
            node="node-1.example.com",
            kinds=frozenset(kinds.split(",")),
            sysfs_root=root / "sys",
            nvml_fixture=nvml if nvml.exists() else None,
        )
    ).inventory
    features = Features.parse(gates, Features.for_version(version))
    result = build(
        inv,
        BuildOptions(
            node=inv.node, kube_version=version, features=features, kinds=frozenset(kinds.split(",")), **extra
        ),
    )
    assert result.slices
    assert problems(result.slices, version, features, tmp_path) == []


def test_this_machine_output_validates_clean(tmp_path: Path) -> None:
    inv: Inventory = discover(DiscoverOptions(node="this-node")).inventory
    result = build(inv, BuildOptions(node="this-node"))
    errors = [
        p
        for p in problems(result.slices, "1.37", Features.for_version("1.37"), tmp_path)
        if p.startswith("error")
    ]
    assert errors == []
