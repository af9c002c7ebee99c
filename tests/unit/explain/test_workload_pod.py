"""explain-allocation --pod accepts a workload (issue 14 item 1): one replica of its pod template;
--pod given twice is a usage error (item 6) instead of silently explaining only the last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

DEMO = Path(__file__).resolve().parents[3] / "examples" / "demo"


def test_one_replica_of_a_deployment_is_explained_like_its_pod(run_cli: Any, tmp_path: Path) -> None:
    pods = list(yaml.safe_load_all((DEMO / "pods.yaml").read_text()))
    notebook = next(p for p in pods if p and p["metadata"]["name"] == "notebook")
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "notebooks", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "nb"}},
            "template": {"metadata": {"labels": {"app": "nb"}}, "spec": notebook["spec"]},
        },
    }
    (tmp_path / "deploy.yaml").write_text(yaml.safe_dump(deployment))
    world = [str(p) for p in sorted(DEMO.glob("*.yaml")) if p.name != "pods.yaml"]
    args = ["explain-allocation", "-o", "json", *[a for f in world for a in ("-f", f)]]
    as_pod = run_cli([*args, "-f", str(DEMO / "pods.yaml"), "--pod", "notebook"])
    as_workload = run_cli([*args, "-f", str(tmp_path / "deploy.yaml"), "--pod", "notebooks"])
    assert as_workload.exit_code == as_pod.exit_code, as_workload.stderr

    def verdict(out: str) -> Any:
        doc = json.loads(out)
        return doc.get("summary") or {k: v for k, v in doc.items() if k in ("fits", "nodes")}

    assert verdict(as_workload.stdout) == verdict(as_pod.stdout)
    assert json.loads(as_workload.stdout)["summary"]["fits"] is True
    assert json.loads(as_workload.stdout)["target"]["pod"] == "default/notebooks"
    missing = run_cli([*args, "-f", str(tmp_path / "deploy.yaml"), "--pod", "nope"])
    assert missing.exit_code == 2 and "Pod default/nope not found" in missing.stderr


def test_two_pods_are_refused(run_cli: Any) -> None:
    result = run_cli(["explain-allocation", "-f", str(DEMO), "--pod", "notebook", "--pod", "legacy-cuda"])
    assert result.exit_code == 2
    assert "--pod given 2 times: explain one pod at a time" in result.stderr
