"""QA (user view): `dractl selector eval` on devices with invalid versions and missing attributes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: x.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: n
  devices:
  - {name: a, attributes: {v: {version: "1.0"}}}
  - {name: b, attributes: {v: {version: "1.2.3"}}}
  - {name: c}
"""


def _eval(run_cli: Any, tmp_path: Path, expr: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "slice.yaml"
    path.write_text(_SLICE)
    result = run_cli(["selector", "eval", expr, "-f", str(path), "-o", "json"])
    assert "Traceback" not in result.stderr
    return result.exit_code, json.loads(result.stdout)["items"][0]


def test_invalid_version_attribute_fails_every_expression_on_that_device(
    run_cli: Any, tmp_path: Path
) -> None:
    # Kubernetes converts all attributes of a device before evaluating, so a non-semver version
    # attribute is a runtime error even for an expression that does not read it.
    _, doc = _eval(run_cli, tmp_path, 'device.driver == "x.com"')
    by_name = {r["device"]: r for r in doc["results"]}
    assert by_name["a"]["matches"] is None and "semantic version" in by_name["a"]["error"]
    assert by_name["b"]["matches"] is True and by_name["c"]["matches"] is True


def test_missing_attribute_is_no_such_key_and_typo_reported(run_cli: Any, tmp_path: Path) -> None:
    code, doc = _eval(run_cli, tmp_path, 'device.attributes["x.com"].vv == 1')
    assert code == 1
    by_name = {r["device"]: r for r in doc["results"]}
    assert by_name["c"]["error"] == "no such key: vv"
    assert {"kind": "attributes", "name": "x.com/vv", "presentOn": 0, "devices": 3}.items() <= doc[
        "references"
    ][0].items()


def test_unknown_domain_is_an_empty_map(run_cli: Any, tmp_path: Path) -> None:
    _, doc = _eval(run_cli, tmp_path, 'size(device.attributes["other.com"]) == 0')
    assert {r["device"]: r["matches"] for r in doc["results"]} == {"a": None, "b": True, "c": True}


def test_json_reports_the_node_of_node_local_devices(run_cli: Any, tmp_path: Path) -> None:
    _, doc = _eval(run_cli, tmp_path, "true")
    assert [r["node"] for r in doc["results"]] == ["n", "n", "n"]
