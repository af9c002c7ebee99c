"""The collector every rule writes into, and Kubernetes' field-error wording.

Messages follow ``field.Error.ErrorBody()`` of k8s.io/apimachinery, so that
``path: message`` reads exactly like the API server's answer, e.g.
``spec.devices[0].name: Invalid value: "GPU0": a lowercase RFC 1123 label …``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.errors import VALUE_LIMIT, excerpt
from dractl.model.features import Features
from dractl.validate.findings import Finding, Severity
from dractl.validate.options import ValidateOptions
from dractl.validate.rules.limits import Limits, limits_for

_OMIT = object()


class Bare(str):
    """A value the server prints without quotes (a ``fmt.Stringer`` such as a device ID)."""


def render_value(value: Any) -> str:
    """A bad value as ``ErrorBody`` prints it (strings quoted, scalars bare, the rest as JSON)."""
    if value is None:
        return "null"
    if isinstance(value, Bare):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):  # cut before quoting: a huge value is never copied whole
        if len(value) > VALUE_LIMIT:
            return json.dumps(value[:VALUE_LIMIT], ensure_ascii=False) + f"… ({len(value):,} characters)"
        return json.dumps(value, ensure_ascii=False)
    return excerpt(json.dumps(value, separators=(",", ":"), sort_keys=True, default=str), VALUE_LIMIT)


def key_path(path: str, key: str) -> str:
    return f"{path}[{key}]"


@dataclass
class Ctx:
    """Findings of one object plus what every rule needs (gates, limits, kind, mode)."""

    opts: ValidateOptions
    kind: str = ""
    api_version: str = ""
    findings: list[Finding] = field(default_factory=list)
    limits: Limits = field(init=False)
    stored_cel: bool = False  # update with unchanged selectors: CEL is not re-compiled
    stored_config: bool = False  # update with unchanged config: the parameter size limit is skipped
    old_devices: dict[str, Mapping[str, Any]] = field(default_factory=dict)  # slice update: old devices

    def __post_init__(self) -> None:
        self.limits = limits_for(self.opts.kube_version)

    @property
    def features(self) -> Features:
        return self.opts.features

    @property
    def version(self) -> tuple[int, int]:
        major, minor = self.opts.kube_version.split(".")[:2]
        return int(major), int(minor)

    def gate(self, name: str) -> bool:
        return bool(getattr(self.opts.features, name, False))

    # -- emitters (one per Kubernetes error type) --------------------------------------------
    def add(
        self,
        rule: str,
        etype: str | None,
        path: str,
        message: str,
        severity: Severity = Severity.ERROR,
        **extra: Any,
    ) -> None:
        self.findings.append(
            Finding(severity=severity, rule=rule, message=message, path=path, error_type=etype, extra=extra)
        )

    def required(self, rule: str, path: str, detail: str = "") -> None:
        self.add(rule, "Required", path, "Required value" + (f": {detail}" if detail else ""))

    def invalid(self, rule: str, path: str, value: Any, detail: str) -> None:
        body = "Invalid value" if value is _OMIT else f"Invalid value: {render_value(value)}"
        self.add(rule, "Invalid", path, f"{body}: {detail}" if detail else body)

    def too_long(self, rule: str, path: str, max_len: int) -> None:
        unit = "byte" if max_len == 1 else "bytes"
        self.add(rule, "TooLong", path, f"Too long: may not be more than {max_len} {unit}")

    def too_many(self, rule: str, path: str, actual: int, max_items: int) -> None:
        unit = "item" if max_items == 1 else "items"
        self.add(rule, "TooMany", path, f"Too many: {actual}: must have at most {max_items} {unit}")

    def duplicate(self, rule: str, path: str, value: Any) -> None:
        self.add(rule, "Duplicate", path, f"Duplicate value: {render_value(value)}")

    def not_supported(self, rule: str, path: str, value: Any, supported: Sequence[str]) -> None:
        allowed = ", ".join(json.dumps(s) for s in supported)
        self.add(
            rule,
            "NotSupported",
            path,
            f"Unsupported value: {render_value(value)}: supported values: {allowed}",
        )

    def forbidden(self, rule: str, path: str, detail: str) -> None:
        self.add(rule, "Forbidden", path, f"Forbidden: {detail}")

    def not_found(self, rule: str, path: str, value: Any) -> None:
        self.add(rule, "NotFound", path, f"Not found: {render_value(value)}")

    def warn(self, rule: str, path: str, message: str) -> None:
        self.add(rule, None, path, message, severity=Severity.WARNING)

    def format_errors(self, rule: str, path: str, value: Any, messages: Sequence[str]) -> None:
        for msg in messages:
            self.invalid(rule, path, value, msg)

    # -- list helpers mirroring validateSlice / validateSet / validateMap ----------------------
    def each(
        self, rule: str, items: Any, max_size: int, path: str, check: Callable[[Any, str], None]
    ) -> list[Any]:
        """Validate a list: over ``max_size`` → one TooMany and nothing inside (the server's DoS guard)."""
        if not isinstance(items, list):
            return []
        if 0 <= max_size < len(items):
            self.too_many(rule, path, len(items), max_size)
            return []
        for i, item in enumerate(items):
            check(item, f"{path}[{i}]")
        return items

    def each_unique(
        self,
        rule: str,
        dup_rule: str,
        items: Any,
        max_size: int,
        path: str,
        check: Callable[[Any, str], None],
        key: Callable[[Any], Any],
    ) -> None:
        checked = self.each(rule, items, max_size, path, check)
        seen: set[Any] = set()
        for i, item in enumerate(checked):
            k = key(item)
            try:
                if k in seen:
                    self.duplicate(dup_rule, f"{path}[{i}]", k)
                else:
                    seen.add(k)
            except TypeError:
                continue


def as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def truncate_key(key: str, max_len: int) -> str:
    """Map keys longer than the limit are shortened in the middle in error paths (validateMap)."""
    max_len = max(max_len, 16)
    if len(key) <= max_len:
        return key
    remaining = max_len - 3
    return key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2 :]
