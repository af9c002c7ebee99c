"""QA: `dractl lint` / `claim|slice|class validate` on malformed input and odd flags.

Each case is a regression found by QA: the command must answer with findings (exit 1) or one
clear input/usage error (exit 2), never an internal error (exit 70).
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.io.loader import load_paths
from dractl.model.features import Features
from dractl.validate.lint import lint
from dractl.validate.options import ValidateOptions

V1 = "resource.k8s.io/v1"

COUNTER_SLICE: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceSlice",
    "metadata": {"name": "s2"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
        "sharedCounters": [{"name": "cs", "counters": {"c": {"value": "4"}}}],
    },
}
DEVICE_SLICE: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceSlice",
    "metadata": {"name": "s1"},
    "spec": {
        "driver": "gpu.example.com",
        "nodeName": "n1",
        "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
        "devices": [
            {
                "name": "d0",
                "allowMultipleAllocations": True,
                "attributes": {"model": {"string": "x"}, "uuid": {"string": "GPU-1"}},
                "capacity": {
                    "mem": {
                        "value": "4Gi",
                        "requestPolicy": {"default": "1Gi", "validRange": {"min": "1Gi", "step": "1Gi"}},
                    }
                },
                "consumesCounters": [{"counterSet": "cs", "counters": {"c": {"value": "1"}}}],
                "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
            }
        ],
    },
}
CLASS: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "DeviceClass",
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}
CLAIM: dict[str, Any] = {
    "apiVersion": V1,
    "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "default"},
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": "r",
                    "exactly": {
                        "deviceClassName": "gpu",
                        "count": 1,
                        "selectors": [
                            {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "x"'}}
                        ],
                        "tolerations": [
                            {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}
                        ],
                        "capacity": {"requests": {"mem": "1Gi"}},
                    },
                }
            ],
            "constraints": [{"requests": ["r"], "matchAttribute": "gpu.example.com/model"}],
        }
    },
}
TAINT_RULE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1beta2",
    "kind": "DeviceTaintRule",
    "metadata": {"name": "r"},
    "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "NoExecute"}},
}
WORLD = [COUNTER_SLICE, DEVICE_SLICE, CLASS, CLAIM, TAINT_RULE]


def _write(path: Path, docs: list[Any]) -> Path:
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def _no_internal_error(r: Any) -> None:
    assert r.exit_code in (0, 1, 2), (r.exit_code, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("command", [["lint"], ["slice", "validate"], ["claim", "validate", "--snapshot"]])
def test_non_scalar_quantities_are_findings_not_crashes(
    run_cli: Callable[..., Any], tmp_path: Path, command: list[str]
) -> None:
    """Regression: a mapping where a quantity belongs crashed the pool/counter and capacity checks
    (KeyError: 0, exit 70) — in `lint`, `slice validate` and through the cross-object checks."""
    world = copy.deepcopy(WORLD)
    world[0]["spec"]["sharedCounters"][0]["counters"]["c"]["value"] = {"q": 1}
    dev = world[1]["spec"]["devices"][0]
    dev["capacity"]["mem"]["value"] = {"x": 1}
    dev["capacity"]["mem"]["requestPolicy"]["validRange"]["min"] = {"a": 1}
    dev["consumesCounters"][0]["counters"]["c"]["value"] = {"z": 1}
    path = _write(tmp_path / "in.yaml", world)
    args = [*command, str(path)] if command[-1] != "--snapshot" else [*command, str(path), str(path)]
    r = run_cli(args)
    _no_internal_error(r)
    # the snapshot's objects are context (not validated): only the claim is, and it is fine
    assert r.exit_code == (0 if "--snapshot" in command else 1)
    if command == ["lint"]:
        assert "SCHEMA-TYPE" in r.stdout and "spec.sharedCounters[0].counters[c].value" in r.stdout


def test_misspelled_dra_kind_is_reported_by_claim_validate(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Regression: `claim validate` skipped `kind: ResourceClaims` as "another kind" and exited 0."""
    typo = {**copy.deepcopy(CLAIM), "kind": "ResourceClaims"}
    r = run_cli(["claim", "validate", str(_write(tmp_path / "c.yaml", [typo]))])
    assert r.exit_code == 1
    assert 'API-UNKNOWN-KIND   no matches for kind "ResourceClaims"' in r.stdout
    kindless = {"apiVersion": V1, "metadata": {"name": "x"}}
    r = run_cli(["slice", "validate", str(_write(tmp_path / "k.yaml", [kindless]))])
    assert r.exit_code == 1 and "SCHEMA-NO-KIND" in r.stdout
    # objects of other, real kinds are still skipped
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    r = run_cli(["class", "validate", str(_write(tmp_path / "cm.yaml", [cm, CLASS]))])
    assert r.exit_code == 0 and "ignored 1 object(s) of other kinds" in r.stderr


