"""dractl never writes to a cluster: no code path can send anything but GET.

Two checks: the source has no call of a client method that writes (create/replace/patch/
delete, or a non-GET HTTP method), and the loopback server saw only GETs in every test of
this package (its handler records any other method)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WRITE_CALL = re.compile(
    # the kubernetes client's typed write methods (create_namespaced_pod, patch_node, …)
    r"\.(create|replace|patch|delete)_(namespaced_|collection_|cluster_)?(pod|node|namespace|device_class|"
    r"resource_slice|resource_claim|device_taint_rule|custom_object|[a-z_]*binding|[a-z_]*status)[a-z_]*\(|"
    r"\b(?:call_api|param_serialize|request)\(\s*[\"'](POST|PUT|PATCH|DELETE)[\"']|"  # raw HTTP methods
    r"method\s*=\s*[\"'](POST|PUT|PATCH|DELETE)[\"']",
    re.IGNORECASE,
)


def test_no_write_calls_anywhere_in_dractl() -> None:
    offenders = []
    for path in sorted((REPO / "dractl").rglob("*.py")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WRITE_CALL.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{lineno}: {line.strip()}")
    assert offenders == []


def test_the_pattern_catches_writes() -> None:
    for line in (
        "api.create_namespaced_resource_claim(ns, body)",
        "v1.delete_node('x')",
        "self._api.param_serialize('POST', path)",
        'client.request("PATCH", url)',
        "call(method='DELETE')",
        "api.patch_namespaced_pod(n, ns, body)",
        "resource_api.create_resource_slice(body)",
        "api.delete_collection_namespaced_resource_claim(ns)",
        "v1.replace_namespaced_pod_status(n, ns, b)",
    ):
        assert WRITE_CALL.search(line), line


def test_the_only_http_method_the_cluster_layer_uses_is_get() -> None:
    text = "".join(p.read_text() for p in (REPO / "dractl" / "cluster").glob("*.py"))
    methods = set(re.findall(r"param_serialize\(\s*\"([A-Z]+)\"", text))
    assert methods == {"GET"}
