"""Huge values (issue 11): a 2.9-million-character value copied into a message is bounded where
the finding (or the input error) is built, for every format, JSON included (an excerpt that says
the full length); the other findings of the run are still there."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.errors import MESSAGE_LIMIT, VALUE_LIMIT, InputError, excerpt, show_value
from dractl.render.registry import allowed_formats
from dractl.validate.findings import Finding, Severity

N = 2_900_000
HUGE = "x" * N
LENGTH = f"({N:,} characters)"
M = 300_000  # the other huge strings (names, keys, kinds): enough to see them cut, cheaper to read

MANIFEST = f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: claim
  namespace: default
spec:
  devices:
    requests:
    - name: {HUGE}
      exactly:
        deviceClassName: gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {"n" * M}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {{name: p, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      ? {"k" * M}
      : {{string: a}}
---
apiVersion: resource.k8s.io/v1
kind: {"K" * M}
metadata:
  name: typo
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: Bad_Name
"""


@pytest.fixture(scope="module")
def huge_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("huge") / "huge.yaml"
    path.write_text(MANIFEST)
    return path


def _parsed(fmt: str, out: str) -> Any:
    if fmt in ("json", "sarif"):
        return json.loads(out)
    if fmt == "yaml":
        return yaml.safe_load(out)
    if fmt == "junit":
        return ET.fromstring(out)
    return out


FORMATS = [f.value for f in allowed_formats("validation")]


CASES = [("validate", f) for f in FORMATS] + [("lint", "json"), ("lint", "table")]


@pytest.mark.parametrize(("command", "fmt"), CASES)
def test_huge_values_are_excerpts_in_every_format(
    run_cli: Any, huge_file: Path, command: str, fmt: str
) -> None:
    result = run_cli([command, "-o", fmt, str(huge_file)])
    assert result.exit_code == 1, result.stderr[:500]
    out = result.stdout + result.stderr
    assert len(out) < 200_000  # every finding quotes bounded excerpts (the input is 11 MB)
    for letter in "xnkK":
        assert letter * (MESSAGE_LIMIT + 1) not in out
    assert _parsed(fmt, result.stdout) is not None  # still well-formed
    if fmt in ("json", "yaml"):
        doc = _parsed(fmt, result.stdout)
        messages = [f["message"] for f in doc["items"]]
        names = [f["name"] for f in doc["items"]]
        assert any(m.startswith('Invalid value: "xxx') and LENGTH in m for m in messages)
        assert any(n.startswith("nnn") and n.endswith(f"({M:,} characters)") for n in names)
        assert any(f["kind"] == "DeviceClass" and f["name"] == "Bad_Name" for f in doc["items"])


def test_huge_tagged_scalar_is_a_bounded_input_error(run_cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "tag.yaml"
    f.write_text(f"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: !!int {HUGE}\n")
    result = run_cli(["validate", str(f)])
    assert result.exit_code == 2
    assert (
        len(result.stderr) < 3 * MESSAGE_LIMIT
        and result.stderr[-1] == "\n"
        and "Traceback" not in result.stderr
    )
    assert "tag.yaml" in result.stderr


def test_the_one_helper() -> None:
    assert excerpt("abc") == "abc"
    cut = excerpt(HUGE)
    assert cut == "x" * VALUE_LIMIT + f"… {LENGTH}"
    assert show_value(HUGE) == repr("x" * VALUE_LIMIT) + f"… {LENGTH}"
    assert show_value([1, 2]) == "[1, 2]"
    finding = Finding(Severity.ERROR, "R", "m" * N, "p" * N, name="n" * N, kind="k" * N, namespace="s" * N)
    for text in (finding.message, finding.path, finding.name, finding.kind, finding.namespace):
        assert len(text) < MESSAGE_LIMIT + 40 and text.endswith(LENGTH)
    err = InputError("e" * N, None, "f" * N)
    assert len(err.one_line()) < 2 * MESSAGE_LIMIT + 80
