"""Kubernetes' named-format library (``format.dns1123Label()`` …, ``format.named()``,
``validate()``), as apiserver's pkg/cel/library/format.go."""

from __future__ import annotations

import base64
import re
from typing import Any

from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.lib.url import parse_url
from dractl.cel.stdlib import parse_timestamp
from dractl.cel.values import NONE, EvalError, Opaque, OptionalVal

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QNAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_1035_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QNAME_FMT + ")?"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    ex = ",  or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {ex}, regex used for validation is '{fmt}')"


_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character"
)
_1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)


def _subdomain(s: str) -> list[str]:
    errs = []
    if len(s) > 253:
        errs.append("must be no more than 253 characters")
    if not re.fullmatch(_SUBDOMAIN_FMT, s):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def _label(s: str, rx: re.Pattern[str], what: str) -> list[str]:
    errs = []
    if len(s) > 63:
        errs.append("must be no more than 63 characters")
    if not rx.fullmatch(s):
        if what == "1123":
            if re.fullmatch(_SUBDOMAIN_FMT, s):
                errs.append("must not contain dots")
            else:
                errs.append(_regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
        else:
            errs.append(_regex_error(_1035_MSG, _1035_FMT, "my-name", "abc-123"))
    return errs


def _qualified(s: str) -> list[str]:
    parts = s.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in _subdomain(prefix)]
    else:
        return [
            "a qualified name "
            + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if name and not _QNAME.fullmatch(name):
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def _label_value(s: str) -> list[str]:
    errs = []
    if len(s) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE.fullmatch(s):
        msg = "a valid label must be an empty string or " + _QNAME_MSG.removeprefix("must ")
        errs.append(_regex_error(msg, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _date(s: str, full: bool) -> list[str]:
    try:
        if full:
            parse_timestamp(s)
        else:
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
                raise EvalError("bad")
            parse_timestamp(s + "T00:00:00Z")
    except EvalError:
        return ["invalid datetime" if full else "invalid date"]
    return []


def _mask_dash(s: str) -> str:
    """apimachinery's maskTrailingDash: a generateName prefix ends in '-' -> its last two characters
    become 'a' (so "x.-" is checked as "xa")."""
    return s[:-2] + "a" if len(s) > 1 and s.endswith("-") else s


def _uri(s: str) -> list[str]:
    try:
        parse_url(s)
    except EvalError as e:  # Go's url.ParseRequestURI error, without the URL library's prefix
        return [e.message.removeprefix("URL parse error during conversion from string: ")]
    return []


def _byte(s: str) -> list[str]:
    try:
        base64.b64decode(s, validate=True)
    except ValueError:
        return ["invalid base64"]
    return []


_FORMATS: dict[str, Any] = {
    "dns1123Label": lambda s: _label(s, _LABEL, "1123"),
    "dns1123Subdomain": _subdomain,
    "dns1035Label": lambda s: _label(s, _1035, "1035"),
    "qualifiedName": _qualified,
    "dns1123LabelPrefix": lambda s: _label(_mask_dash(s), _LABEL, "1123"),
    "dns1123SubdomainPrefix": lambda s: _subdomain(_mask_dash(s)),
    "dns1035LabelPrefix": lambda s: _label(_mask_dash(s), _1035, "1035"),
    "labelValue": _label_value,
    "uri": _uri,
    "uuid": lambda s: [] if _UUID.fullmatch(s) else ["does not match the UUID format"],
    "byte": _byte,
    "date": lambda s: _date(s, False),
    "datetime": lambda s: _date(s, True),
}


def named_format(name: str) -> Opaque:
    return Opaque("kubernetes.NamedFormat", name)


def format_named(s: Any) -> OptionalVal:
    if type(s) is not str:
        raise _sig_err("format.named", s)
    return OptionalVal(True, named_format(s)) if s in _FORMATS else NONE


def format_validate(f: Any, s: Any) -> OptionalVal:
    if type(f) is not Opaque or f.kind != "kubernetes.NamedFormat" or type(s) is not str:
        raise _sig_err("validate", f, s)
    errs = _FORMATS[f.payload](s)
    return OptionalVal(True, errs) if errs else NONE


FORMAT_NAMES = tuple(_FORMATS)
