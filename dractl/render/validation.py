"""Writers of the ``validation`` report (``dractl validate``) and a helper that gives any
findings report (same ``to_dict`` shape: items, inputErrors, objects, summary) every format."""

from __future__ import annotations

from dractl.render.registry import Format, register

_FINDINGS_WRITERS = {
    Format.TABLE: "dractl.render.table:write_table",
    Format.WIDE: "dractl.render.table:write_wide",
    Format.JSON: "dractl.render.structured:write_json",
    Format.YAML: "dractl.render.structured:write_yaml",
    Format.GITHUB: "dractl.render.github:write_github",
    Format.JUNIT: "dractl.render.junit:write_junit",
    Format.SARIF: "dractl.render.sarif:write_sarif",
}


def register_findings_report(report_type: str) -> None:
    """Register table, wide, json, yaml, github, junit and sarif for ``report_type`` (writers
    are imported when first used, so building the command tree stays cheap)."""
    for fmt, writer in _FINDINGS_WRITERS.items():
        register(report_type, fmt, writer)


register_findings_report("validation")
