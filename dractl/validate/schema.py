"""JSON Schema (structural) validation of one object, as the API server's decoder sees it.

Schemas are the generated files under ``schemas/v1.3X/`` (shipped in the wheel as
``dractl._schemas``).  One compiled validator per (Kubernetes minor, kind, API version) is
cached.  Each jsonschema error becomes a :class:`Finding` with a Kubernetes field path
(``spec.devices[0].capacity[memory].value``), a stable rule id and the server's wording.

To add a rule id: describe it in the rule registry (``dractl/validate/catalog.yaml``) and map
the jsonschema keyword in :func:`_map_error`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from dractl.model.quantity import Quantity, QuantityError
from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions

_TYPE_NAMES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_REQUIRED_REWORD = {"resourceSliceCount": ("Invalid", "Invalid value: 0: must be greater than zero")}


def schema_root() -> Path:
    """The folder holding ``v1.3X/`` schema folders: the wheel's ``dractl/_schemas`` or the
    repository's ``schemas/`` in a source checkout."""
    # ``dractl/_schemas`` has no __init__.py: look it up below the ``dractl`` package (a plain
    # folder there) rather than importing it as a namespace package.
    shipped = resources.files("dractl") / "_schemas"
    if isinstance(shipped, Path) and shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[2] / "schemas"


@functools.cache
def load_schema(kube_version: str, kind: str, version: str) -> dict[str, Any] | None:
    """The schema of ``kind`` in ``version`` for a release, or None when there is none."""
    path = schema_root() / f"v{kube_version}" / f"{kind.lower()}-{version}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return data


@functools.cache
def _validator(kube_version: str, kind: str, version: str) -> Any:
    schema = load_schema(kube_version, kind, version)
    if schema is None:
        return None
    return _validator_class()(schema, format_checker=_format_checker())


@functools.cache
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, ValidationError, validators

    def soft_required(validator: Any, names: Sequence[str], instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            for name in names:
                if name not in instance:
                    yield ValidationError(f"{name!r} is a required property")

    return validators.extend(Draft202012Validator, {"x-dractl-soft-required": soft_required})


@functools.cache
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())

    @checker.checks("quantity", raises=QuantityError)
    def _quantity(value: object) -> bool:
        if isinstance(value, str):
            Quantity.parse(value.strip())
        elif isinstance(value, int | float) and not isinstance(value, bool):
            Quantity.parse(value)
        return True

    @checker.checks("int64")
    def _int64(value: object) -> bool:
        return _int_in_range(value, 63)

    @checker.checks("int32")
    def _int32(value: object) -> bool:
        return _int_in_range(value, 31)

    @checker.checks("date-time")
    def _date_time(value: object) -> bool:
        return not isinstance(value, str) or bool(_RFC3339.match(value))

    return checker


