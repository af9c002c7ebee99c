"""Writers of the selector playground's reports (``selector-check``, ``selector-eval``).

``table`` for check: one block per selector (verdict and estimated cost, the expression,
the message).  ``table`` for eval: the selector, a DEVICE/NODE/RESULT/ERROR table and a
summary line, then a note for every attribute or capacity name no input device publishes.
``name`` for eval: the devices every selector matches, one ``driver/pool/device`` a line.
JSON and YAML are the reports' ``to_dict()``.  Works on the reports' dictionaries only.
"""

from __future__ import annotations

from typing import Any

from dractl.render.registry import Format, register, write_text
from dractl.render.structured import write_json, write_yaml


def write_check_table(report: Any, console: Any) -> None:
    lines: list[str] = []
    for i, r in enumerate(report.to_dict()["items"]):
        if i:
            lines.append("")
        cost = "-" if r["maxCost"] is None else str(r["maxCost"])
        verdict = "accepted" if r["valid"] else f"rejected ({r['errorType']})"
        lines.append(f"{verdict}, estimated cost {cost}: {r['expression']}")
        lines += [f"  {line}" for line in (r["error"] or "").splitlines()]
        if r["hint"]:
            lines.append(f"  hint: {r['hint']}")
    write_text(console, "\n".join(lines))


def write_eval_table(report: Any, console: Any) -> None:
    from dractl.render.table import write_rows

    for i, r in enumerate(report.to_dict()["items"]):
        if i:
            write_text(console, "\n")
        write_text(console, f"Selector: {r['expression']}")
        if r["compileError"]:
            write_text(console, f"Does not compile: {r['compileError']}")
            continue
        if r["results"]:
            rows = [
                [
                    f"{o['driver']}/{o['pool']}/{o['device']}",
                    o["node"] or "",
                    "error" if o["error"] else ("match" if o["matches"] else "no match"),
                    o["error"] or "",
                ]
                for o in r["results"]
            ]
            write_rows(console, ["DEVICE", "NODE", "RESULT", "ERROR"], rows)
        write_text(
            console,
            f"{r['matched']} of {r['devices']} devices match; {r['errors']} failed with an "
            f"error (estimated cost {r['maxCost']}).",
        )
        for ref in r["references"]:
            if ref["presentOn"] == 0:
                write_text(console, _missing_note(ref))


def _missing_note(ref: dict[str, Any]) -> str:
    hint = "."
    if ref["otherKindOn"]:
        other = "capacity" if ref["kind"] == "attributes" else "attributes"
        domain, _, name = ref["name"].rpartition("/")
        hint = (
            f"; it is a {other} on {ref['otherKindOn']} devices: did you mean "
            f'device.{other}["{domain}"].{name}?'
        )
    where = f"exists on {ref['presentOn']} of {ref['devices']} devices"
    return f"Note: {ref['name']} ({ref['kind']}) {where}{hint}"


register("selector-check", Format.TABLE, write_check_table)
register("selector-check", Format.JSON, write_json)
register("selector-check", Format.YAML, write_yaml)
register("selector-eval", Format.TABLE, write_eval_table)
register("selector-eval", Format.NAME, "dractl.render.structured:write_names")
register("selector-eval", Format.JSON, write_json)
register("selector-eval", Format.YAML, write_yaml)
