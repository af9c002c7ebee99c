"""Writers for ``CapacityReport``: a summary and per-node table (``table``/``wide``), JSON/YAML.

The table lists the nodes that took copies (and, with ``wide``, every node with
why the next copy stopped fitting there; a count devices do not limit shows as
``no limit`` on the node that takes every copy); below it the reason the next copy fits
nowhere (explain's grouped funnel), stranded capacity, and best-fit advice.
Long node lists are capped in the table; JSON keeps everything.
"""

from __future__ import annotations

from typing import Any

from dractl.model.features import describe_gate_basis
from dractl.render.registry import Format, register, write_text
from dractl.render.structured import write_json, write_yaml

REPORT_TYPE = "capacity"
NODES_SHOWN = 20
GROUPS_SHOWN = 5
POOLS_SHOWN = 10


def write_table(report: Any, console: Any) -> None:
    _write(report, console, wide=False)


def write_wide(report: Any, console: Any) -> None:
    _write(report, console, wide=True)


def _write(report: Any, console: Any, *, wide: bool) -> None:
    from rich.table import Table

    d = report.to_dict()
    lines = [d["summary"]["message"]]
    if d["error"]:
        lines.append(f"scheduler error: {d['error']}")
    rows = [n for n in d["nodes"] if n["copies"] or wide]
    table = Table(box=None, pad_edge=False, show_edge=False)
    for col in ("NODE", "COPIES", "FREE DEVICES") + (("STOPPED BECAUSE",) if wide else ()):
        table.add_column(col, justify="right" if col in ("COPIES", "FREE DEVICES") else "left")
    endless = d["unbounded"]["node"] if d["unbounded"] else None  # takes every copy: no limit
    for n in rows[: None if wide else NODES_SHOWN]:
        why = "; ".join(n["filtered"]) or n["stopped"] or ""
        copies = "no limit" if n["name"] == endless else str(n["copies"])
        table.add_row(n["name"], copies, str(n["freeDevices"]), *((why,) if wide else ()))
    out = [*lines]
    text = _capture(console, table) if rows else ""
    if text:
        out += ["", text]
    if not wide and len(rows) > NODES_SHOWN:
        out.append(f"… and {len(rows) - NODES_SHOWN} more nodes with copies (-o wide or -o json for all)")
    if d["pools"]:
        more = f", … ({len(d['pools']) - POOLS_SHOWN} more pools)" if len(d["pools"]) > POOLS_SHOWN else ""
        shown = ", ".join(f"{p['pool']}: {p['devices']}" for p in d["pools"][:POOLS_SHOWN])
        out += ["", f"devices by pool: {shown}{more}"]
    out += _blocking(d["blocking"])
    out += _fragmentation(d["fragmentation"])
    if d["bestFit"]:
        bf = d["bestFit"]
        out += [
            "",
            f"best fit ({bf['label']}): {_copies(bf['bestFit'])}; first fit: {_copies(bf['firstFit'])}",
            f"  ({bf['withinNodeNote']})",
        ]
        if bf["reorderedCopies"]:
            moved = _copies(bf["reorderedCopies"])
            out.append(
                f"  {moved} got the device set of a best-fit order, not the allocator's own, on their node"
            )
    out += [f"note: {n}" for n in d["notes"]]
    basis = d["context"].get("featureGateBasis")
    if basis:
        out.append(describe_gate_basis(basis) + ".")
    write_text(console, "\n".join(line.rstrip() for line in out))


def _copies(n: int) -> str:
    return f"{n} cop{'y' if n == 1 else 'ies'}"


def _capture(console: Any, table: Any) -> str:
    with console.capture() as captured:
        console.print(table)
    return "\n".join(line.rstrip() for line in captured.get().splitlines())


def _blocking(b: dict[str, Any] | None) -> list[str]:
    if not b:
        return []
    out = ["", f"next copy: {b['message']}"]
    if b["nodesNotExplained"]:
        out.append(
            f"  (explained on the {b['nodesEvaluated']} nodes with the most unallocated devices; "
            f"{b['nodesNotExplained']} others not)"
        )
    for g in b["groups"][:GROUPS_SHOWN]:
        ex = ", ".join(g["examples"])
        out.append(f"  {g['nodes']} node{'s' if g['nodes'] != 1 else ''}: {g['message']} (e.g. {ex})")
    return out


def _fragmentation(items: list[dict[str, Any]]) -> list[str]:
    if not items:
        return []
    return ["", "stranded capacity:", *(f"  {s['message']}" for s in items)]


register(REPORT_TYPE, Format.TABLE, write_table)
register(REPORT_TYPE, Format.WIDE, write_wide)
register(REPORT_TYPE, Format.JSON, write_json)
register(REPORT_TYPE, Format.YAML, write_yaml)
