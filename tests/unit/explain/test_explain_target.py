"""Target resolution: claims of a pod as kube-scheduler and the claim controller see them."""

from __future__ import annotations

import pytest
from explain_builders import claim, device_class, node, pod, template, world

from dractl.errors import InputError
from dractl.explain import target as tgt
from dractl.explain.extended import extended_claim, extended_requests


def test_pod_with_named_claim_and_template_claim_not_created_yet() -> None:
    w = world(
        claim("shared"),
        template("one-gpu"),
        pod(
            "p",
            claims=[
                {"name": "a", "resourceClaimName": "shared"},
                {"name": "b", "resourceClaimTemplateName": "one-gpu"},
            ],
        ),
    )
    t = tgt.from_pod(w, "p", "default")
    assert [c.origin for c in t.claims] == ["claim", "template"]
    generated = t.claims[1].claim
    assert generated.meta.generate_name == "p-b-"
    assert generated.meta.labels == {"app": "x"}
    assert generated.meta.owner_references[0]["kind"] == "Pod"
    assert generated.spec.requests[0].exactly is not None
    assert not t.blockers


def test_template_claim_already_created_is_looked_up_through_pod_status() -> None:
    w = world(
        claim("p-b-x7k9m", allocated_on="n1", devices=["gpu-0"]),
        template("one-gpu"),
        pod(
            "p",
            claims=[{"name": "b", "resourceClaimTemplateName": "one-gpu"}],
            statuses=[{"name": "b", "resourceClaimName": "p-b-x7k9m"}],
        ),
    )
    t = tgt.from_pod(w, "default/p", "other")
    assert t.claims[0].key == "default/p-b-x7k9m"
    assert t.claims[0].allocated


@pytest.mark.parametrize(
    ("docs", "needle"),
    [
        pytest.param(
            [pod("p", claims=[{"name": "a", "resourceClaimName": "gone"}])],
            "resourceclaim default/gone (pod claim a) not found",
            id="claim-missing",
        ),
        pytest.param(
            [pod("p", claims=[{"name": "a", "resourceClaimTemplateName": "gone"}])],
            "resourceclaimtemplate default/gone (pod claim a) not found",
            id="template-missing",
        ),
        pytest.param(
            [claim("c", deleting=True), pod("p", claims=[{"name": "a", "resourceClaimName": "c"}])],
            "is being deleted",
            id="claim-deleting",
        ),
        pytest.param(
            [
                claim("c", allocated_on="n1", devices=["gpu-0"], reserved=256),
                pod("p", claims=[{"name": "a", "resourceClaimName": "c"}]),
            ],
            "reservedFor already lists 256 consumers",
            id="reserved-for-full",
        ),
    ],
)
def test_pod_level_blockers(docs: list[dict[str, object]], needle: str) -> None:
    t = tgt.from_pod(world(*docs), "p", "default")
    assert any(needle in b for b in t.blockers), t.blockers


def test_reserved_for_below_limit_is_no_blocker() -> None:
    w = world(
        claim("c", allocated_on="n1", devices=["gpu-0"], reserved=255),
        pod("p", claims=[{"name": "a", "resourceClaimName": "c"}]),
    )
    assert not tgt.from_pod(w, "p", "default").blockers


def test_unknown_pod_and_claim_are_input_errors_with_did_you_mean() -> None:
    w = world(claim("single-gpu"), pod("notebook"))
    with pytest.raises(InputError, match="did you mean 'notebook'"):
        tgt.from_pod(w, "noteboo", "default")
    with pytest.raises(InputError, match="did you mean 'single-gpu'"):
        tgt.from_claim_names(w, ["singel-gpu"], "default")
    with pytest.raises(InputError, match="not a valid reference"):
        tgt.split_ref("a/b/c", "default")


def test_extended_resource_becomes_requests_named_like_the_scheduler() -> None:
    w = world(
        device_class("gpu.example.com", ext="example.com/gpu"),
        pod("p", limits={"example.com/gpu": 2, "cpu": "1"}, init_limits={"example.com/gpu": 3}),
    )
    assert extended_requests(w, w.pods[0]) == (("example.com/gpu", 3),)
    c = extended_claim(w, w.pods[0], w.nodes[0] if w.nodes else None)
    assert c is not None
    names = [(r.name, r.exactly.count if r.exactly else None) for r in c.spec.requests]
    # init container 0 needs 3: the main container's 2 are reused, so it asks for 1 more
    assert names == [("container-0-request-0", 1), ("container-1-request-1", 2)]
    assert c.meta.annotations == {"resource.kubernetes.io/extended-resource-claim": "true"}


def test_extended_resource_served_by_device_plugin_on_a_node_is_not_dra() -> None:
    w = world(
        device_class("gpu.example.com", ext="example.com/gpu"),
        node("dp", allocatable={"example.com/gpu": "4"}),
        node("dra"),
        pod("p", limits={"example.com/gpu": 1}),
    )
    p = w.pods[0]
    assert extended_claim(w, p, w.node("dp")) is None
    assert extended_claim(w, p, w.node("dra")) is not None


def test_implicit_extended_resource_name() -> None:
    w = world(
        device_class("gpu.example.com"),
        pod("p", limits={"deviceclass.resource.kubernetes.io/gpu.example.com": 1}),
    )
    assert extended_requests(w, w.pods[0]) == (("deviceclass.resource.kubernetes.io/gpu.example.com", 1),)


def test_inputs_not_mutated() -> None:
    w = world(template("one-gpu"), pod("p", claims=[{"name": "b", "resourceClaimTemplateName": "one-gpu"}]))
    before = (w.templates, w.pods, w.claims)
    tgt.from_pod(w, "p", "default")
    assert (w.templates, w.pods, w.claims) == before


def test_shared_claim_is_noted() -> None:
    w = world(
        claim("c", allocated_on="n1", devices=["gpu-0"], reserved=3),
        pod("p", claims=[{"name": "a", "resourceClaimName": "c"}]),
    )
    t = tgt.from_pod(w, "p", "default")
    assert not t.blockers
    assert "claim default/c is shared: already reserved for 3 other consumers" in t.notes
