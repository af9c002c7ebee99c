"""Every allocator conformance case, written out as manifests and explained with
``--node``: the outcome (fit / no fit / error) must be the real allocator's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dractl.explain.engine import ExplainOptions, TargetSpec, explain
from dractl.io.world import build_world
from dractl.model.build import build_object
from dractl.model.features import Features

CASES = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "allocator"
FILES = sorted(CASES.glob("*.json")) if CASES.is_dir() else []


def manifests(case: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(world objects, claims to explain) as plain manifests.  Devices already in use
    become one allocated ResourceClaim holding them, as a cluster would show it."""
    world: list[dict[str, Any]] = [case["node"], *case["deviceClasses"], *case["resourceSlices"]]
    results: list[dict[str, Any]] = []
    for dev in case["allocatedDevices"]:
        driver, pool, name = dev.split("/", 2)
        results.append({"request": "held", "driver": driver, "pool": pool, "device": name})
    for dev in case["allocatedSharedDeviceIDs"]:
        driver, pool, name, share = dev.split("/", 3)
        results.append({"request": "held", "driver": driver, "pool": pool, "device": name, "shareID": share})
    for i, (dev, caps) in enumerate(sorted(case["allocatedCapacityDevices"].items())):
        driver, pool, name = dev.split("/", 2)
        results.append(
            {
                "request": "held",
                "driver": driver,
                "pool": pool,
                "device": name,
                "shareID": f"00000000-0000-4000-8000-{i:012d}",
                "consumedCapacity": caps,
            }
        )
    if results:
        world.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": "holder-of-allocated-devices", "namespace": "conformance-holders"},
                "spec": {"devices": {"requests": [{"name": "held", "exactly": {"deviceClassName": "x"}}]}},
                "status": {"allocation": {"devices": {"results": results}}},
            }
        )
    return world, case["claims"]


def expected(case: dict[str, Any]) -> str:
    exp = case["expect"]
    if exp["error"]:
        return "error"
    # results [] means "cannot be allocated here" — unless there was nothing to allocate
    return "fit" if exp["results"] or not case["claims"] else "no fit"


def explained(case: dict[str, Any]) -> str:
    world_docs, claim_docs = manifests(case)
    world = build_world(build_object(d) for d in world_docs)
    claims = tuple(build_object(d) for d in claim_docs)
    features = Features.from_mapping(case["features"])
    report = explain(
        world,
        TargetSpec(claim_objects=claims),
        ExplainOptions(
            features=features,  # type: ignore[arg-type]
            node=case["node"]["metadata"]["name"],
        ),
    )
    node = report.nodes[0]
    if report.scheduler_error or node.status == "error":
        return "error"
    return "fit" if node.status == "allocated" else "no fit"


@pytest.mark.skipif(not FILES, reason="../shared/conformance/allocator not present")
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_explain_agrees_with_allocator(path: Path) -> None:
    case = json.loads(path.read_text())
    assert explained(case) == expected(case)


def test_all_cases_present() -> None:
    if not CASES.is_dir():
        pytest.skip("../shared/conformance/allocator not present")
    assert len(FILES) >= 223
