"""Reports of the selector playground (``dractl selector check``, ``dractl selector eval``).

The CEL work is :mod:`dractl.cel.playground`; this module turns its results into report
types like every other command's: ``report_type``, ``to_dict()`` in the ``dractl/v1alpha1``
envelope (schemas ``schemas/output/selector-check-report.schema.json`` and
``selector-eval-report.schema.json``) and ``exit_code``.  It also picks the devices out of
loaded ResourceSlice documents for ``eval``.  Pure: never prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from dractl.errors import EXIT_FINDINGS, EXIT_OK, InputError, SourcePos

if TYPE_CHECKING:
    from dractl.cel.playground import CheckResult, EvalResult
    from dractl.model.objects import Device

API_VERSION = "dractl/v1alpha1"


@dataclass(frozen=True, slots=True)
class SelectorCheckReport:
    """One result per selector, in the order given.  Exit 1 when the API server would reject any."""

    report_type: ClassVar[str] = "selector-check"

    results: tuple[CheckResult, ...]
    kube_version: str

    @property
    def exit_code(self) -> int:
        return EXIT_OK if all(r.ok for r in self.results) else EXIT_FINDINGS

    def to_dict(self) -> dict[str, Any]:
        accepted = sum(1 for r in self.results if r.ok)
        return {
            "apiVersion": API_VERSION,
            "kind": "SelectorCheckReport",
            "items": [r.to_dict() for r in self.results],
            "summary": {
                "kubeVersion": self.kube_version,
                "selectors": len(self.results),
                "accepted": accepted,
                "rejected": len(self.results) - accepted,
            },
        }


@dataclass(frozen=True, slots=True)
class SelectorEvalReport:
    """One result per selector over the same ``devices``.  Exit 1 when a selector does not
    compile or fails on some device (no match at all is not a failure)."""

    report_type: ClassVar[str] = "selector-eval"

    results: tuple[EvalResult, ...]
    kube_version: str
    devices: int

    @property
    def exit_code(self) -> int:
        failed = any(r.compile_error or r.errors for r in self.results)
        return EXIT_FINDINGS if failed else EXIT_OK

    def names(self) -> list[str]:
        """``driver/pool/device`` of every device that all the selectors match (a class's selectors
        combine the same way), in input order: ``-o name``."""
        if not self.results or any(r.compile_error for r in self.results):
            return []
        matched = [
            {(o.device.driver, o.device.pool, o.device.name) for o in r.outcomes if o.matches}
            for r in self.results
        ]
        first = [(o.device.driver, o.device.pool, o.device.name) for o in self.results[0].outcomes]
        return ["/".join(key) for key in first if all(key in m for m in matched)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "kind": "SelectorEvalReport",
            "items": [r.to_dict() for r in self.results],
            "summary": {
                "kubeVersion": self.kube_version,
                "selectors": len(self.results),
                "devices": self.devices,
                "compileErrors": sum(1 for r in self.results if r.compile_error),
                "runtimeErrors": sum(r.errors for r in self.results),
            },
        }


def slice_devices(docs: Iterable[Any]) -> tuple[list[Device], dict[int, str], list[InputError]]:
    """The devices of the ResourceSlice documents (other kinds are ignored), the node each is on
    (``id(device)`` → node name, ``<all nodes>``, or ""), and an InputError for each slice that
    cannot be read as one."""
    from dractl.model.build import build_object

    devices: list[Device] = []
    nodes: dict[int, str] = {}
    errors: list[InputError] = []
    for doc in docs:
        if doc.raw.get("kind") != "ResourceSlice":
            continue
        try:
            rs = build_object(doc.raw, doc.origin)
        except (KeyError, ValueError) as e:
            errors.append(InputError(f"ResourceSlice: {e}", SourcePos(doc.origin.file)))
            continue
        node = getattr(rs, "node_name", None) or ("<all nodes>" if getattr(rs, "all_nodes", None) else "")
        for d in getattr(rs, "devices", ()):
            devices.append(d)
            nodes[id(d)] = node
    return devices, nodes, errors
