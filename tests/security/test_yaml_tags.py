"""No YAML tag constructs an object (issue 11, security basics): a ``!!python/…`` tag (or any tag
beyond the plain scalar/collection ones) in any input any command reads is a one-line input error
naming the file, never a constructed object and never a side effect; no code in dractl calls a
YAML loader that could construct one."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]

PAYLOADS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/object:builtins.dict {{}}",
    "!Ref something",
]


def _claim(payload: str) -> str:
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\n  namespace: default\n"
        f"  labels:\n    x: {payload}\n"
        "spec:\n  devices:\n    requests:\n    - name: r\n      exactly: {deviceClassName: gpu}\n"
    )


def _commands(path: str) -> list[list[str]]:
    return [
        ["validate", path],
        ["lint", path],
        ["claim", "validate", path],
        ["explain-allocation", "--claim", "c", "-f", path],
        ["capacity", "--claim", "c", "-f", path],
        ["availability", "-f", path],
        ["claims", "-A", "--snapshot", path],
        ["selector", "eval", "true", "-f", path],
        ["lint", "--snapshot", path, path],
    ]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_tags_are_input_errors_everywhere(run_cli: Any, tmp_path: Path, payload: str) -> None:
    marker = tmp_path / "pwned"
    bad = tmp_path / "bad.yaml"
    bad.write_text(_claim(payload.format(marker=marker)))
    for args in _commands(str(bad)) if payload == PAYLOADS[0] else _commands(str(bad))[:2]:
        result = run_cli(args, cwd=tmp_path)
        assert result.exit_code == 2, (args, result.stdout, result.stderr)
        errors = [line for line in result.stderr.splitlines() if line.startswith("dractl: error:")]
        assert errors and all("bad.yaml" in line for line in errors), (args, result.stderr)
        assert "unsupported YAML tag" in result.stderr or "tag" in result.stderr
        assert "Traceback" not in result.stderr
    assert not marker.exists()


def test_config_file_and_device_list_tags(run_cli: Any, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = PAYLOADS[0].format(marker=marker)
    (tmp_path / "ok.yaml").write_text(_claim("a"))
    (tmp_path / ".dractl.yaml").write_text(f"kubeVersion: {payload}\n")
    result = run_cli(["lint", "--config", str(tmp_path / ".dractl.yaml"), str(tmp_path / "ok.yaml")])
    assert result.exit_code == 2 and ".dractl.yaml" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "devices.yaml").write_text(f"devices:\n- name: {payload}\n")
    result = run_cli(
        ["generate", "slice", "--from-file", str(tmp_path / "devices.yaml"), "--driver", "d.example.com"]
    )
    assert result.exit_code == 2 and "devices.yaml" in result.stderr and "Traceback" not in result.stderr
    assert not marker.exists()


def test_kubeconfig_tags_construct_nothing(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "pwned"
    kc = tmp_path / "kubeconfig"
    kc.write_text(f"apiVersion: v1\nkind: Config\nclusters: {PAYLOADS[0].format(marker=marker)}\n")
    monkeypatch.setenv("KUBECONFIG", str(kc))
    result = run_cli(["availability"])
    assert result.exit_code in (2, 3) and "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("dractl: error:")]) == 1
    assert not marker.exists()


SAFE_LOADERS = {"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"}
UNSAFE_NAMES = {"Loader", "FullLoader", "UnsafeLoader", "CLoader", "CFullLoader", "CUnsafeLoader"}


def _unsafe_yaml_calls(source: str) -> list[int]:
    """Lines that call a YAML loader that can construct objects: ``yaml.unsafe_load``/``full_load``,
    ``yaml.load``/``load_all`` whose ``Loader`` is not (provably) a safe or base loader, or any
    mention of the unsafe loader classes."""
    tree = ast.parse(source)
    assigned: dict[str, ast.expr] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value

    def names(expr: ast.expr) -> set[str]:
        if isinstance(expr, ast.Name) and expr.id in assigned:
            expr = assigned[expr.id]
        out = {n.attr for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
        out |= {n.value for n in ast.walk(expr) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        return out

    bad: list[int] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in UNSAFE_NAMES | {"unsafe_load", "full_load"}
            and isinstance(node.value, ast.Name)
            and node.value.id == "yaml"
        ):
            bad.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("load", "load_all")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "yaml"
        ):
            loader = next((k.value for k in node.keywords if k.arg == "Loader"), None)
            if loader is None and len(node.args) > 1:
                loader = node.args[1]
            used = names(loader) if loader is not None else set()
            if not used & SAFE_LOADERS or used & UNSAFE_NAMES:
                bad.append(node.lineno)
    return bad


def test_no_code_can_construct_objects_from_yaml() -> None:
    offenders = [
        f"{p.relative_to(REPO)}:{n}"
        for p in sorted((REPO / "dractl").rglob("*.py"))
        for n in _unsafe_yaml_calls(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    for code in (
        "yaml.load(text)",
        "yaml.unsafe_load(s)",
        "yaml.load(t, Loader=yaml.FullLoader)",
        "yaml.CLoader(text)",
        "loader = yaml.Loader\nyaml.load(t, Loader=loader)",
    ):
        assert _unsafe_yaml_calls(code), code
    for code in (
        "yaml.safe_load(text)",
        "yaml.load(t, Loader=yaml.SafeLoader)",
        "yaml.CSafeLoader(text)",
        'loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)\nyaml.load(t, Loader=loader)',
    ):
        assert not _unsafe_yaml_calls(code), code
