"""Tables for the inventory views (availability, claims, health, taints); JSON and YAML are
the reports' ``to_dict()`` (:mod:`dractl.render.structured`).

Every string that came from the cluster goes through :func:`cell` (the escaping layer) before
it reaches a table.  Counts and summaries are the engines'; this module only lays them out.
``wide`` adds columns.  :func:`table_options` sets ``--no-headers`` for the writers called
inside it (a context variable, so the registry's ``writer(report, console)`` stays as is).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any

from dractl.render.registry import Format, register, write_text
from dractl.render.sanitize import escape
from dractl.render.table import plain

_NO_HEADERS: contextvars.ContextVar[bool] = contextvars.ContextVar("no_headers", default=False)
MAX_LIST = 3  # names shown per cell before "+N more" (JSON keeps them all)


@contextlib.contextmanager
def table_options(no_headers: bool = False) -> Iterator[None]:
    token = _NO_HEADERS.set(no_headers)
    try:
        yield
    finally:
        _NO_HEADERS.reset(token)


def cell(value: Any) -> str:
    """A table cell: None as ``-``, strings escaped (no control characters reach the terminal)."""
    if value is None or value == "":
        return "-"
    return escape(str(value))


def names(values: Sequence[str], limit: int = MAX_LIST) -> str:
    if not values:
        return "-"
    shown = [cell(v) for v in values[:limit]]
    if len(values) > limit:
        shown.append(f"+{len(values) - limit} more")
    return "\n".join(shown)  # one name per line: long ids stay whole


MIN_WRAP = 60  # narrowest a wrapping column gets before the table grows past the terminal


def _table(
    columns: Sequence[str], rows: Sequence[Sequence[str]], console: Any, wrap: Sequence[str] = ()
) -> None:
    """Columns of short values never wrap nor get cut; columns in ``wrap`` (lists of names) fold
    into the space the terminal leaves.  When even that is too narrow, the table is as wide as it
    needs to be (as kubectl's tables are) rather than cutting values."""
    headers = not _NO_HEADERS.get()
    natural = [
        max([len(col) if headers else 0, *(len(line) for r in rows for line in r[i].split("\n"))])
        for i, col in enumerate(columns)
    ]
    gaps = 3 * (len(columns) - 1)
    fixed = sum(w for w, c in zip(natural, columns, strict=True) if c not in wrap) + gaps
    wanted = fixed + sum(
        min(w, max(len(c), MIN_WRAP)) for w, c in zip(natural, columns, strict=True) if c in wrap
    )
    width = max(console.width, wanted) if wrap else max(console.width, sum(natural) + gaps)
    if sum(natural) + gaps <= width and _plain_cells(columns, rows):
        # Nothing folds: the text Rich would lay out, without Rich (a 5,000-row table in
        # milliseconds instead of seconds; tests/unit/render check the two are equal)
        write_text(console, _aligned(columns, rows, natural, headers))
    else:
        write_text(console, _rich_table(columns, rows, natural, headers, wrap, width))


def _rich_table(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    natural: Sequence[int],
    headers: bool,
    wrap: Sequence[str],
    width: int,
) -> str:
    from rich.table import Table

    table = Table(
        box=None,
        show_edge=False,
        pad_edge=False,
        padding=(0, 0, 0, 3),
        header_style=None,
        show_header=headers,
    )
    for col, widest in zip(columns, natural, strict=True):
        if col in wrap:
            table.add_column(col, overflow="fold", min_width=min(widest, max(len(col), MIN_WRAP)))
        else:
            table.add_column(col, no_wrap=True, min_width=widest)
    for row in rows:
        table.add_row(*row)
    return plain(table, width)


def _plain_line(text: str) -> bool:
    """Non-empty printable ASCII without leading/trailing blanks: one character is one column,
    and Rich would print it as it is."""
    return text != "" and text.isascii() and text.isprintable() and text == text.strip(" ")


def _plain_cells(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> bool:
    return all(_plain_line(c) for c in columns) and all(
        _plain_line(line) for row in rows for cell in row for line in cell.split("\n")
    )


def _aligned(
    columns: Sequence[str], rows: Sequence[Sequence[str]], natural: Sequence[int], headers: bool
) -> str:
    """The table as Rich lays it out when every column has its natural width: cells padded to
    the column, three spaces between columns, a multi-line cell's row as tall as its lines,
    trailing blanks cut (as :func:`plain` does)."""
    out = []
    for row in [columns, *rows] if headers else rows:
        cells = [cell.split("\n") for cell in row]
        for i in range(max(len(c) for c in cells)):
            line = "   ".join(
                (c[i] if i < len(c) else "").ljust(w) for c, w in zip(cells, natural, strict=True)
            )
            out.append(line.rstrip() + "\n")
    return "".join(out)


def _lines(console: Any, title: str, lines: Sequence[str]) -> None:
    if lines:
        write_text(console, "\n" + title + "\n" + "".join(f"  {line}\n" for line in lines))


def _tainted(counts: dict[str, Any]) -> str:
    parts = [f"{n} {e}" for e, n in counts["tainted"].items() if n]
    return ", ".join(parts) or "0"


def _warnings(console: Any, doc: dict[str, Any]) -> None:
    _lines(console, "Warnings:", [cell(w) for w in doc["warnings"]])


def _gates(console: Any, doc: dict[str, Any]) -> None:
    """The footer: what could not be read (a partial view), then the feature gates the view
    assumed (every view ends with them)."""
    from dractl.model.features import describe_gate_basis

    missing = doc["context"].get("missing")
    if missing:  # never a partial view that looks complete
        write_text(console, "Incomplete: could not read " + "; ".join(cell(m) for m in missing) + ".")
    basis = doc["context"].get("featureGateBasis")
    if basis:
        write_text(console, describe_gate_basis(basis) + ".")


# ------------------------------------------------------------------------ availability


def write_availability(report: Any, console: Any, wide: bool = False) -> None:
    doc = report.to_dict(table=True)  # devices only where they have capacity lines to print
    by_class = doc["summary"]["by"] == "class"
    cols = ["CLASS", "NODE"] if by_class else ["NODE", "DRIVER", "POOL"]
    cols += ["TOTAL", "ALLOCATED", "FREE", "TAINTED", "UNHEALTHY"]
    if wide:
        cols += ["AVAILABLE", "UNAVAILABLE"] + ([] if by_class else ["SLICES", "STATUS"])
    rows = []
    for it in doc["items"]:
        node = it["node"] or ("(network)" if not wide else f"(network: {it['reachableNodes']} nodes)")
        head = (
            [cell(it["deviceClass"]), cell(node)]
            if by_class
            else [cell(node), cell(it["driver"]), cell(it["pool"])]
        )
        counts = [str(it["total"]), str(it["allocated"]), str(it["free"]), _tainted(it), str(it["unhealthy"])]
        row = [*head, *counts]
        if wide:
            row += [str(it["available"]), str(it["unavailable"])]
            if not by_class:
                row += [f"{it['slices']}/{it['expectedSlices']}", it["status"]]
        rows.append(row)
    if rows:
        _table(cols, rows, console)
    else:
        write_text(console, "No devices found.")
    _availability_details(doc, console, wide)
    summary = doc["summary"]
    write_text(
        console,
        "\n"
        + "".join(f"{_class_line(c)}\n" for c in summary["classes"])
        + f"Total: {summary['free']} of {summary['total']} devices free on {summary['nodes']} "
        f"node{'' if summary['nodes'] == 1 else 's'} ({summary['allocated']} allocated, "
        f"{summary['unavailable']} unavailable, {summary['unhealthy']} unhealthy).",
    )
    _gates(console, doc)


def _class_line(c: dict[str, Any]) -> str:
    nodes = f"{c['nodes']} node" + ("" if c["nodes"] == 1 else "s")
    text = f"{cell(c['deviceClass'])}: {c['free']} of {c['total']} free on {nodes}"
    if c["nodes"]:
        text += f"; largest free block on one node: {c['largestFreeBlock']}"
    return text


def _availability_details(doc: dict[str, Any], console: Any, wide: bool) -> None:
    counters, capacity, flagged = [], [], []
    for it in doc["items"]:
        where = f"{cell(it['node'] or '(network)')} {cell(it['driver'])}/{cell(it['pool'])}"
        by_set: dict[str, list[str]] = {}
        for c in it["counters"]:
            by_set.setdefault(c["counterSet"], []).append(_counter(c))
        for set_name, parts in by_set.items():
            label = cell(set_name).removesuffix("-counter-set").removesuffix("-counters")
            counters.append(f"{where} {label}: " + ", ".join(parts))
        for d in it["devices"]:
            if d["capacity"]:
                used = ", ".join(
                    f"{cell(c['name'])} {cell(c['used'])} of {cell(c['total'])} used" for c in d["capacity"]
                )
                shares = len(d["claims"])
                node = cell(it["node"] or "(network)")
                plural = "" if shares == 1 else "s"
                capacity.append(f"{node} {cell(d['id'])}: {used} ({shares} claim{plural})")
        if it["problem"] and (it["status"] != "ok" or wide):
            flagged.append(f"{where}: {cell(it['problem'])}")
    _lines(console, "Shared counters left:", counters)
    _lines(console, "Consumable capacity:", capacity)
    _lines(console, "Pools flagged:", flagged)
    _warnings(console, doc)


def _counter(c: dict[str, Any]) -> str:
    noun = (cell(c["counter"]) + ("s" if c["grouped"] else "")).replace("-", " ")
    return f"{c['left']} of {c['total']} {noun} free"


# ------------------------------------------------------------------------------ claims


def write_claims(report: Any, console: Any, wide: bool = False) -> None:
    doc = report.to_dict()
    cols = ["NAMESPACE", "NAME", "STATE", "NODE", "DEVICES", "RESERVED FOR"]
    if wide:
        cols += ["REQUESTS", "CONFIGS", "CONDITIONS"]
    rows = []
    for it in doc["items"]:
        state = it["state"] + (" (unreserved)" if it["allocatedButUnreserved"] else "")
        devices = [_claim_device(d) for d in it["devices"]]
        row = [
            cell(it["namespace"]),
            cell(it["name"]),
            state,
            cell(it["node"]),
            names(devices, MAX_LIST if not wide else 32),
            names(it["reservedFor"]),
        ]
        if wide:
            reqs = [
                f"{r['name']}: {r['deviceClassName']} "
                + (r["allocationMode"] if r["allocationMode"] == "All" else f"x{r['count']}")
                + (" admin" if r["adminAccess"] else "")
                for r in it["requests"]
            ]
            conds = [f"{d['device'].rsplit('/', 1)[-1]} {c}" for d in it["devices"] for c in d["conditions"]]
            row += [names(reqs, 8), names(it["configs"], 8), names(conds, 8)]
        rows.append(row)
    if rows:
        _table(cols, rows, console, wrap=("DEVICES", "RESERVED FOR", "REQUESTS", "CONFIGS", "CONDITIONS"))
    else:
        write_text(console, "No claims found.")
    _warnings(console, doc)
    s = doc["summary"]
    states = ", ".join(f"{n} {k}" for k, n in s["byState"].items())
    line = f"{s['claims']} claim{'' if s['claims'] == 1 else 's'}: {states}."
    if s["allocatedButUnreserved"]:
        line += (
            f" {s['allocatedButUnreserved']} allocated but unreserved, holding "
            f"{s['devicesHeldByUnreservedClaims']} device(s)."
        )
    write_text(console, "\n" + line)
    _gates(console, doc)


def _claim_device(d: dict[str, Any]) -> str:
    text = d["device"]
    if d["shareID"]:
        text += f" share {d['shareID'][:8]}"
    if d["consumedCapacity"]:
        text += " (" + ", ".join(f"{k}={v}" for k, v in d["consumedCapacity"].items()) + ")"
    if d["adminAccess"]:
        text += " [admin]"
    return text


# ------------------------------------------------------------------------------ health


def write_health(report: Any, console: Any, wide: bool = False) -> None:
    doc = report.to_dict()
    cols = ["NODE", "DEVICE", "HEALTH", "REPORTED BY", "CLAIMS", "PODS"]
    rows = []
    for it in doc["items"]:
        signals = [
            f"{s['source']}: {s['health']}" + (f" ({s['detail']})" if wide else "") for s in it["signals"]
        ]
        rows.append(
            [
                cell(it["node"]),
                cell(it["device"]),
                cell(it["health"]),
                names(signals, 8 if wide else MAX_LIST),
                names(it["claims"]),
                names(it["pods"]),
            ]
        )
    if rows:
        _table(cols, rows, console, wrap=("REPORTED BY", "CLAIMS", "PODS"))
    else:
        write_text(console, "No device health reported.")
    _warnings(console, doc)
    s = doc["summary"]
    write_text(
        console,
        f"\n{s['reported']} of {s['devices']} devices report health: {s['unhealthy']} unhealthy, "
        f"{s['unknown']} unknown, {s['healthy']} healthy; affected: {s['affectedPods']} pod(s), "
        f"{s['affectedClaims']} claim(s).",
    )
    _gates(console, doc)


# ------------------------------------------------------------------------------ taints


def write_taints(report: Any, console: Any, wide: bool = False) -> None:
    doc = report.to_dict()
    cols = ["NODE", "DEVICE", "TAINT", "SOURCE", "ALLOCATED TO", "EVICTS"]
    if wide:
        cols += ["ADDED", "TOLERATED BY", "PENDING TOLERATING"]
    rows = []
    for it in doc["items"]:
        taint = f"{it['key']}={it['value']}:{it['effect']}" if it["value"] else f"{it['key']}:{it['effect']}"
        evicts = names(it["evicts"])
        if it["evicts"] and it["evictionDelaySeconds"] is not None:
            evicts += f" after {it['evictionDelaySeconds']}s"
        row = [
            cell(it["node"]),
            cell(it["device"]),
            cell(taint),
            cell(it["source"]),
            names(it["allocatedTo"]),
            evicts,
        ]
        if wide:
            row += [cell(it["timeAdded"]), names(it["toleratedBy"]), names(it["pendingClaimsTolerating"])]
        rows.append(row)
    if rows:
        _table(cols, rows, console, wrap=("ALLOCATED TO", "EVICTS", "TOLERATED BY", "PENDING TOLERATING"))
    else:
        write_text(console, "No device taints found.")
    rules = doc["summary"]["rules"]
    _lines(
        console,
        "DeviceTaintRules:",
        [
            f"{cell(r['name'])}: {cell(r['taint'])} on {r['devices']} device(s)"
            + (" — cluster-wide (every device)" if r["clusterWide"] else f" ({cell(r['selector'])})")
            for r in rules
        ],
    )
    _warnings(console, doc)
    s = doc["summary"]
    effects = ", ".join(f"{n} {e}" for e, n in s["byEffect"].items()) or "none"
    write_text(
        console,
        f"\n{s['taints']} taint(s) on {s['taintedDevices']} of {s['devices']} devices ({effects}); "
        f"{s['podsToEvict']} running pod(s) to be evicted.",
    )
    _gates(console, doc)


def _wide(writer: Any) -> Any:
    def write(report: Any, console: Any) -> None:
        writer(report, console, wide=True)

    return write


for _kind, _writer in (
    ("availability", write_availability),
    ("claims", write_claims),
    ("health", write_health),
    ("taints", write_taints),
):
    register(_kind, Format.TABLE, _writer)
    register(_kind, Format.WIDE, _wide(_writer))
    register(_kind, Format.JSON, "dractl.render.structured:write_json")
    register(_kind, Format.YAML, "dractl.render.structured:write_yaml")
