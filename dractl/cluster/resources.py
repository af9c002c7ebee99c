"""The API resources dractl reads, and how each is addressed.

One table, so RBAC (deploy/rbac.yaml), discovery, paths and error messages agree.  To read a
new kind, add a row and a model builder; deploy/rbac.yaml is checked against this table.
"""

from __future__ import annotations

from dataclasses import dataclass

DRA_GROUP = "resource.k8s.io"
# Preferred first.  v1 is served from 1.34; 1.32-1.33 clusters serve v1beta1/v1beta2 only.
DRA_VERSIONS = ("v1", "v1beta2", "v1beta1")
# DeviceTaintRules were alpha (v1alpha3) before they reached a beta/GA version.
TAINT_RULE_VERSIONS = ("v1", "v1beta2", "v1alpha3")


@dataclass(frozen=True, slots=True)
class Resource:
    """One API resource: ``kind`` as dractl's model names it, ``plural`` as the URL does."""

    kind: str
    group: str
    plural: str
    namespaced: bool
    versions: tuple[str, ...] = ("v1",)

    @property
    def display(self) -> str:
        """kubectl's and RBAC's name for it: ``resourceslices.resource.k8s.io``, ``pods``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(self, version: str, namespace: str | None = None, name: str | None = None) -> str:
        """The URL path of the collection (or of one object with ``name``)."""
        base = f"/apis/{self.group}/{version}" if self.group else f"/api/{version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        return f"{base}/{name}" if name else base


RESOURCES: dict[str, Resource] = {
    r.kind: r
    for r in (
        Resource("DeviceClass", DRA_GROUP, "deviceclasses", False, DRA_VERSIONS),
        Resource("ResourceSlice", DRA_GROUP, "resourceslices", False, DRA_VERSIONS),
        Resource("ResourceClaim", DRA_GROUP, "resourceclaims", True, DRA_VERSIONS),
        Resource("ResourceClaimTemplate", DRA_GROUP, "resourceclaimtemplates", True, DRA_VERSIONS),
        Resource("DeviceTaintRule", DRA_GROUP, "devicetaintrules", False, TAINT_RULE_VERSIONS),
        Resource("Node", "", "nodes", False),
        Resource("Pod", "", "pods", True),
    )
}

# Field selectors the API server supports for the kinds dractl filters by node.
NODE_FIELD = {"ResourceSlice": "spec.nodeName", "Pod": "spec.nodeName"}
