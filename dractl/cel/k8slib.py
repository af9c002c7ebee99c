"""Kubernetes CEL libraries at run time: Quantity, Semver, URL, IP, CIDR and named formats."""

from __future__ import annotations

import base64
import ipaddress
import re
from typing import Any
from urllib.parse import quote as _urlquote
from urllib.parse import urlsplit

from dractl.cel.goaddr import parse_addr_error
from dractl.cel.values import NONE, EvalError, Opaque, OptionalVal, QuantityVal, SemverVal, type_name
from dractl.model.quantity import Quantity, QuantityError
from dractl.model.semver import SemverError, Version


def _sig_err(fn: str, *args: Any) -> EvalError:
    return EvalError(f"no such overload: {fn}({', '.join(type_name(a) for a in args)})")


# -- Quantity ----------------------------------------------------------------------------------
def quantity(s: Any) -> QuantityVal:
    if type(s) is not str:
        raise _sig_err("quantity", s)
    try:
        return QuantityVal(Quantity.parse(s))
    except QuantityError as e:
        raise EvalError(str(e)) from None


def is_quantity(s: Any) -> bool:
    if type(s) is not str:
        raise _sig_err("isQuantity", s)
    try:
        Quantity.parse(s)
    except QuantityError:
        return False
    return True


def _q(v: Any, fn: str, *rest: Any) -> Quantity:
    if type(v) is not QuantityVal:
        raise _sig_err(fn, v, *rest)
    return v.q


def q_sign(v: Any) -> int:
    return _q(v, "sign").sign()


def q_compare(a: Any, b: Any) -> int:
    return _q(a, "compareTo", b).compare(_q(b, "compareTo", a))


def q_add(a: Any, b: Any) -> QuantityVal:
    q = _q(a, "add", b)
    if type(b) is int:
        return QuantityVal(q.add(Quantity.from_int(b, q.format)), True)
    return QuantityVal(q.add(_q(b, "add", a)), True)


def q_sub(a: Any, b: Any) -> QuantityVal:
    q = _q(a, "sub", b)
    if type(b) is int:
        return QuantityVal(q.sub(Quantity.from_int(b, q.format)), True)
    return QuantityVal(q.sub(_q(b, "sub", a)), True)


def q_as_integer(a: Any) -> int:
    v = _q(a, "asInteger").as_int64()
    if v is None:
        raise EvalError("cannot convert value to integer")
    return v


def q_is_integer(a: Any) -> bool:
    return _q(a, "isInteger").as_int64() is not None


def q_as_float(a: Any) -> float:
    return _q(a, "asApproximateFloat").as_approximate_float()


# -- Semver ------------------------------------------------------------------------------------
def semver(s: Any, *norm: Any) -> SemverVal:
    if type(s) is not str or (norm and type(norm[0]) is not bool):
        raise _sig_err("semver", s, *norm)
    try:
        return SemverVal(Version.parse_normalized(s) if norm and norm[0] else Version.parse(s))
    except SemverError as e:
        raise EvalError(str(e)) from None


def is_semver(s: Any, *norm: Any) -> bool:
    if type(s) is not str or (norm and type(norm[0]) is not bool):
        raise _sig_err("isSemver", s, *norm)
    try:
        Version.parse_normalized(s) if norm and norm[0] else Version.parse(s)
    except SemverError:
        return False
    return True


def _v(v: Any, fn: str, *rest: Any) -> Version:
    if type(v) is not SemverVal:
        raise _sig_err(fn, v, *rest)
    return v.v


def s_compare(a: Any, b: Any) -> int:
    return _v(a, "compareTo", b).compare(_v(b, "compareTo", a))


# -- comparisons shared by Quantity and Semver -------------------------------------------------
def is_greater(a: Any, b: Any) -> bool:
    if type(a) is QuantityVal:
        return a.q.compare(_q(b, "isGreaterThan", a)) == 1
    if type(a) is SemverVal:
        return a.v.compare(_v(b, "isGreaterThan", a)) == 1
    raise _sig_err("isGreaterThan", a, b)


