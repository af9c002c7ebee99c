"""Cases of k8s.io/apiserver/pkg/cel/library/ip_test.go and cidr_test.go, run through dractl's CEL engine."""

from __future__ import annotations

import pytest
from cel_upstream import Case, ce, check, params, rt, val

IP_CASES: list[Case] = [
    val("parse ipv4", 'ip("192.168.0.1")', 'ip("192.168.0.1")'),
    rt(
        "parse invalid ipv4",
        'ip("192.168.0.1.0")',
        r'IP Address "192\.168\.0\.1\.0" parse error during conversion from string: '
        r'ParseAddr\("192\.168\.0\.1\.0"\): IPv4 address too long',
    ),
    val("isIP valid ipv4", 'isIP("192.168.0.1")', "true"),
    val("isIP invalid ipv4", 'isIP("192.168.0.1.0")', "false"),
    val("ip.isCanonical valid ipv4", 'ip.isCanonical("127.0.0.1")', "true"),
    rt(
        "ip.isCanonical invalid ipv4",
        'ip.isCanonical("127.0.0.1.0")',
        r'IP Address "127\.0\.0\.1\.0" parse error during conversion from string: '
        r'ParseAddr\("127\.0\.0\.1\.0"\): IPv4 address too long',
    ),
    val("ipv4 family", 'ip("192.168.0.1").family()', "4"),
    val("ipv4 isUnspecified true", 'ip("0.0.0.0").isUnspecified()', "true"),
    val("ipv4 isUnspecified false", 'ip("127.0.0.1").isUnspecified()', "false"),
    val("ipv4 isLoopback true", 'ip("127.0.0.1").isLoopback()', "true"),
    val("ipv4 isLoopback false", 'ip("1.2.3.4").isLoopback()', "false"),
    val("ipv4 isLinkLocalMulticast true", 'ip("224.0.0.1").isLinkLocalMulticast()', "true"),
    val("ipv4 isLinkLocalMulticast false", 'ip("224.0.1.1").isLinkLocalMulticast()', "false"),
    val("ipv4 isLinkLocalUnicast true", 'ip("169.254.169.254").isLinkLocalUnicast()', "true"),
    val("ipv4 isLinkLocalUnicast false", 'ip("192.168.0.1").isLinkLocalUnicast()', "false"),
    val("ipv4 isGlobalUnicast true", 'ip("192.168.0.1").isGlobalUnicast()', "true"),
    val("ipv4 isGlobalUnicast false", 'ip("255.255.255.255").isGlobalUnicast()', "false"),
    val("parse ipv6", 'ip("2001:db8::68")', 'ip("2001:db8::68")'),
    rt(
        "parse invalid ipv6",
        'ip("2001:db8:::68")',
        r'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr\("2001:db8:::68"\): '
        r'each colon-separated field must have at least one digit \(at ":68"\)',
    ),
    val("isIP valid ipv6", 'isIP("2001:db8::68")', "true"),
    val("isIP invalid ipv6", 'isIP("2001:db8:::68")', "false"),
    val("ip.isCanonical valid ipv6", 'ip.isCanonical("2001:db8::68")', "true"),
    val("ip.isCanonical non-canonical ipv6", 'ip.isCanonical("2001:DB8::68")', "false"),
    rt(
        "ip.isCanonical invalid ipv6",
        'ip.isCanonical("2001:db8:::68")',
        r'ParseAddr\("2001:db8:::68"\): each colon-separated field must have at least one digit',
    ),
    val("ipv6 family", 'ip("2001:db8::68").family()', "6"),
    val("ipv6 isUnspecified true", 'ip("::").isUnspecified()', "true"),
    val("ipv6 isUnspecified false", 'ip("::1").isUnspecified()', "false"),
    val("ipv6 isLoopback true", 'ip("::1").isLoopback()', "true"),
    val("ipv6 isLoopback false", 'ip("2001:db8::abcd").isLoopback()', "false"),
    val("ipv6 isLinkLocalMulticast true", 'ip("ff02::1").isLinkLocalMulticast()', "true"),
    val("ipv6 isLinkLocalMulticast false", 'ip("fd00::1").isLinkLocalMulticast()', "false"),
    val("ipv6 isLinkLocalUnicast true", 'ip("fe80::1").isLinkLocalUnicast()', "true"),
    val("ipv6 isLinkLocalUnicast false", 'ip("fd80::1").isLinkLocalUnicast()', "false"),
    val("ipv6 isGlobalUnicast true", 'ip("2001:db8::abcd").isGlobalUnicast()', "true"),
    val("ipv6 isGlobalUnicast false", 'ip("ff00::1").isGlobalUnicast()', "false"),
    ce(
        "passing cidr into isIP",
        'isIP(cidr("192.168.0.0/24"))',
        r"found no matching overload for 'isIP' applied to '\(net\.CIDR\)'",
    ),
    val("converting an IP address to a string", 'string(ip("192.168.0.1"))', '"192.168.0.1"'),
    val("type of IP is net.IP", 'type(ip("192.168.0.1")) == net.IP', "true"),
]

