"""SARIF 2.1.0 for code-scanning tools: one run, the rules used, one result per finding.

Works on any findings report; rule descriptions come from ``report.rule_description(id)``
when the report has it.  Inputs that could not be read become tool execution notifications.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from dractl import __version__
from dractl.render.registry import write_text
from dractl.render.sanitize import dumps_json

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _location(file: str, line: int | None, column: int | None, path: str = "") -> dict[str, Any]:
    uri = quote(file, safe="/:-._~", errors="surrogatepass") if file else "-"
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if line:
        region: dict[str, Any] = {"startLine": line}
        if column:
            region["startColumn"] = column
        physical["region"] = region
    loc: dict[str, Any] = {"physicalLocation": physical}
    if path:
        loc["logicalLocations"] = [{"fullyQualifiedName": path, "kind": "member"}]
    return loc


def to_sarif_dict(report: Any) -> dict[str, Any]:
    doc = report.to_dict()
    describe = getattr(report, "rule_description", lambda rule: "")
    silenced = doc.get("suppressed", [])
    rule_ids = sorted({item["rule"] for item in [*doc["items"], *silenced]})
    index = {rule: i for i, rule in enumerate(rule_ids)}
    rules = [{"id": r, "name": r, "shortDescription": {"text": describe(r) or r}} for r in rule_ids]
    results = []
    for item in [*doc["items"], *silenced]:
        message = item["message"]
        if item.get("path") and item["path"] not in message:
            message = f"{item['path']}: {message}"
        results.append(
            {
                "ruleId": item["rule"],
                "ruleIndex": index[item["rule"]],
                "level": _LEVELS.get(item["severity"], "note"),
                "message": {"text": message},
                "locations": [
                    _location(item["file"], item.get("line"), item.get("column"), item.get("path", ""))
                ],
            }
        )
        if "suppression" in item:  # SARIF 2.1.0 §3.35: shown as dismissed by code scanning
            why = item["suppression"]
            results[-1]["suppressions"] = [{"kind": why["kind"], "justification": why["justification"]}]
    notes = [
        {
            "level": "error",
            "message": {"text": e["text"]},
            "locations": [_location(e["file"], e.get("line"), e.get("column"))],
        }
        for e in doc.get("inputErrors", [])
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "dractl",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": "https://github.com/dractl/dractl",
                "rules": rules,
            }
        },
        "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def to_sarif(report: Any) -> str:
    return dumps_json(to_sarif_dict(report)) + "\n"


def write_sarif(report: Any, console: Any) -> None:
    write_text(console, to_sarif(report))
