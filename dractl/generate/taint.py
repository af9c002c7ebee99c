"""DeviceTaintRules (``dractl generate taint-rule``): taint one device, a pool or a driver's devices.

The API version is the newest the cluster serves: ``resource.k8s.io/v1`` from 1.37; before that
only ``v1beta2`` (1.36) or ``v1alpha3`` (1.34-1.35), which kube-apiserver serves only when started
with ``--runtime-config`` — so targeting them needs the same ``--runtime-config`` here, and is
otherwise a usage error that says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dractl.errors import UsageError
from dractl.generate.claim import celexpr_key, check_name

EFFECTS = ("NoSchedule", "NoExecute", "None")
# newest first; the first one the cluster serves is written
API_VERSIONS = ("v1", "v1beta2", "v1alpha3")


@dataclass(frozen=True)
class TaintRuleSpec:
    """``device`` is ``DRIVER[/POOL[/DEVICE]]``; ``name`` None derives one from it and the key."""

    device: str
    key: str
    effect: str = "NoSchedule"
    value: str | None = None
    name: str | None = None


def api_version(kube_version: str, serves: Callable[[str], bool]) -> str:
    """The newest DeviceTaintRule API version the cluster serves (``serves("v1beta2")``: a release
    plus ``--runtime-config`` answer); UsageError naming what to enable when there is none."""
    for version in API_VERSIONS:
        if serves(version):
            return f"resource.k8s.io/{version}"
    hint = {"1.36": "resource.k8s.io/v1beta2=true"}.get(kube_version, "resource.k8s.io/v1alpha3=true")
    raise UsageError(
        f"a default Kubernetes {kube_version} API server serves no version of DeviceTaintRule "
        "(resource.k8s.io/v1 arrives in 1.37); for a cluster started with --runtime-config "
        f"{hint}, pass --runtime-config {hint}, or taint the device in its ResourceSlice "
        "(spec.devices[].taints)"
    )


def taint_rule_doc(spec: TaintRuleSpec, kube_version: str, serves: Callable[[str], bool]) -> dict[str, Any]:
    parts = spec.device.split("/")
    if not 1 <= len(parts) <= 3 or not all(parts):
        raise UsageError(f"--device: expected DRIVER[/POOL[/DEVICE]], got {spec.device!r}")
    check_name(parts[0], "--device driver")
    if spec.effect not in EFFECTS:
        raise UsageError(f"--effect: one of {', '.join(EFFECTS)}, not {spec.effect!r}")
    celexpr_key(spec.key, "--key")
    if spec.value is not None and (
        len(spec.value) > 63 or not re.match(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$", spec.value)
    ):
        raise UsageError(f"--value: {spec.value!r} is not a valid label value (≤ 63 characters)")
    name = spec.name or _default_name(parts, spec.key)
    check_name(name, "--name")
    selector = dict(zip(("driver", "pool", "device"), parts, strict=False))
    taint: dict[str, Any] = {"key": spec.key}
    if spec.value:
        taint["value"] = spec.value
    taint["effect"] = spec.effect
    return {
        "apiVersion": api_version(kube_version, serves),
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {"deviceSelector": selector, "taint": taint},
    }


def _default_name(parts: list[str], key: str) -> str:
    words = [*(parts[1:] or parts[:1]), key.rpartition("/")[2]]
    name = re.sub(r"[^a-z0-9.-]+", "-", "-".join(words).lower()).strip("-.")
    return name[:253].rstrip("-.") or "taint-rule"
