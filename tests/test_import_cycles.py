"""No import cycles in dractl: the module graph (grimp, the graph import-linter checks its contracts
on) has no strongly connected component of more than one module, and no module imports itself.

Imports inside functions count: a lazy import is still a dependency, and a cycle through one is
the same tangle deferred to run time.  Imports under ``if TYPE_CHECKING:`` do not (they never run;
they are how annotations name a type without importing its module).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("dractl", cache_dir=None, exclude_type_checking_imports=True)


def cycles(edges: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative), each sorted, plus every module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = [[m] for m, targets in edges.items() if m in targets]
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _explain(graph: grimp.ImportGraph, component: list[str]) -> str:
    """One line per import inside the component: importer:line -> imported."""
    lines = []
    members = set(component)
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            for d in graph.get_import_details(importer=importer, imported=imported):
                lines.append(f"  {importer}:{d['line_number']} {d['line_contents'].strip()}")
    return "\n".join(lines)


def test_dractl_has_no_import_cycles() -> None:
    graph = _graph()
    assert len(graph.modules) > 150  # the whole package was read
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n\n".join(_explain(graph, c) for c in found)


def test_function_level_imports_are_in_the_graph() -> None:
    """The check sees imports inside functions (the validation command imports the checker lazily)."""
    graph = _graph()
    details = graph.get_import_details(importer="dractl.cli.checks", imported="dractl.validate.stream")
    assert details and all(d["line_contents"].startswith("from dractl.validate.stream") for d in details)
    text = (REPO / "dractl" / "cli" / "checks.py").read_text().splitlines()
    assert all(text[d["line_number"] - 1].startswith("    ") for d in details)  # indented: in a function


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": ["b"], "b": ["c"], "c": []}, []),
        ({"a": ["b"], "b": ["a"]}, [["a", "b"]]),
        ({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}, [["a", "b", "c"]]),
        ({"a": ["a"], "b": []}, [["a"]]),
        ({"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"]}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_cycle_finder(edges: dict[str, list[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected
