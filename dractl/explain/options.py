"""The options of one ``explain-allocation`` run (a module of its own: the engine and the
best-fit search both read them, and neither imports the other for it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dractl.explain.whatif import WhatIf
from dractl.model.features import DEFAULT_KUBE_VERSION, Features


@dataclass(frozen=True)
class ExplainOptions:
    """``node``: explain only this node; ``examples``: device names per funnel stage;
    ``best_fit``/``best_fit_limit``: the fragmentation advice and its step cap."""

    features: Features = field(default_factory=Features.for_version)
    kube_version: str = DEFAULT_KUBE_VERSION
    node: str | None = None
    whatif: WhatIf = field(default_factory=WhatIf)
    best_fit: bool = False
    best_fit_limit: int = 1000
    examples: int = 3
    feature_overrides: tuple[str, ...] = ()
    allocator: str = "auto"  # auto|stable|incubating|experimental (dractl.matcher.implementations)
