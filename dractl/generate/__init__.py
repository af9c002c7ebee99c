"""Scaffolding: DRA manifests built from flags, device lists, templates or discover output.

Pure: every builder returns plain ``dict`` documents (in the field order ``kubectl`` prints);
:func:`dump` turns them into YAML or JSON text.  Nothing here prints, reads a cluster or
runs the validator — the command lints what it generated (``dractl.validate``) before writing,
so anything that reaches the user passes ``dractl lint``.  Bad flags raise
:class:`~dractl.errors.UsageError` with a one-line message naming the flag.

Public API::

    claim_doc(ClaimSpec, kind="ResourceClaim") -> dict       # claim or template
    class_doc(ClassSpec) -> dict
    slice_docs(devices_text, SliceSpec) / like_docs(docs, LikeSpec) -> list[dict]
    taint_rule_doc(TaintRuleSpec, kube_version) -> dict
    from_discover(docs, ...) -> list[dict]                    # DeviceClass + ResourceClaim
    dump(docs, "yaml" | "json") -> str
"""

from dractl.generate.claim import ClaimSpec, RequestSpec, claim_doc, parse_first_available
from dractl.generate.dump import dump
from dractl.generate.klass import ClassSpec, class_doc, from_discover
from dractl.generate.slices import LikeSpec, SliceSpec, expand_nodes, like_docs, slice_docs
from dractl.generate.taint import TaintRuleSpec, taint_rule_doc

__all__ = [
    "ClaimSpec",
    "ClassSpec",
    "LikeSpec",
    "RequestSpec",
    "SliceSpec",
    "TaintRuleSpec",
    "claim_doc",
    "class_doc",
    "dump",
    "expand_nodes",
    "from_discover",
    "like_docs",
    "parse_first_available",
    "slice_docs",
    "taint_rule_doc",
]