CIDR_CASES: list[Case] = [
    ce(
        "compilation error for cidr(int)",
        "cidr(192168)",
        r"found no matching overload for 'cidr' applied to '\(int\)'",
    ),
    val("parse ipv4", 'cidr(dyn("192.168.0.0/24"))', 'cidr("192.168.0.0/24")'),
    rt(
        "parse invalid ipv4",
        'cidr("192.168.0.0/")',
        r"network address parse error during conversion from string: network address parse error during "
        r'conversion from string: netip\.ParsePrefix\("192\.168\.0\.0/"\): bad bits after slash: ""',
    ),
    val("contains IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', "true"),
    val("does not contain IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', "false"),
    val("contains IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', "true"),
    val("does not contain IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', "false"),
    val("contains CIDR ipv4 (CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', "true"),
    val(
        "does not contain CIDR ipv4 (CIDR)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))',
        "false",
    ),
    val("contains CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', "true"),
    val(
        "does not contain CIDR ipv4 (string)",
        'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")',
        "false",
    ),
    val("returns IP ipv4", 'cidr("192.168.0.0/24").ip()', 'ip("192.168.0.0")'),
    val("masks masked ipv4", 'cidr("192.168.0.0/24").masked()', 'cidr("192.168.0.0/24")'),
    val("masks unmasked ipv4", 'cidr("192.168.0.1/24").masked()', 'cidr("192.168.0.0/24")'),
    val("returns prefix length ipv4", 'cidr("192.168.0.0/24").prefixLength()', "24"),
    val("parse ipv6", 'cidr("2001:db8::/32")', 'cidr("2001:db8::/32")'),
    rt(
        "parse invalid ipv6",
        'cidr("2001:db8::/")',
        r'netip\.ParsePrefix\("2001:db8::/"\): bad bits after slash: ""',
    ),
    val("contains IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', "true"),
    val("does not contain IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', "false"),
    val("contains IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:db8::1")', "true"),
    val("does not contain IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:dc8::1")', "false"),
    val("contains CIDR ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', "true"),
    val(
        "does not contain CIDR ipv6 (CIDR)",
        'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))',
        "false",
    ),
    val("contains CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', "true"),
    val(
        "does not contain CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', "false"
    ),
    val("returns IP ipv6", 'cidr("2001:db8::/32").ip()', 'ip("2001:db8::")'),
    val("masks masked ipv6", 'cidr("2001:db8::/32").masked()', 'cidr("2001:db8::/32")'),
    val("masks unmasked ipv6", 'cidr("2001:db8:1::/32").masked()', 'cidr("2001:db8::/32")'),
    val("returns prefix length ipv6", 'cidr("2001:db8::/32").prefixLength()', "32"),
    val("converting a CIDR to a string", 'string(cidr("192.168.0.0/24"))', '"192.168.0.0/24"'),
    val("type of CIDR is net.CIDR", 'type(cidr("192.168.0.0/24")) == net.CIDR', "true"),
]


@pytest.mark.parametrize("case", params(IP_CASES))
def test_upstream_ip(case: Case) -> None:
    check(case)


@pytest.mark.parametrize("case", params(CIDR_CASES))
def test_upstream_cidr(case: Case) -> None:
    check(case)