def is_less(a: Any, b: Any) -> bool:
    if type(a) is QuantityVal:
        return a.q.compare(_q(b, "isLessThan", a)) == -1
    if type(a) is SemverVal:
        return a.v.compare(_v(b, "isLessThan", a)) == -1
    raise _sig_err("isLessThan", a, b)


def compare_to(a: Any, b: Any) -> int:
    if type(a) is QuantityVal:
        return q_compare(a, b)
    if type(a) is SemverVal:
        return s_compare(a, b)
    raise _sig_err("compareTo", a, b)


def major(a: Any) -> int:
    return _v(a, "major").major


def minor(a: Any) -> int:
    return _v(a, "minor").minor


def patch(a: Any) -> int:
    return _v(a, "patch").patch


# -- URL ---------------------------------------------------------------------------------------
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _parse_url(s: str) -> Any:
    if not s:
        raise EvalError('URL parse error during conversion from string: parse "": empty url')
    if not s.startswith("/") and not _SCHEME.match(s):
        raise EvalError(f'URL parse error during conversion from string: parse "{s}": '
                        "missing protocol scheme" if s[0] == ":" else
                        f'URL parse error during conversion from string: parse "{s}": '
                        "invalid URI for request")
    if any(c in s for c in " \x7f") or any(ord(c) < 0x20 for c in s):
        raise EvalError(f'URL parse error during conversion from string: parse "{s}": '
                        "invalid character in URL")
    try:
        return urlsplit(s)
    except ValueError as e:
        raise EvalError(f"URL parse error during conversion from string: {e}") from None


def url(s: Any) -> Opaque:
    if type(s) is not str:
        raise _sig_err("url", s)
    return Opaque("kubernetes.URL", (s, _parse_url(s)))


def is_url(s: Any) -> bool:
    try:
        url(s)
    except EvalError:
        return False
    return True


def _u(v: Any, fn: str) -> Any:
    if type(v) is not Opaque or v.kind != "kubernetes.URL":
        raise _sig_err(fn, v)
    return v.payload[1]


def url_part(fn: str, v: Any) -> Any:
    u = _u(v, fn)
    if fn == "getScheme":
        return u.scheme
    if fn == "getHost":
        return u.netloc.rsplit("@", 1)[-1]
    if fn == "getHostname":
        host = u.netloc.rsplit("@", 1)[-1]
        if host.startswith("["):
            return host[1:host.find("]")]
        return host.rsplit(":", 1)[0] if ":" in host else host
    if fn == "getPort":
        host = u.netloc.rsplit("@", 1)[-1]
        if host.startswith("["):
            rest = host[host.find("]") + 1:]
            return rest[1:] if rest.startswith(":") else ""
        return host.rsplit(":", 1)[1] if ":" in host else ""
    if fn == "getEscapedPath":
        return _urlquote(_unquote(u.path), safe="/:@!$&'()*+,;=-._~%") if "%" not in u.path else u.path
    if fn == "getQuery":
        out: dict[str, list[str]] = {}
        for part in filter(None, re.split(r"[&]", u.query)):
            k, _, val = part.partition("=")
            out.setdefault(_unquote(k), []).append(_unquote(val))
        return out
    raise _sig_err(fn, v)


