#!/usr/bin/env python3
"""Generate dractl's shipped JSON Schemas (``schemas/v1.3X/*.json``) from kubernetes-validate.

Source: the PyPI package ``kubernetes-validate`` (pinned version below), which ships the
Kubernetes OpenAPI definitions of every release as JSON Schema, in a "strict" flavour where
every object type has ``additionalProperties: false``.  For each supported Kubernetes minor
and each DRA kind/API version that release's OpenAPI contains, this script writes one
standalone draft 2020-12 schema: the kind's top-level schema plus the transitive closure of
its definitions under ``$defs`` (refs rewritten to ``#/$defs/…``), with descriptions and
``x-kubernetes-*`` annotations dropped to keep the files small.

Fixes applied (API-RULES.md §15a; see schemas/README.md):

* Quantity: ``{"type": ["string", "number", "null"], "format": "quantity"}``; dractl checks
  the ``quantity`` format in code with the API server's grammar (``dractl.model.quantity``).
* ``ResourcePool.generation``, ``DeviceCapacity.value`` and ``Counter.value`` are removed from
  ``required`` and listed under ``x-dractl-soft-required`` instead: dractl reports them missing
  as a warning (the server decodes a missing value as 0, which it accepts).
* ``spec`` of DeviceClass, ResourceClaim and ResourceClaimTemplate (and ``spec.spec`` of a
  template) is optional, as in 1.37's OpenAPI: 1.34–1.36 list it as required, but the server
  decodes a missing spec as an empty one.
* Pod: only the fields dractl reads are strict (``spec.resourceClaims[]`` and the container
  ``resources.claims[]`` of every container list); the rest of a Pod is free-form.

Run ``python scripts/gen_schemas.py`` (``--check`` exits 1 when the committed files differ).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

SOURCE_PACKAGE = "kubernetes-validate"
SOURCE_VERSION = "1.37.0"
MINORS = ("1.34", "1.35", "1.36", "1.37")
DRA_KINDS = (
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceClass",
    "DeviceTaintRule",
    "ResourcePoolStatusRequest",
)
# 1.34–1.36 OpenAPI lists ``spec`` as required here; the server decodes a missing spec as an empty
# one (valid), and 1.37's OpenAPI no longer requires it: backport that.
OPTIONAL_SPEC = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceClaimTemplateSpec")
SOFT_REQUIRED = {"ResourcePool": ("generation",), "DeviceCapacity": ("value",), "Counter": ("value",)}
QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
KEEP_KEYS = frozenset(
    {
        "type",
        "properties",
        "additionalProperties",
        "items",
        "required",
        "enum",
        "format",
        "oneOf",
        "anyOf",
        "allOf",
        "$ref",
    }
)
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "schemas"


def source_dir(minor: str) -> Path:
    import kubernetes_validate  # only needed to regenerate

    base = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    return base / f"v{minor}.0-local-strict"


def clean(node: Any) -> Any:
    """Drop descriptions and vendor annotations; keep validation keywords only."""
    if isinstance(node, list):
        return [clean(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in KEEP_KEYS:
            continue
        if key == "properties":
            out[key] = {name: clean(sub) for name, sub in value.items()}
        elif key == "$ref":
            out[key] = "#/$defs/" + value.rsplit("/", 1)[-1]
        else:
            out[key] = clean(value)
    return out


def refs(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(refs(x) for x in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set()
    for key, value in node.items():
        if key == "properties":
            for sub in value.values():
                found |= refs(sub)
        elif key != "$ref":
            found |= refs(value)
    return found


def closure(root: Any, defs: dict[str, Any]) -> dict[str, Any]:
    todo, seen = list(refs(root)), {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen[name] = clean(defs[name])
        todo.extend(refs(seen[name]) - seen.keys())
    return {name: seen[name] for name in sorted(seen)}


def drop_required(schema: dict[str, Any], names: tuple[str, ...]) -> None:
    required = [r for r in schema.get("required", []) if r not in names]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)


def fix_defs(defs: dict[str, Any]) -> None:
    """Apply the §15a fixes in place."""
    for name, schema in defs.items():
        if ".resource." in name and name.rsplit(".", 1)[-1] in OPTIONAL_SPEC:
            drop_required(schema, ("spec",))
    if QUANTITY_DEF in defs:
        defs[QUANTITY_DEF] = {"type": ["string", "number", "null"], "format": "quantity"}
    for name, schema in defs.items():
        short = name.rsplit(".", 1)[-1]
        soft = SOFT_REQUIRED.get(short, ())
        if not soft or ".resource." not in name:
            continue
        drop_required(schema, soft)
        schema["x-dractl-soft-required"] = [s for s in soft if s in schema.get("properties", {})]


def kind_schema(minor: str, kind: str, version: str, defs: dict[str, Any]) -> dict[str, Any]:
    top = clean(json.loads((source_dir(minor) / f"{kind.lower()}-resource-{version}.json").read_text()))
    top["additionalProperties"] = False
    if kind in OPTIONAL_SPEC:
        drop_required(top, ("spec",))
    bundled = closure(top, defs)
    fix_defs(bundled)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:dractl:schema:kubernetes-{minor}:resource.k8s.io/{version}:{kind}",
        **top,
        "$defs": bundled,
    }


def pod_schema(minor: str, defs: dict[str, Any]) -> dict[str, Any]:
    """A Pod schema that is strict only where dractl reads: resourceClaims and container claims."""
    claim = "io.k8s.api.core.v1.ResourceClaim"
    pod_claim = "io.k8s.api.core.v1.PodResourceClaim"
    container = {
        "type": ["object", "null"],
        "properties": {
            "resources": {
                "type": ["object", "null"],
                "properties": {"claims": {"type": ["array", "null"], "items": {"$ref": f"#/$defs/{claim}"}}},
            }
        },
    }
    containers = {"type": ["array", "null"], "items": container}
    spec = {
        "type": ["object", "null"],
        "properties": {
            "resourceClaims": {"type": ["array", "null"], "items": {"$ref": f"#/$defs/{pod_claim}"}},
            "containers": containers,
            "initContainers": containers,
            "ephemeralContainers": containers,
        },
    }
    top = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": ["string", "null"]},
            "kind": {"type": ["string", "null"]},
            "metadata": {"type": ["object", "null"]},
            "spec": spec,
        },
    }
    bundled = closure(top, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:dractl:schema:kubernetes-{minor}:v1:Pod",
        **top,
        "$defs": bundled,
    }


def available(minor: str) -> list[tuple[str, str]]:
    """(kind, version) pairs the release's OpenAPI contains."""
    out = []
    for kind in DRA_KINDS:
        for path in sorted(source_dir(minor).glob(f"{kind.lower()}-resource-v*.json")):
            out.append((kind, path.stem.rsplit("-", 1)[-1]))
    return out


def generate() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for minor in MINORS:
        defs = json.loads((source_dir(minor) / "_definitions.json").read_text())["$defs"]
        for kind, version in available(minor):
            schema = kind_schema(minor, kind, version, defs)
            files[OUT / f"v{minor}" / f"{kind.lower()}-{version}.json"] = dump(schema)
        files[OUT / f"v{minor}" / "pod-v1.json"] = dump(pod_schema(minor, defs))
    return files


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed schemas differ")
    args = parser.parse_args(argv)
    files = generate()
    stale = [p for p, text in files.items() if not p.exists() or p.read_text() != text]
    existing = {p for minor in MINORS for p in (OUT / f"v{minor}").glob("*.json")}
    extra = sorted(existing - files.keys())
    if args.check:
        for p in [*stale, *extra]:
            print(f"out of date: {p.relative_to(ROOT)}")
        return 1 if stale or extra else 0
    for p in extra:
        p.unlink()
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    total = sum(len(t) for t in files.values())
    print(f"wrote {len(files)} schemas ({total / 1024:.0f} KiB) to {OUT.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
