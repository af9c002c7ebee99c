"""Kubernetes' URL library (``url()``, ``isURL()`` and the URL getters), as apiserver's
pkg/cel/library/urls.go."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote as _urlquote
from urllib.parse import urlsplit

from dractl.cel.lib.common import sig_err as _sig_err
from dractl.cel.values import EvalError, Opaque

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def parse_url(s: str) -> Any:
    if not s:
        raise EvalError('URL parse error during conversion from string: parse "": empty url')
    if not s.startswith("/") and not _SCHEME.match(s):
        raise EvalError(
            f'URL parse error during conversion from string: parse "{s}": missing protocol scheme'
            if s[0] == ":"
            else f'URL parse error during conversion from string: parse "{s}": invalid URI for request'
        )
    if any(c in s for c in " \x7f") or any(ord(c) < 0x20 for c in s):
        raise EvalError(
            f'URL parse error during conversion from string: parse "{s}": invalid character in URL'
        )
    try:
        return urlsplit(s)
    except ValueError as e:
        raise EvalError(f"URL parse error during conversion from string: {e}") from None


def url(s: Any) -> Opaque:
    if type(s) is not str:
        raise _sig_err("url", s)
    return Opaque("kubernetes.URL", (s, parse_url(s)))


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
            return host[1 : host.find("]")]
        return host.rsplit(":", 1)[0] if ":" in host else host
    if fn == "getPort":
        host = u.netloc.rsplit("@", 1)[-1]
        if host.startswith("["):
            rest = host[host.find("]") + 1 :]
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
