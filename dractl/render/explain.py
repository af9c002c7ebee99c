"""Writers for ``AllocationExplanation``: a Rich tree (``table``), and JSON/YAML.

The tree shows what an admin needs first: the summary, the nodes that fit (ranked,
with the devices and, for the best node, the AllocationResult YAML), then why the
others do not (grouped by reason, with the funnel of one example node per group).
Small clusters and ``--node`` show every node in full.  Rich is imported lazily.
"""

from __future__ import annotations

from typing import Any

from dractl.model.features import describe_gate_basis
from dractl.render.registry import Format, register, write_text
from dractl.render.structured import write_json, write_yaml

REPORT_TYPE = "allocation-explanation"
FIT_SHOWN = 10
DETAILED_GROUPS = 3
GROUPS_SHOWN = 10
ALL_DETAIL_UP_TO = 5


def write_tree(report: Any, console: Any) -> None:
    """The default output: one Rich tree, plain text (markup off)."""
    from rich.tree import Tree

    d = report.to_dict()
    tree = Tree(_title(d))
    _target(tree, d["target"])
    for b in d["blockers"]:
        tree.add(f"blocked: {b}")
    if d["summary"]["schedulerError"]:
        tree.add(f"scheduler error: {d['summary']['schedulerError']}")
    nodes = d["nodes"]
    detail_all = len(nodes) <= ALL_DETAIL_UP_TO or bool(d["context"].get("node"))
    _fitting(tree, [n for n in nodes if n["status"] == "allocated"], detail_all)
    _failing(tree, d, detail_all)
    if "bestFit" in d:
        _best_fit(tree, d["bestFit"])
    for label, items in (("note", d["notes"]), ("warning", d["warnings"])):
        for item in items:
            tree.add(f"{label}: {item}")
    if d["notModelled"]:
        tree.add("not evaluated: " + "; ".join(d["notModelled"]))
    with console.capture() as captured:
        console.print(tree)
    # Rich pads wrapped lines; drop trailing blanks so the output diffs and pastes cleanly.
    lines = [line.rstrip() for line in captured.get().splitlines()]
    basis = d["context"].get("featureGateBasis")
    if basis:
        lines.append(describe_gate_basis(basis) + ".")
    write_text(console, "\n".join(lines))


_FLAGS = {"ignoreAllocations": "--ignore-allocations", "ignoreTaints": "--ignore-taints"}


def _title(d: dict[str, Any]) -> str:
    ctx = d["context"]
    whatif = [_FLAGS[k] for k, v in ctx["whatIf"].items() if v and k in _FLAGS]
    whatif += [f"--without-node {n}" for n in ctx["whatIf"]["withoutNodes"]]
    extra = f" (what-if: {', '.join(whatif)})" if whatif else ""
    gates = ctx["featureOverrides"]
    overrides = f" (feature gates: {', '.join(gates)})" if gates else ""
    alloc = ctx.get("allocator") or {}
    impl = alloc.get("implementation")  # named when forced, or not 1.36+'s usual incubating
    shown = impl and (alloc.get("requested") != "auto" or impl != "incubating")
    named = f" (allocator: {impl})" if shown else ""
    return f"{d['target']['name']}: {d['summary']['message']}{extra}{overrides}{named}"


def _target(tree: Any, t: dict[str, Any]) -> None:
    branch = tree.add("claims")
    for c in t["claims"]:
        origin = {"template": f"from template {c['template']}, not created yet", "file": "from file"}.get(
            c["origin"], ""
        )
        state = "allocated" if c["allocated"] else "pending"
        bits = ", ".join(x for x in (state, origin) if x)
        branch.add(f"{c['name']} ({bits}); requests: {', '.join(c['requests']) or 'none'}")
    for e in t["extendedResources"]:
        branch.add(f"extended resource {e['resource']}: {e['count']} (allocated through DRA)")
    if not t["claims"] and not t["extendedResources"]:
        branch.add("none")