def _unquote(s: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(s)


# -- IP / CIDR ---------------------------------------------------------------------------------
def _parse_addr(s: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """``netip.ParseAddr``: the address, or EvalError with Go's reason (no Kubernetes prefix)."""
    why = parse_addr_error(s)
    try:
        a = ipaddress.ip_address(s.partition("%")[0])
    except ValueError:
        why = why or f'ParseAddr("{s}"): unable to parse IP'
    if why:
        raise EvalError(why)
    return a


def _parse_ip(s: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        a = _parse_addr(s)
    except EvalError as e:
        raise EvalError(f'IP Address "{s}" parse error during conversion from string: {e}') from None
    if "%" in s:
        raise EvalError("IP address with zone value is not allowed")
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{s}" is not allowed')
    return a


def ip(s: Any) -> Opaque:
    if type(s) is Opaque and s.kind == "net.CIDR":  # the member overload cidr.ip()
        return cidr_prop("ip", s)
    if type(s) is not str:
        raise _sig_err("ip", s)
    return Opaque("net.IP", _parse_ip(s))


def is_ip(s: Any) -> bool:
    try:
        ip(s)
    except EvalError:
        return False
    return True


def ip_is_canonical(s: Any) -> bool:
    if type(s) is not str:
        raise _sig_err("ip.isCanonical", s)
    return str(_parse_ip(s)) == s


def _ip(v: Any, fn: str) -> Any:
    if type(v) is not Opaque or v.kind != "net.IP":
        raise _sig_err(fn, v)
    return v.payload


def ip_prop(fn: str, v: Any) -> Any:
    a = _ip(v, fn)
    if fn == "family":
        return a.version
    if fn == "isUnspecified":
        return a.is_unspecified
    if fn == "isLoopback":
        return a.is_loopback
    if fn == "isLinkLocalMulticast":
        return a.is_multicast and (a in ipaddress.ip_network("224.0.0.0/24") if a.version == 4
                                   else (int(a) >> 112) & 0xFF0F == 0xFF02)
    if fn == "isLinkLocalUnicast":
        return a.is_link_local and not a.is_multicast
    if fn == "isGlobalUnicast":
        if a.version == 4 and a == ipaddress.ip_address("255.255.255.255"):
            return False
        return not (a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local)
    raise _sig_err(fn, v)


def cidr(s: Any) -> Opaque:
    if type(s) is not str:
        raise _sig_err("cidr", s)
    addr, sep, bits = s.rpartition("/")
    head = ("network address parse error during conversion from string: network address "
            f'parse error during conversion from string: netip.ParsePrefix("{s}"): ')
    if not sep:
        raise EvalError(head + "no '/'")
    try:
        a = _parse_addr(addr)
    except EvalError as e:
        raise EvalError(head + str(e)) from None
    if "%" in addr:
        raise EvalError(head + "IPv6 zones cannot be present in a prefix")
    if not re.fullmatch(r"[0-9]+", bits) or (len(bits) > 1 and bits[0] == "0"):
        raise EvalError(head + f'bad bits after slash: "{bits}"')
    n = int(bits)
    if n > a.max_prefixlen:
        raise EvalError(head + "prefix length out of range")
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{s}" is not allowed')
    return Opaque("net.CIDR", (a, n))


def is_cidr(s: Any) -> bool:
    try:
        cidr(s)
    except EvalError:
        return False
    return True


def _c(v: Any, fn: str) -> tuple[Any, int]:
    if type(v) is not Opaque or v.kind != "net.CIDR":
        raise _sig_err(fn, v)
    return v.payload


def _net(p: tuple[Any, int]) -> Any:
    return ipaddress.ip_network(f"{p[0]}/{p[1]}", strict=False)


def cidr_contains_ip(c: Any, x: Any) -> bool:
    p = _c(c, "containsIP")
    a = _parse_ip(x) if type(x) is str else _ip(x, "containsIP")
    return a.version == p[0].version and a in _net(p)


def cidr_contains_cidr(c: Any, x: Any) -> bool:
    p = _c(c, "containsCIDR")
    o = _c(cidr(x), "containsCIDR") if type(x) is str else _c(x, "containsCIDR")
    return o[0].version == p[0].version and o[1] >= p[1] and o[0] in _net(p)


def cidr_prop(fn: str, c: Any) -> Any:
    p = _c(c, fn)
    if fn == "ip":
        return Opaque("net.IP", p[0])
    if fn == "masked":
        n = _net(p)
        return Opaque("net.CIDR", (n.network_address, p[1]))
    if fn == "prefixLength":
        return p[1]
    raise _sig_err(fn, c)


def opaque_to_string(v: Any) -> str:
    if type(v) is Opaque and v.kind == "net.IP":
        return str(v.payload)
    if type(v) is Opaque and v.kind == "net.CIDR":
        return f"{v.payload[0]}/{v.payload[1]}"
    raise _sig_err("string", v)


# -- named formats -----------------------------------------------------------------------------
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


_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                  "'.', and must start and end with an alphanumeric character")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
              "must start and end with an alphanumeric character")
_1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
             "alphabetic character, and end with an alphanumeric character")
_QNAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character")


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
        return ["a qualified name " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
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
    from dractl.cel.stdlib import parse_timestamp

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
        _parse_url(s)
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
