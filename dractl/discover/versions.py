"""Strict SemVer 2.0 for version attributes.

The API server rejects a ``version`` attribute that is not strict SemVer 2.0
(and an invalid one makes every selector on the device fail), but drivers
report versions such as ``560.35.03`` (leading zero), ``12.4`` (two parts) or
``8.0``.  :func:`normalize` turns those into ``560.35.3``, ``12.4.0``, ``8.0.0``
the way the NVIDIA driver's semver library does, and refuses anything else.
"""

from __future__ import annotations

import re

# semver.org's recommended expression (anchored), which is what Kubernetes checks.
STRICT_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)

_LOOSE = re.compile(
    r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$"
)
MAX_LENGTH = 64


def is_strict(version: str) -> bool:
    return len(version) <= MAX_LENGTH and STRICT_SEMVER.match(version) is not None


def normalize(raw: str | None) -> str | None:
    """A strict SemVer 2.0 string for ``raw``, or None when it cannot be made one.

    Numeric parts lose leading zeros, missing minor/patch become 0, a fourth
    numeric part becomes build metadata (``1.2.3.4`` → ``1.2.3+4``).
    """
    if raw is None:
        return None
    m = _LOOSE.match(raw.strip())
    if not m:
        return None
    major, minor, patch, fourth, pre, build = m.groups()
    out = f"{int(major)}.{int(minor or 0)}.{int(patch or 0)}"
    if pre:
        parts = [str(int(p)) if p.isdigit() else p for p in pre.split(".")]
        out += "-" + ".".join(parts)
    builds = [b for b in (fourth, build) if b]
    if builds:
        out += "+" + ".".join(builds)
    return out if is_strict(out) else None
