"""Kubernetes' IP and CIDR libraries (``ip()``, ``cidr()`` and their methods), as apiserver's
pkg/cel/library/ip.go and cidr.go."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from dractl.cel.goaddr import parse_addr_error
from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.values import EvalError, Opaque


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
        return a.is_multicast and (
            a in ipaddress.ip_network("224.0.0.0/24")
            if a.version == 4
            else (int(a) >> 112) & 0xFF0F == 0xFF02
        )
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
    head = (
        "network address parse error during conversion from string: network address "
        f'parse error during conversion from string: netip.ParsePrefix("{s}"): '
    )
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
