"""Selector references and did-you-mean advice."""

from __future__ import annotations

import pytest
from explain_builders import gpu, slice_, world

from dractl.explain.selectors import Ref, advice, references


@pytest.mark.parametrize(
    ("expr", "refs"),
    [
        pytest.param(
            "device.attributes['gpu.nvidia.com'].productName == 'x'",
            [Ref("attributes", "gpu.nvidia.com", "productName")],
            id="dot-form",
        ),
        pytest.param(
            'device.capacity["gpu.nvidia.com"]["memory"].compareTo(quantity("1Gi")) > 0',
            [Ref("capacity", "gpu.nvidia.com", "memory")],
            id="index-form",
        ),
        pytest.param(
            "device.attributes[?'a.com'].?x.orValue(1) == 1 && has(device.attributes['a.com'].y)",
            [Ref("attributes", "a.com", "x"), Ref("attributes", "a.com", "y")],
            id="optional-and-has",
        ),
        pytest.param("'a.com' in device.attributes", [], id="no-reference"),
        pytest.param(
            "device.attributes['a.com'] == {}", [Ref("attributes", "a.com", None)], id="domain-only"
        ),
    ],
)
def test_references(expr: str, refs: list[Ref]) -> None:
    assert references(expr) == refs


def _devices() -> list[object]:
    w = world(
        slice_(
            "s", "n1", [gpu("gpu-0", productName="H100", index=0), gpu("gpu-1", productName="A100", index=1)]
        )
    )
    return list(w.slices[0].devices)


@pytest.mark.parametrize(
    ("expr", "hint"),
    [
        pytest.param(
            "device.attributes['gpu.example.com'].memory > 1",
            "did you mean capacity `memory`",
            id="attribute-that-is-a-capacity",
        ),
        pytest.param(
            "device.attributes['gpu.example.com'].productname == 'H100'",
            "did you mean `gpu.example.com/productName`",
            id="case-typo",
        ),
        pytest.param(
            "device.attributes['gpu.exampel.com'].productName == 'H100'",
            "published domains",
            id="unknown-domain",
        ),
        pytest.param(
            "device.capacity['gpu.example.com'].index > 0",
            "did you mean attribute `index`",
            id="capacity-that-is-an-attribute",
        ),
        pytest.param(
            "device.attributes['gpu.example.com'].productName == 'L4'",
            "'H100' (1), 'A100' (1)",
            id="values-shown",
        ),
    ],
)
def test_advice(expr: str, hint: str) -> None:
    hints = advice([expr], _devices())  # type: ignore[arg-type]
    assert any(hint in h for h in hints), hints