@pytest.mark.parametrize("old", ["missing.yaml", "broken.yaml"])
def test_unreadable_old_file_is_an_input_error(run_cli: Callable[..., Any], tmp_path: Path, old: str) -> None:
    """Regression: `--old FILE` that is missing or not YAML was ignored (validated as a create, exit 0)."""
    (tmp_path / "broken.yaml").write_text("metadata:\n  name: [x\n")
    path = _write(tmp_path / "c.yaml", [CLASS])
    r = run_cli(["lint", str(path), "--old", str(tmp_path / old)])
    assert r.exit_code == 2
    assert f"dractl: error: {tmp_path / old}" in r.stderr
    r = run_cli(["class", "validate", str(path), "--old", str(path)])
    assert r.exit_code == 0


def test_empty_kube_version_is_a_usage_error(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    """Regression: `--kube-version ''` silently meant 1.37."""
    r = run_cli(["lint", str(_write(tmp_path / "c.yaml", [CLASS])), "--kube-version", ""])
    assert r.exit_code == 2
    assert 'invalid argument "" for "--kube-version" flag' in r.stderr


def test_taint_rule_without_selector_is_reported_as_tainting_everything(tmp_path: Path) -> None:
    """Regression: LINT-DTR-NO-SELECTOR said such a rule taints no device; the tracker Kubernetes uses
    (resourceslice/tracker, case patch-all-slices) taints every device, as dractl's matcher does."""
    rule = {**copy.deepcopy(TAINT_RULE), "spec": {"taint": {"key": "k", "effect": "NoExecute"}}}
    docs = load_paths([str(_write(tmp_path / "r.yaml", [rule]))]).docs
    found = lint(docs, ValidateOptions(kube_version="1.37", features=Features.for_version("1.37")))
    assert [(f.rule, f.path) for f in found] == [("LINT-DTR-NO-SELECTOR", "spec")]
    # (the eviction controller matched nothing for a missing selector: only scheduling is blocked)
    assert "in Kubernetes v1.37.0 the scheduler treats it as tainting every device" in found[0].message


LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.lists(st.integers(0, 3), max_size=3),
    st.dictionaries(st.sampled_from(["value", "x", "name", "string"]), st.integers(0, 2), max_size=2),
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


ALL_PATHS = [(i, p) for i, doc in enumerate(WORLD) for p in _paths(doc)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.lists(st.sampled_from(ALL_PATHS), min_size=1, max_size=3),
    leaves=st.lists(LEAVES, min_size=3, max_size=3),
)
def test_cross_object_lint_survives_any_value_anywhere(
    where: list[tuple[int, tuple[Any, ...]]], leaves: list[Any]
) -> None:
    """Any value at any place of a connected set of objects (slices, class, claim, taint rule):
    the cross-object lint returns findings and never raises."""
    world = copy.deepcopy(WORLD)
    for (i, path), leaf in zip(where, leaves, strict=False):
        cur: Any = world[i]
        try:
            for key in path[:-1]:
                cur = cur[key]
            cur[path[-1]] = leaf
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement removed this place
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "w.json"
        file.write_text("\n".join(json.dumps(d) for d in world))
        docs = load_paths([str(file)]).docs
        for version in ("1.34", "1.37"):
            opts = ValidateOptions(kube_version=version, features=Features.for_version(version))
            for finding in lint(docs, opts, context_docs=docs[:2]):
                assert finding.rule and finding.message


QUANTITY_PATHS = [(i, p) for i, p in ALL_PATHS if p[-1] in ("value", "min", "step", "default") and i < 2]


@pytest.mark.parametrize("leaf", [{}, {"x": 1}, [1], True, 2**70, -1, "1.5.6"], ids=repr)
@pytest.mark.parametrize(
    ("doc", "path"), QUANTITY_PATHS, ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
)
def test_cross_object_lint_with_any_quantity_shape(
    tmp_path: Path, doc: int, path: tuple[Any, ...], leaf: Any
) -> None:
    """Every quantity place of the slices (counter sets, consumed counters, capacity and its policy)
    with every odd shape: the cross-object lint (pools, counters, selector matching) never raises."""
    world = copy.deepcopy(WORLD)
    cur: Any = world[doc]
    for key in path[:-1]:
        cur = cur[key]
    cur[path[-1]] = leaf
    docs = load_paths([str(_write(tmp_path / "w.yaml", world))]).docs
    opts = ValidateOptions(kube_version="1.37", features=Features.for_version("1.37"))
    assert all(f.rule for f in lint(docs, opts))
