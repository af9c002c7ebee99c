"""What-if transformations of the world (pure, never mutating)."""

from __future__ import annotations

from explain_builders import claim, gpu, node, slice_, world

from dractl.explain.whatif import WhatIf, apply


def _world():  # type: ignore[no-untyped-def]
    tainted = gpu("gpu-1")
    tainted["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {"device": "gpu-0"}, "taint": {"key": "x", "effect": "NoSchedule"}},
    }
    return world(
        node("n1"),
        node("n2"),
        slice_("s1", "n1", [gpu("gpu-0"), tainted]),
        slice_("s2", "n2", [gpu("gpu-0")]),
        rule,
        claim("held", allocated_on="n1", devices=["gpu-0"], reserved=1),
    )


def test_nothing_asked_is_the_same_world() -> None:
    w = _world()
    assert apply(w, WhatIf()) is w


def test_ignore_allocations() -> None:
    w = _world()
    out = apply(w, WhatIf(ignore_allocations=True))
    assert all(c.allocation is None and not c.reserved_for for c in out.claims)
    assert w.claims[0].allocation is not None  # not mutated


def test_ignore_taints() -> None:
    w = _world()
    out = apply(w, WhatIf(ignore_taints=True))
    assert out.taint_rules == ()
    assert all(not d.taints for s in out.slices for d in s.devices)
    assert any(d.taints for s in w.slices for d in s.devices)


def test_without_node() -> None:
    w = _world()
    out = apply(w, WhatIf(without_nodes=("n1",)))
    assert out.node_names() == ["n2"]
    assert [s.meta.name for s in out.slices] == ["s2"]
    assert out.claims == w.claims