def _int_in_range(value: object, bits: int) -> bool:
    """JSON Schema's "integer" admits 1.0 and 1e30; Go's int decoder takes only what fits."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    return -(2**bits) <= value < 2**bits


def has_schema(kube_version: str, kind: str, version: str) -> bool:
    return load_schema(kube_version, kind, version) is not None


def check_schema(raw: dict[str, Any], kind: str, version: str, opts: ValidateOptions) -> list[Finding]:
    """Structural findings for one object (path, rule, message, severity, error type; the
    engine adds file/position/identity).  Raises KeyError when no schema exists."""
    validator = _validator(opts.kube_version, kind, version)
    if validator is None:
        raise KeyError(f"no schema for {kind} {version} in Kubernetes {opts.kube_version}")
    root = validator.schema
    out: list[Finding] = []
    for error in validator.iter_errors(raw):
        out.extend(_map_error(error, root, opts))
    return out


def _map_error(error: Any, root: dict[str, Any], opts: ValidateOptions) -> list[Finding]:
    parts = list(error.absolute_path)
    path = k8s_path(root, parts)
    keyword = error.validator
    value = error.instance
    if keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        severity = Severity.WARNING if opts.lenient else Severity.ERROR
        return [
            Finding(severity, "SCHEMA-UNKNOWN-FIELD", f'unknown field "{join(path, key)}"', join(path, key))
            for key in value
            if key not in known
        ]
    if keyword in ("required", "x-dractl-soft-required"):
        return _required(error, path, keyword == "x-dractl-soft-required", opts)
    if keyword == "type":
        expected = error.validator_value
        want = " or ".join(t for t in ([expected] if isinstance(expected, str) else expected) if t != "null")
        got = _TYPE_NAMES.get(type(value), type(value).__name__)
        return [
            Finding(
                Severity.ERROR,
                "SCHEMA-TYPE",
                f"Invalid value: {_show(value)}: must be of type {want}, not {got}",
                path,
                "TypeInvalid",
            )
        ]
    if keyword == "enum":
        allowed = ", ".join(json.dumps(v) for v in error.validator_value)
        return [
            Finding(
                Severity.ERROR,
                "SCHEMA-ENUM",
                f"Unsupported value: {_show(value)}: supported values: {allowed}",
                path,
                "NotSupported",
            )
        ]
    if keyword == "format":
        return [_format_finding(error, path)]
    return [
        Finding(
            Severity.ERROR,
            "SCHEMA-INVALID",
            f"Invalid value: {_show(value)}: {error.message}",
            path,
            "Invalid",
        )
    ]


def _required(error: Any, path: str, soft: bool, opts: ValidateOptions) -> list[Finding]:
    name = error.message.split("'")[1] if "'" in error.message else str(error.validator_value)
    field = join(path, name)
    if not opts.status and (field == "status" or field.startswith("status.") or field.startswith("status[")):
        return []  # the server discards status on create; only its decoding matters
    if soft:
        return [
            Finding(
                Severity.WARNING,
                "SCHEMA-REQUIRED-DEFAULTED",
                "Required value (the API server decodes a missing value as 0)",
                field,
                "Required",
            )
        ]
    error_type, message = _REQUIRED_REWORD.get(name, ("Required", "Required value"))
    return [Finding(Severity.ERROR, "SCHEMA-REQUIRED", message, field, error_type)]


def _format_finding(error: Any, path: str) -> Finding:
    fmt, value = error.validator_value, error.instance
    if fmt == "quantity":
        cause = error.cause
        reason = str(cause) if cause is not None else "not a quantity"
        return Finding(
            Severity.ERROR, "SCHEMA-QUANTITY", f"Invalid value: {_show(value)}: {reason}", path, "Invalid"
        )
    if fmt in ("int32", "int64"):
        bits = fmt[3:]
        return Finding(
            Severity.ERROR,
            "SCHEMA-INT-RANGE",
            f"Invalid value: {value}: must fit in a {bits}-bit integer",
            path,
            "Invalid",
        )
    return Finding(
        Severity.ERROR,
        "SCHEMA-FORMAT",
        f"Invalid value: {_show(value)}: must be a valid {fmt}",
        path,
        "Invalid",
    )


def _show(value: Any) -> str:
    if isinstance(value, str):  # quote only the head: a huge value is never copied whole
        head = json.dumps(value[:81])
        return head if len(value) <= 81 and len(head) <= 80 else head[:77] + "..."
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def k8s_path(root: dict[str, Any], parts: Sequence[str | int]) -> str:
    """The Kubernetes field path of a JSON path: fields as ``.name``, list items as ``[0]``,
    map keys (values of ``additionalProperties`` maps) as ``[key]``."""
    node: Any = root
    out = ""
    for part in parts:
        node = _deref(root, node)
        if isinstance(part, int):
            out += f"[{part}]"
            node = node.get("items", {}) if isinstance(node, dict) else {}
            continue
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        if part in props:
            out = join(out, part)
            node = props[part]
        else:
            extra = node.get("additionalProperties") if isinstance(node, dict) else None
            if isinstance(extra, dict):
                out += f"[{part}]"
                node = extra
            else:
                out = join(out, part)
                node = {}
    return out


def _deref(root: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = root.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
    return node
