"""Value formats shared by many rules (API-RULES.md §1), with apimachinery's messages.

Each ``is_*`` returns the list of problems (empty when valid), worded as
``k8s.io/apimachinery/pkg/util/validation`` words them.
"""

from __future__ import annotations

import ipaddress
import re
import uuid

_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_QNAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER = re.compile(rf"^{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?$")
_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


EMPTY = "must be non-empty"
LABEL_MSG = regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
    "or '-', and must start and end with an alphanumeric character",
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
    "my-name",
    "123-abc",
)
SUBDOMAIN_MSG = regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character",
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
    "example.com",
)
_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
LABEL_VALUE_MSG = regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character",
    f"({_QNAME_FMT})?",
    "MyValue",
    "my_value",
    "12345",
)
C_IDENT_MSG = regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by "
    "a string of alphanumeric characters or '_'",
    "[A-Za-z_][A-Za-z0-9_]*",
    "my_name",
    "MY_NAME",
    "MyName",
)
SEMVER_MSG = "must be a string compatible with semver.org spec 2.0.0"


def is_dns_label(value: str) -> list[str]:
    errs = [max_len_error(63)] if len(value) > 63 else []
    if not _LABEL.match(value):
        errs.append("must not contain dots" if _SUBDOMAIN.match(value) else LABEL_MSG)
    return errs


def is_dns_subdomain(value: str) -> list[str]:
    errs = [max_len_error(253)] if len(value) > 253 else []
    if not _SUBDOMAIN.match(value):
        errs.append(SUBDOMAIN_MSG)
    return errs


def is_prefix_subdomain(value: str) -> list[str]:
    """generateName: checked as a subdomain after dropping one trailing '-' (prefix mode)."""
    return is_dns_subdomain(value[:-1] if value.endswith("-") and len(value) > 1 else value)


def is_label_key(value: str) -> list[str]:
    """Qualified name / label key (IsQualifiedName)."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return [
            "a valid label key "
            + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part " + EMPTY)
        else:
            errs.extend("prefix part " + m for m in is_dns_subdomain(prefix))
    if not name:
        errs.append("name part " + EMPTY)
    elif len(name) > 63:
        errs.append("name part " + max_len_error(63))
    if not _QNAME.match(name):
        errs.append("name part " + regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    errs = [max_len_error(63)] if len(value) > 63 else []
    if not _LABEL_VALUE.match(value):
        errs.append(LABEL_VALUE_MSG)
    return errs


def is_c_identifier(value: str) -> list[str]:
    return [] if _C_IDENT.match(value) else [C_IDENT_MSG]


def is_semver(value: str) -> bool:
    return bool(_SEMVER.match(value))


def is_condition_reason(value: str) -> bool:
    return bool(_REASON.match(value))


def uid_problem(value: str) -> str | None:
    """FMT-UUID: the detail of the server's Invalid error, or None when valid."""
    try:
        uuid.UUID(value)
        if len(value) not in (32, 36, 38, 45):
            raise ValueError(f"invalid UUID length: {len(value)}")
    except ValueError as exc:
        text = str(exc)
        if "length" not in text:
            text = "invalid UUID format"
        return f"error validating uid: {text}"
    if len(value) != 36 or value != value.lower():
        return (
            "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
            "with lowercase hexadecimal characters"
        )
    return None


def interface_address_problem(value: str) -> str | None:
    """FMT-CIDR-IF: ip/prefix that parses and is written canonically."""
    try:
        iface = ipaddress.ip_interface(value)
    except ValueError:
        return "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
    if "/" not in value:
        return "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
    if str(iface) != value:
        return f'must be in canonical form ("{iface}")'
    return None


def is_extended_resource_name(value: str) -> bool:
    """FMT-EXT-RES: not native (needs a '/', outside *kubernetes.io/), no ``requests.`` prefix,
    and ``requests.<name>`` a qualified name."""
    if "/" not in value or "kubernetes.io/" in value:
        return False
    if value.startswith("requests."):
        return False
    return not is_label_key("requests." + value)


_HUGEPAGES = re.compile(r"^hugepages-[0-9]+(\.[0-9]+)?([KMGTPE]i?|[kmunEPTGM])?$")


def is_node_allocatable_name(value: str) -> bool:
    return value in ("cpu", "memory") or bool(_HUGEPAGES.match(value))
