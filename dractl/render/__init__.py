"""Renderers: one registry keyed by (report type, output format).

A report is any object with a ``report_type`` class attribute and ``to_dict()`` (the
JSON/YAML document).  Writers take the report and a Rich console (stdout) and write to it.
To support a format for a new report type, register a writer::

    from dractl.render.registry import register
    register("taints", Format.TABLE, my_table_writer)

or reuse the generic ones (:func:`dractl.render.registry.register_findings_report` adds
json, yaml, github, junit and sarif for reports shaped like a ValidationReport).
Rich is imported only by the writers that draw tables.
"""

from __future__ import annotations

from dractl.render.registry import Format, RenderOptions, allowed_formats, format_enum, render

__all__ = ["Format", "RenderOptions", "allowed_formats", "format_enum", "render"]
