"""Go's ``net/netip`` address parsing errors, so IP/CIDR failures read like Kubernetes' ones.

Python's :mod:`ipaddress` decides the value; this module only reproduces *why* Go's
``netip.ParseAddr`` rejects a string (Go and Python agree on what is valid for plain addresses).
"""

from __future__ import annotations


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _err(text: str, msg: str, at: str | None = None) -> str:
    out = f"ParseAddr({_quote(text)}): {msg}"
    return f"{out} (at {_quote(at)})" if at else out  # Go leaves out an empty "at"


def _ipv4_fields(text: str, s: str) -> str | None:
    val = pos = digits = 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if digits == 1 and val == 0:
                return _err(text, "IPv4 field has octet with leading zero")
            val = val * 10 + ord(c) - 48
            digits += 1
            if val > 255:
                return _err(text, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                return _err(text, "IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                return _err(text, "IPv4 address too long")
            pos, val, digits = pos + 1, 0, 0
        else:
            return _err(text, "unexpected character", s[i:])
    return _err(text, "IPv4 address too short") if pos < 3 else None


def _ipv6(text: str) -> str | None:
    s, _, zone = text.partition("%")
    if "%" in text and not zone:
        return _err(text, "zone must be a non-empty string")
    ellipsis = -1
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return None
    i = 0
    while i < 16:
        off = acc = 0
        while off < len(s) and s[off] in "0123456789abcdefABCDEF":
            acc = (acc << 4) + int(s[off], 16)
            if off > 3:
                return _err(text, "each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                return _err(text, "IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            return _err(text, "each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                return _err(text, "embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                return _err(text, "too many hex fields to fit an embedded IPv4 at the end of the address", s)
            bad = _ipv4_fields(text, s)
            if bad:
                return bad
            s, i = "", i + 4
            break
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            return _err(text, "unexpected character, want colon", s)
        if len(s) == 1:
            return _err(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                return _err(text, "multiple :: in address", s)
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        return _err(text, "trailing garbage after address", s)
    if i < 16 and ellipsis < 0:
        return _err(text, "address string too short")
    if i >= 16 and ellipsis >= 0:
        return _err(text, "the :: must expand to at least one field of zeros", s)
    return None


def parse_addr_error(text: str) -> str | None:
    """Go's ``netip.ParseAddr(text)`` error message, or None when Go accepts ``text``."""
    for c in text:
        if c == ".":
            return _ipv4_fields(text, text)
        if c == ":":
            return _ipv6(text)
        if c == "%":
            return _err(text, "missing IPv6 address")
    return _err(text, "unable to parse IP")
