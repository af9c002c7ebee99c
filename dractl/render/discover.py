"""Writers of ``dractl discover`` (report type ``discover``).

``table``: the inventory tables (GPUs, MIG, NICs, PCI, CPU/NUMA, slices), each a titled
:func:`~dractl.render.table.write_rows` table (so piped output keeps whole rows and
``--no-headers`` applies).  ``yaml``: the ResourceSlices as a multi-document stream (or the raw
inventory); ``json``: a ``v1`` ``List`` of them (or the inventory); ``name``: one
``resourceslice.resource.k8s.io/NAME`` per slice.  Both are what
``kubectl apply -f -`` reads, which is why discover's documents are Kubernetes objects rather
than a ``dractl/v1alpha1`` envelope.  The report (:class:`DiscoverReport`) is data the CLI
assembles from the discover engine's results: this module never imports the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from dractl.errors import EXIT_OK
from dractl.render.registry import Format, register, write_text


@dataclass(frozen=True, slots=True)
class DiscoverTable:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class DiscoverReport:
    """``document``: the JSON document (a ``v1`` List of slices, or the inventory);
    ``documents``: the YAML documents (each slice, or the inventory alone when ``stream`` is
    False); ``tables``: the inventory tables for ``table``.  Discovery that finds nothing is
    not a failure (exit 0)."""

    report_type: ClassVar[str] = "discover"

    document: Any
    documents: Sequence[Any]
    tables: Sequence[DiscoverTable] = ()
    stream: bool = True

    @property
    def exit_code(self) -> int:
        return EXIT_OK

    def to_dict(self) -> Any:
        return self.document

    def names(self) -> list[str]:
        """``resourceslice.resource.k8s.io/NAME`` of each slice (kubectl's ``-o name``)."""
        return [
            f"resourceslice.resource.k8s.io/{d['metadata']['name']}"
            for d in self.documents
            if isinstance(d, dict) and d.get("kind") == "ResourceSlice"
        ]


def write_tables(report: Any, console: Any) -> None:
    from dractl.render.table import write_rows

    for t in report.tables:
        write_rows(console, list(t.columns), [list(r) for r in t.rows], title=t.title)
        write_text(console, "\n")


def write_json(report: Any, console: Any) -> None:
    import json

    write_text(console, json.dumps(report.to_dict(), indent=2))


def write_yaml(report: Any, console: Any) -> None:
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when present: much faster
    dumper = type("NoAliasDumper", (base,), {"ignore_aliases": lambda self, data: True})
    docs = list(report.documents)
    if not report.stream:
        write_text(console, yaml.dump(docs[0], Dumper=dumper, sort_keys=False))
    elif docs:
        write_text(console, yaml.dump_all(docs, Dumper=dumper, sort_keys=False))


register(DiscoverReport.report_type, Format.TABLE, write_tables)
register(DiscoverReport.report_type, Format.NAME, "dractl.render.structured:write_names")
register(DiscoverReport.report_type, Format.YAML, write_yaml)
register(DiscoverReport.report_type, Format.JSON, write_json)