def _fitting(tree: Any, fit: list[dict[str, Any]], detail_all: bool) -> None:
    if not fit:
        return
    branch = tree.add(f"fits on {len(fit)} node" + ("" if len(fit) == 1 else "s") + " (ranked)")
    for i, n in enumerate(fit[: FIT_SHOWN if not detail_all else len(fit)]):
        node = branch.add(f"#{n['rank']} {n['name']}")
        for a in n["allocations"]:
            devs = ", ".join(
                f"{r['device']} (request {r['request']}, pool {r['pool']})" for r in a["devices"]
            )
            label = "already allocated" if a["existing"] else "would get"
            node.add(f"{a['claim']} {label}: {devs or 'no devices'}")
        if i == 0:
            _allocation_yaml(node, n)
    if len(fit) > FIT_SHOWN and not detail_all:
        branch.add(f"… {len(fit) - FIT_SHOWN} more (-o json lists all)")


def _allocation_yaml(node: Any, n: dict[str, Any]) -> None:
    import yaml

    for a in n["allocations"]:
        if a["existing"]:
            continue
        text = yaml.safe_dump({"allocation": a["allocationResult"]}, sort_keys=False).rstrip()
        node.add(f"status of {a['claim']} would be:\n{text}")


def _failing(tree: Any, d: dict[str, Any], detail_all: bool) -> None:
    rest = [n for n in d["nodes"] if n["status"] != "allocated"]
    if not rest:
        return
    by_name = {n["name"]: n for n in rest}
    if detail_all:
        branch = tree.add("does not fit")
        for n in rest:
            _node_detail(branch, n)
        return
    branch = tree.add(f"does not fit on {len(rest)} nodes")
    for i, g in enumerate(d["groups"][:GROUPS_SHOWN]):
        sample = ", ".join(g["examples"]) + (", …" if g["nodes"] > len(g["examples"]) else "")
        sub = branch.add(f"{g['nodes']} {g['status']} ({sample}): {g['message']}")
        if i < DETAILED_GROUPS and g["examples"]:
            _node_detail(sub, by_name[g["examples"][0]], example=True)
    if len(d["groups"]) > GROUPS_SHOWN:
        branch.add(f"… {len(d['groups']) - GROUPS_SHOWN} more groups (-o json lists every node)")


def _node_detail(parent: Any, n: dict[str, Any], example: bool = False) -> None:
    label = f"for example {n['name']}" if example else f"{n['name']}: {n['status']}"
    node = parent.add(label)
    for r in n["reasons"]:
        node.add(r)
    if n["error"]:
        node.add(f"allocation error: {n['error']}")
    for f in n["funnel"]:
        _funnel(node, f)


def _funnel(parent: Any, f: dict[str, Any]) -> None:
    req = f["request"] + (f"/{f['subrequest']}" if f["subrequest"] else "")
    head = (
        f"claim {f['claim']}, request {req}: needs {f['needed']} of class {f['deviceClass']}, "
        f"{f['considered']} device{'' if f['considered'] == 1 else 's'} considered"
    )
    if f["chosen"]:
        head += f", chose {', '.join(x.rsplit('/', 1)[-1] for x in f['chosen'])}"
    branch = parent.add(head)
    for s in f["stages"]:
        names = ", ".join(x.rsplit("/", 1)[-1] for x in s["examples"])
        more = ", …" if s["rejected"] > len(s["examples"]) else ""
        branch.add(
            f"{s['check']}: {s['rejected']} rejected ({s['reason']}: {names}{more}), {s['remaining']} left"
        )
    b = f["blocking"]
    if b:
        blocked = branch.add(f"blocked: {b['message']}")
        if b["suggestion"]:
            blocked.add(f"suggestion: {b['suggestion']}")


def _best_fit(tree: Any, bf: dict[str, Any]) -> None:
    branch = tree.add(
        f"best-fit advice (not what the scheduler does; {bf['steps']} steps; lower score is better)"
    )
    for o in bf["options"]:
        s = o["score"]
        mark = " (the scheduler's choice)" if o["chosenByScheduler"] else ""
        devs = ", ".join(x.rsplit("/", 1)[-1] for x in o["devices"])
        branch.add(
            f"{o['node']}: {devs} — fresh counter sets {s['freshCounterSets']}, "
            f"free-group loss {s['largestFreeGroupLoss']}, stranded counters {s['strandedCounters']}{mark}"
        )


register(REPORT_TYPE, Format.TABLE, write_tree)
register(REPORT_TYPE, Format.JSON, write_json)
register(REPORT_TYPE, Format.YAML, write_yaml)
