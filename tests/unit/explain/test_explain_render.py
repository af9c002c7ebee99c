"""The tree renderer: a fixed report in, the exact text out."""

from __future__ import annotations

import io

from rich.console import Console

from dractl.explain.report import Blocking, Explanation, NodeExplanation, ReasonGroup, RequestFunnel, Stage
from dractl.render.explain import write_tree

CONTEXT = {
    "kubeVersion": "1.37",
    "featureGates": {},
    "featureOverrides": [],
    "sources": ["files: x"],
    "whatIf": {"ignoreAllocations": False, "ignoreTaints": True, "withoutNodes": []},
    "node": None,
}
TARGET = {
    "name": "claim default/c",
    "pod": None,
    "extendedResources": [],
    "claims": [
        {
            "name": "default/c",
            "origin": "file",
            "podClaim": None,
            "template": None,
            "allocated": False,
            "requests": ["gpu"],
        }
    ],
}


def _render(report: Explanation) -> str:
    buf = io.StringIO()
    write_tree(report, Console(file=buf, width=80, markup=False, emoji=False, highlight=False))
    return buf.getvalue()


def test_tree_for_a_blocked_request() -> None:
    funnel = RequestFunnel(
        "default/c",
        "gpu",
        None,
        "gpu.example.com",
        "2",
        4,
        (
            Stage("in-use", "in-use", 2, 2, ("d/p/gpu-0", "d/p/gpu-1")),
            Stage("taints", "taint-not-tolerated", 1, 1, ("d/p/gpu-3",)),
        ),
        (),
        Blocking("taint-not-tolerated", "gpu-3 carries a taint", "add a toleration", "tainted"),
    )
    node = NodeExplanation("n1", "unschedulable", funnel=(funnel,))
    report = Explanation(
        TARGET,
        (node,),
        1,
        0,
        groups=(ReasonGroup("unschedulable", "x", 1, ("n1",)),),
        warnings=("w1",),
        not_modelled=("a", "b"),
        context=CONTEXT,
    )
    assert (
        _render(report)
        == """\
claim default/c: fits on 0 of 1 node (what-if: --ignore-taints)
├── claims
│   └── default/c (pending, from file); requests: gpu
├── does not fit
│   └── n1: unschedulable
│       └── claim default/c, request gpu: needs 2 of class gpu.example.com, 4
│           devices considered
│           ├── in-use: 2 rejected (in-use: gpu-0, gpu-1), 2 left
│           ├── taints: 1 rejected (taint-not-tolerated: gpu-3), 1 left
│           └── blocked: gpu-3 carries a taint
│               └── suggestion: add a toleration
├── warning: w1
└── not evaluated: a; b
"""
    )


def test_tree_for_a_fit_shows_devices_and_the_allocation_result() -> None:
    from dractl.explain.report import ClaimAllocation

    result = {"devices": {"results": [{"request": "gpu", "driver": "d", "pool": "p", "device": "gpu-0"}]}}
    alloc = ClaimAllocation(
        "default/c", ({"request": "gpu", "driver": "d", "pool": "p", "device": "gpu-0"},), result
    )
    report = Explanation(
        TARGET,
        (NodeExplanation("n1", "allocated", allocations=(alloc,), rank=1),),
        1,
        1,
        context={**CONTEXT, "whatIf": {**CONTEXT["whatIf"], "ignoreTaints": False}},
    )
    text = _render(report)
    assert text.startswith("claim default/c: fits on 1 of 1 node\n")
    assert "#1 n1" in text and "default/c would get: gpu-0 (request gpu, pool p)" in text
    assert "status of default/c would be:" in text and "device: gpu-0" in text
    assert report.exit_code == 0
