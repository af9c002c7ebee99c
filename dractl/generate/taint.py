"""DeviceTaintRules (``dractl generate taint-rule``): taint one device, a pool or a driver's devices.

The API version follows the release: ``resource.k8s.io/v1`` from 1.37, ``v1beta2`` in 1.36
(beta, behind DRADeviceTaintRules).  1.34 and 1.35 serve only the alpha ``v1alpha3``, which a
cluster must enable with ``--runtime-config``: generating for them is a usage error that says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dractl.errors import UsageError
from dractl.generate.claim import celexpr_key, check_name

EFFECTS = ("NoSchedule", "NoExecute", "None")
_API = {"1.36": "resource.k8s.io/v1beta2", "1.37": "resource.k8s.io/v1"}


@dataclass(frozen=True)
class TaintRuleSpec:
    """``device`` is ``DRIVER[/POOL[/DEVICE]]``; ``name`` None derives one from it and the key."""

    device: str
    key: str
    effect: str = "NoSchedule"
    value: str | None = None
    name: str | None = None


def api_version(kube_version: str) -> str:
    """The DeviceTaintRule API version to write for a release; UsageError where only alpha exists."""
    if kube_version in _API:
        return _API[kube_version]
    raise UsageError(
        f"Kubernetes {kube_version} serves DeviceTaintRule only as the alpha "
        "resource.k8s.io/v1alpha3 (enabled with --runtime-config); use --kube-version 1.36 or "
        "later, or taint the device in its ResourceSlice (spec.devices[].taints)"
    )


def taint_rule_doc(spec: TaintRuleSpec, kube_version: str) -> dict[str, Any]:
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
        "apiVersion": api_version(kube_version),
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {"deviceSelector": selector, "taint": taint},
    }


def _default_name(parts: list[str], key: str) -> str:
    words = [*(parts[1:] or parts[:1]), key.rpartition("/")[2]]
    name = re.sub(r"[^a-z0-9.-]+", "-", "-".join(words).lower()).strip("-.")
    return name[:253].rstrip("-.") or "taint-rule"
