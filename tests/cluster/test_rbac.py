"""deploy/rbac.yaml grants exactly what dractl reads: every rule is needed, together they are
enough, and nothing but get/list/watch is granted."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from loopback_api import LoopbackApiServer, Policy

from dractl.cluster.options import ClusterOptions
from dractl.cluster.resources import RESOURCES
from dractl.cluster.source import ClusterSource
from dractl.errors import ClusterError

RBAC = Path(__file__).resolve().parents[2] / "deploy" / "rbac.yaml"


def _cluster_role() -> dict:
    docs = [d for d in yaml.safe_load_all(RBAC.read_text()) if d]
    kinds = [d["kind"] for d in docs]
    assert kinds == ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"]
    binding = docs[3]
    assert binding["roleRef"]["name"] == docs[2]["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "dractl", "namespace": "dractl"}]
    return docs[2]


def _granted() -> set[tuple[str, str]]:
    return {(g, r) for rule in _cluster_role()["rules"] for g in rule["apiGroups"] for r in rule["resources"]}


def test_rules_are_read_only_and_exactly_the_resources_dractl_reads() -> None:
    role = _cluster_role()
    for rule in role["rules"]:
        assert sorted(rule["verbs"]) == ["get", "list", "watch"]
        assert "*" not in rule["resources"] and "*" not in rule["apiGroups"]
        assert set(rule) == {"apiGroups", "resources", "verbs"}
    assert _granted() == {(r.group, r.plural) for r in RESOURCES.values()}


def _policy(resources: set[str]) -> Policy:
    return Policy(
        "system:serviceaccount:dractl:dractl",
        [(frozenset({"get", "list", "watch"}), frozenset(resources), frozenset({"*"}))],
    )


def test_the_rules_are_enough_for_a_full_read(apiserver: LoopbackApiServer, tmp_path: Path) -> None:
    apiserver.add_token("sa-token", _policy({r for _, r in _granted()}))
    kc = apiserver.kubeconfig(tmp_path / "kc", "sa-token")
    src = ClusterSource(ClusterOptions(kubeconfig=str(kc), all_namespaces=True))
    world = src.load()
    assert not src.missing and len(world.slices) == 4 and len(world.pods) == 5


@pytest.mark.parametrize("dropped", sorted(r.plural for r in RESOURCES.values()))
def test_each_rule_is_needed(apiserver: LoopbackApiServer, tmp_path: Path, dropped: str) -> None:
    apiserver.add_token("sa-token", _policy({r for _, r in _granted()} - {dropped}))
    kc = apiserver.kubeconfig(tmp_path / "kc", "sa-token")
    with pytest.raises(ClusterError) as err:
        ClusterSource(ClusterOptions(kubeconfig=str(kc), all_namespaces=True)).load()
    assert err.value.denied and dropped in err.value.message
