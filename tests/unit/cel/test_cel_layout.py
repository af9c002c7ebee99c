"""dractl.cel's module graph: no import cycles (function-level and TYPE_CHECKING imports count)."""

from __future__ import annotations

import grimp


def test_no_import_cycles_inside_dractl_cel() -> None:
    graph = grimp.build_graph("dractl", include_external_packages=False)

    def ours(m: str) -> bool:
        return m == "dractl.cel" or m.startswith("dractl.cel.")

    mods = sorted(m for m in graph.modules if ours(m))
    edges = {m: {d for d in graph.find_modules_directly_imported_by(m) if ours(d)} for m in mods}
    cycles = []
    for m in mods:
        for d in edges[m]:
            if graph.chain_exists(importer=d, imported=m):
                cycles.append(f"{m} -> {d} -> … -> {m}")
    assert not cycles, "\n".join(cycles)


def test_the_kubernetes_libraries_are_split_like_the_apiserver() -> None:
    graph = grimp.build_graph("dractl", include_external_packages=False)
    libs = {m.rsplit(".", 1)[1] for m in graph.modules if m.startswith("dractl.cel.lib.")}
    assert {"quantity", "semver", "url", "net", "format", "regex"} <= libs
    assert "dractl.cel.k8slib" not in graph.modules
