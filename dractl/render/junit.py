"""JUnit XML: one ``<testsuite>`` per file, one ``<testcase>`` per object.

An object with error findings fails (one ``<failure>`` listing them); warnings go to the
test case's ``<system-out>``; skipped kinds are ``<skipped/>``; an input that could not be
read is a test case with an ``<error>``.  Works on any report whose ``to_dict()`` has
``items`` (findings) and ``objects``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Any

from dractl.render.registry import write_text
from dractl.render.sanitize import sanitize


def _key(d: dict[str, Any]) -> tuple[Any, ...]:
    return (d["file"], d["document"], d.get("kind", ""), d.get("name", ""), d.get("namespace", ""))


def _case_name(obj: dict[str, Any]) -> str:
    ident = f"{obj['namespace']}/{obj['name']}" if obj.get("namespace") else obj.get("name") or "(unnamed)"
    item = f", item {obj['item']}" if obj.get("item") is not None else ""
    return f"{obj.get('kind') or '(no kind)'} {ident} (document {obj['document']}{item})"


def _line(item: dict[str, Any]) -> str:
    where = f"{item['file']}:{item['line']}:{item['column']}" if item.get("line") else item["file"]
    path = f"{item['path']}: " if item.get("path") and item["path"] not in item["message"] else ""
    return f"{where}: {item['severity']}: {item['rule']}: {path}{item['message']}"


def to_junit(report: Any, suite_name: str = "dractl validate") -> str:
    doc = sanitize(report.to_dict())  # one line per value, nothing XML 1.0 forbids
    by_object: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for item in doc["items"]:
        by_object[_key(item)].append(item)
    suites: dict[str, ET.Element] = {}
    root = ET.Element("testsuites", name=suite_name)
    for obj in doc["objects"]:
        suite = suites.get(obj["file"])
        if suite is None:
            suite = suites[obj["file"]] = ET.SubElement(root, "testsuite", name=obj["file"])
        case = ET.SubElement(suite, "testcase", classname=obj["file"], name=_case_name(obj))
        items = by_object.pop(_key(obj), [])
        _fill(case, obj, items)
    for err in doc.get("inputErrors", []):
        suite = suites.get(err["file"])
        if suite is None:
            suite = suites[err["file"]] = ET.SubElement(root, "testsuite", name=err["file"])
        case = ET.SubElement(suite, "testcase", classname=err["file"], name="read input")
        ET.SubElement(case, "error", message=err["text"], type="INPUT-ERROR").text = err["text"]
    _count(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _fill(case: ET.Element, obj: dict[str, Any], items: list[dict[str, Any]]) -> None:
    if obj["status"] == "skipped":
        ET.SubElement(case, "skipped", message=f"{obj.get('kind') or 'object'} is not validated by dractl")
        return
    errors = [i for i in items if i["severity"] == "error"]
    others = [i for i in items if i["severity"] != "error"]
    if errors:
        first = errors[0]
        failure = ET.SubElement(case, "failure", message=first["message"], type=first["rule"])
        failure.text = "\n".join(_line(i) for i in errors)
    if others:
        ET.SubElement(case, "system-out").text = "\n".join(_line(i) for i in others)


def _count(root: ET.Element) -> None:
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root:
        counts = {
            "tests": len(suite),
            "failures": len(suite.findall("testcase/failure")),
            "errors": len(suite.findall("testcase/error")),
            "skipped": len(suite.findall("testcase/skipped")),
        }
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))


def write_junit(report: Any, console: Any) -> None:
    write_text(console, to_junit(report))
