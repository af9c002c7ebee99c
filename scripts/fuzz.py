#!/usr/bin/env python3
"""Fuzz every command that reads input against the hostile-input contract (issue 11).

    python scripts/fuzz.py                  # 3-minute run, prints counts and any violation
    python scripts/fuzz.py --seconds 30     # a bounded slice
    python scripts/fuzz.py --examples 200   # a fixed number of inputs per target

Structure-aware: real manifests (examples/demo and the shared strategies) are mutated by
inserting hostile strings (C0/C1 controls, bidi overrides, lone surrogates, newlines that look
like workflow commands, huge values) into keys and values, nesting values deeply, chaining
aliases, swapping types; plus raw byte mutations.  Each input goes through ``dractl`` in-process
(validate, lint in every output format, selector check with the mutated expression).  Contract,
per input: exit in {0, 1, 2}; no traceback or internal error; stderr lines start ``dractl:``,
``Warning:`` or ``Note:``; no raw control character on stdout/stderr; JSON/YAML/JUnit/SARIF
output parses; the same input gives the same output.  tests/property/test_fuzz_cli.py runs a
small slice of this in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HOSTILE = [
    "\x1b[31m",
    "\x1b]0;t\x07",
    "\x9b2J",
    "\x85",
    "\n::error file=x::owned\n",
    "\r",
    "\t",
    "\u202e",
    "\u2066",
    "\u2028",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\x00",
    "\x7f",
    "%0A",
    "{{ .x }}",
    "x" * 100_000,
    "é中🙂",
    "\\",
    '"',
    "'",
    ": ",
    "- ",
    "#",
]
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
FORMATS = ("table", "wide", "json", "yaml", "junit", "github", "sarif")
STDERR_PREFIXES = ("dractl: ", "Warning: ", "Note: ", "See '", "  ")


def seeds() -> list[Any]:
    docs: list[Any] = []
    for path in sorted((ROOT / "examples" / "demo").glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict))
    return docs


def mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` with a few hostile changes."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if rng.random() < 0.08:
                k = k + rng.choice(HOSTILE)
            out[k] = mutate(rng, v, depth + 1)
        if rng.random() < 0.05:
            out[rng.choice(HOSTILE)] = rng.choice(HOSTILE)
        return out
    if isinstance(value, list):
        return [mutate(rng, v, depth + 1) for v in value]
    if isinstance(value, str):
        r = rng.random()
        if r < 0.15:
            pos = rng.randrange(len(value) + 1)
            return value[:pos] + rng.choice(HOSTILE) + value[pos:]
        if r < 0.18:
            return rng.choice([1, -1, 2**70, 1.5e308, True, None, [], {}])
        return value
    if isinstance(value, bool | int | float) and rng.random() < 0.1:
        return rng.choice(["1", 2**63, -(2**63), 0, "NaN", [value], {"x": value}, 10**400])
    return value


def deep(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = [v]
    return v


def alias_chain(links: int) -> str:
    rows = [f"  x{i}: &a{i} " + "[" * 40 + (f"*a{i - 1}" if i else "1") + "]" * 40 for i in range(links)]
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n" + "\n".join(rows) + "\n"


def dump(docs: list[Any]) -> bytes:
    try:
        return yaml.safe_dump_all(docs, allow_unicode=True, sort_keys=False).encode("utf-8", "surrogatepass")
    except (yaml.YAMLError, ValueError, OverflowError):
        return json.dumps(docs[0] if docs else {}, ensure_ascii=True, default=str).encode()


def make_input(rng: random.Random, pool: list[Any]) -> tuple[bytes, str]:
    """(file content, suffix)."""
    r = rng.random()
    docs = [mutate(rng, d) for d in rng.sample(pool, k=min(len(pool), rng.randint(1, 4)))]
    if r < 0.6:
        return dump(docs), ".yaml"
    if r < 0.75:
        text = json.dumps(docs[0], ensure_ascii=rng.random() < 0.5, default=str)
        if rng.random() < 0.3:
            text = text.replace('"', '"\\ud800', 1)
        return text.encode("utf-8", "surrogatepass"), ".json"
    if r < 0.82:
        n = rng.choice([90, 99, 100, 150, 5000])  # built as text: json.dumps itself recurses
        docs[0].setdefault("spec", {})["deep"] = "@DEEP@"
        text = json.dumps(docs[0], default=str).replace('"@DEEP@"', "[" * n + "1" + "]" * n)
        return text.encode(), rng.choice([".json", ".yaml"])
    if r < 0.88:
        return alias_chain(rng.randint(1, 8)).encode(), ".yaml"
    data = bytearray(dump(docs))
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data), ".yaml"


def run_cli(args: list[str]) -> tuple[int, str, str]:
    from dractl.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def violations(args: list[str], fmt: str) -> list[str]:
    code, out, err = run_cli(args)
    bad: list[str] = []
    if code not in (0, 1, 2):
        bad.append(f"exit {code}")
    if "Traceback" in err or "internal error" in err:
        bad.append("internal error: " + err.strip().splitlines()[-1][:300])
    for line in err.splitlines():
        if line and not line.startswith(STDERR_PREFIXES):
            bad.append(f"stderr line without a prefix: {line[:120]!r}")
            break
    for name, text in (("stdout", out), ("stderr", err)):
        m = RAW.search(text)
        if m:
            bad.append(f"raw {m.group()!r} on {name}")
    if code in (0, 1) and out.strip():
        try:
            if fmt in ("json", "sarif"):
                json.loads(out)
            elif fmt == "yaml":
                yaml.safe_load(out)
            elif fmt == "junit":
                ET.fromstring(out.encode("utf-8"))
            elif fmt == "github" and any(line and not line.startswith("::") for line in out.splitlines()):
                bad.append("github output line that is not a workflow command")
        except (ValueError, yaml.YAMLError, ET.ParseError) as e:
            bad.append(f"{fmt} output does not parse: {str(e)[:200]}")
    if run_cli(args) != (code, out, err):
        bad.append("non-deterministic output")
    return bad


def targets(path: str, expression: str, rng: random.Random) -> list[tuple[list[str], str]]:
    fmt = rng.choice(FORMATS)
    lint_fmt = rng.choice(FORMATS)
    return [
        (["validate", "-o", fmt, path], fmt),
        (["lint", "-o", lint_fmt, path], lint_fmt),
        (["selector", "check", expression], "table"),
    ]


def expressions(rng: random.Random) -> str:
    base = rng.choice(
        [
            "device.driver == 'gpu.example.com'",
            "device.attributes['a'].model == 'x'",
            "'a'.matches('^(a+)+$')",
            "device.capacity['x'].memory.compareTo(quantity('1Gi')) >= 0",
        ]
    )
    pos = rng.randrange(len(base) + 1)
    return base[:pos] + rng.choice(HOSTILE[:20]) + base[pos:] if rng.random() < 0.7 else base


def fuzz(
    seconds: float | None = 180.0,
    examples: int | None = None,
    seed: int = 0,
    report: Callable[[str], None] = print,
) -> tuple[int, list[str]]:
    """Run until ``seconds`` pass or ``examples`` inputs were tried; (inputs tried, violations)."""
    rng = random.Random(seed)
    pool = seeds()
    found: list[str] = []
    tried = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        while (examples is None or tried < examples) and (
            seconds is None or time.monotonic() - start < seconds
        ):
            data, suffix = make_input(rng, pool)
            path = Path(tmp) / f"in{tried % 5}{rng.choice(['', chr(0x1B), chr(0x202E), chr(10)])}x{suffix}"
            path.write_bytes(data)
            for args, fmt in targets(str(path), expressions(rng), rng):
                t0 = time.monotonic()
                for problem in violations(args, fmt):
                    found.append(f"{' '.join(map(repr, args))}: {problem}")
                    report(found[-1])
                if time.monotonic() - t0 > 20:
                    found.append(f"{args!r}: slower than 10 s per run")
            path.unlink()
            tried += 1
    return tried, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--examples", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    ns = parser.parse_args()
    t0 = time.monotonic()
    tried, found = fuzz(ns.seconds, ns.examples, ns.seed)
    print(f"{tried} inputs x 3 commands in {time.monotonic() - t0:.0f} s: {len(found)} violations")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
