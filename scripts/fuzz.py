#!/usr/bin/env python3
"""Fuzz every command that reads input against the hostile-input contract (issue 11).

    python scripts/fuzz.py                  # 3-minute run, prints counts and any violation
    python scripts/fuzz.py --seconds 30     # a bounded slice
    python scripts/fuzz.py --examples 200   # a fixed number of inputs per target
    python scripts/fuzz.py --only api       # one family: manifests, worlds or api
    python scripts/fuzz.py --atheris -- -atheris_runs=100000   # coverage-guided (pip install atheris)

Structure-aware: real manifests (examples/demo and the shared strategies) are mutated by
inserting hostile strings (C0/C1 controls, bidi overrides, lone surrogates, newlines that look
like workflow commands, huge values) into keys and values, nesting values deeply, chaining
aliases, swapping types; plus raw byte mutations.  Three families of targets, each in-process:

* manifests: validate and lint in a random output format, selector check with a mutated
  expression;
* worlds: a directory of mutated demo objects and a mutated snapshot (header + objects) through
  explain-allocation, capacity (with mutated claims and targets), availability, claims, health
  and taints (``-f`` and ``--snapshot``);
* api: the loopback API server (tests/cluster/loopback_api.py) serves the mutated objects, or a
  hostile response body in place of a list (wrong types, a list that is not one, huge strings,
  control characters, lone surrogates, truncated or non-JSON bodies, hostile Status messages),
  to the live views.

Contract, per input: exit in {0, 1, 2} (3 for the API family); no traceback or internal error;
stderr lines start ``dractl:``, ``Warning:`` or ``Note:``; at most one ``dractl: error:`` line
for a live view that fails; no raw control character on stdout/stderr; JSON/YAML/JUnit/SARIF
output parses; the same input gives the same output (the live views' too: the loopback
server's faults are put back before the second run).  Each run is a forked child: under 10 s of
CPU, no hang, and a peak RSS above the child's start of at most 5x the input's size plus a 64 MB
floor (MEMORY_FLOOR: what any run needs whatever its input; every command's modules are
imported by a warm-up before the children fork).
tests/property/test_fuzz_cli.py runs a small slice of each family in CI.  ``--atheris`` runs
libFuzzer's coverage-guided mutation (atheris) over the loader and validate/lint in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import pickle
import random
import re
import resource
import select
import signal
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

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


# Per run, in a forked child: memory above what the child started with (the harness's own
# interpreter, dractl and the modules a warm-up imported) at most MEMORY_RATIO x the input's
# size, with MEMORY_FLOOR for what any run needs whatever its input (caches, rendering);
# CPU time under CPU_LIMIT; a child that is not done after HANG_LIMIT seconds is a hang.
MEMORY_RATIO = 5
MEMORY_FLOOR = 64 * 2**20
CPU_LIMIT = 10.0
HANG_LIMIT = 120.0


class Run(NamedTuple):
    """One command's outcome, run in a child process: exit code, stdout, stderr, the child's peak
    RSS above its RSS at the start (bytes), its CPU seconds; ``hung``: killed at HANG_LIMIT."""

    code: int
    out: str
    err: str
    memory: int = 0
    cpu: float = 0.0
    hung: bool = False


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_child(args: list[str], hang_limit: float | None = None) -> Run:
    """``run_cli(args)`` in a forked child (Linux): the child's own peak RSS (``wait4``) and CPU
    time, and a crash of the interpreter itself, are then the run's alone."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the outcome, leave without cleanup handlers
        status = 0
        try:
            os.close(read_end)
            start = _rss()
            code, out, err = run_cli(args)
            payload = pickle.dumps((code, out, err, start))
        except BaseException as e:  # the parent reports it as a violation
            payload = pickle.dumps((70, "", f"Traceback (fuzz child): {type(e).__name__}: {e}"[:2000], 0))
            status = 1
        with os.fdopen(write_end, "wb") as f:
            f.write(payload)
        os._exit(status)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + (HANG_LIMIT if hang_limit is None else hang_limit)
    hung = False
    with os.fdopen(read_end, "rb", buffering=0) as f:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([f], [], [], left)[0]:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = f.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if hung or not chunks:
        why = "hung" if hung else f"the child died (wait status {status})"
        return Run(70, "", f"Traceback (fuzz child): {why}", cpu=cpu, hung=hung)
    code, out, err, start = pickle.loads(b"".join(chunks))
    return Run(code, out, err, max(0, usage.ru_maxrss * 1024 - start), cpu)


def violations(
    args: list[str],
    fmt: str,
    codes: tuple[int, ...] = (0, 1, 2),
    live: bool = False,
    repeat: bool = True,
    size: int = 0,
    fork: bool = True,
    before: Callable[[], None] | None = None,
) -> list[str]:
    """Every way one command broke the contract.  ``size``: the bytes of input it reads (its
    memory limit is MEMORY_FLOOR + MEMORY_RATIO x size).  ``fork``: run it in a child process
    (memory, CPU and hangs are measured; else in this process: CPU only, for atheris, whose
    coverage a child would not report back).  ``repeat``: run it twice, the same output both
    times (a live view's too: ``before`` puts the loopback server back as it was, its faults
    unspent, before each run)."""
    if before is not None:
        before()
    if fork:
        run = run_child(args)
    else:
        t0 = time.process_time()
        run = Run(*run_cli(args))
        run = Run(run.code, run.out, run.err, cpu=time.process_time() - t0)
    code, out, err = run.code, run.out, run.err
    bad: list[str] = []
    if run.hung:
        bad.append(f"hung: no answer after {HANG_LIMIT:.0f} s")
    if run.cpu > CPU_LIMIT:
        bad.append(f"slow: {run.cpu:.1f} s of CPU (limit {CPU_LIMIT:.0f} s)")
    limit = MEMORY_FLOOR + MEMORY_RATIO * size
    if run.memory > limit:
        bad.append(
            f"memory: {run.memory / 2**20:.0f} MB above start-up for {size:,} bytes of input "
            f"(limit {limit / 2**20:.0f} MB: {MEMORY_RATIO}x input + {MEMORY_FLOOR // 2**20} MB)"
        )
    if code not in codes:
        bad.append(f"exit {code}")
    if live and code in (2, 3) and sum(line.startswith("dractl: error:") for line in err.splitlines()) != 1:
        bad.append(f"not one error line: {err[-300:]!r}")
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
    if repeat and not run.hung:
        if before is not None:
            before()
        again = run_child(args) if fork else Run(*run_cli(args))
        if (again.code, again.out, again.err) != (code, out, err):
            bad.append(f"non-deterministic output: {_first_difference((code, out, err), again)}")
    return bad


def _first_difference(first: tuple[int, str, str], again: Run) -> str:
    if first[0] != again.code:
        return f"exit {first[0]}, then {again.code}"
    for name, a, b in (("stdout", first[1], again.out), ("stderr", first[2], again.err)):
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            return (
                f"{name} differs at {at}: {a[max(0, at - 60) : at + 60]!r} / {b[max(0, at - 60) : at + 60]!r}"
            )
    return "?"


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


FAMILIES = ("manifests", "worlds", "api")


def fuzz(
    seconds: float | None = 180.0,
    examples: int | None = None,
    seed: int = 0,
    report: Callable[[str], None] = print,
    families: tuple[str, ...] = FAMILIES,
) -> tuple[int, list[str]]:
    """Run until ``seconds`` pass or ``examples`` inputs were tried (each family in turn);
    (inputs tried, violations)."""
    rng = random.Random(seed)
    pool = seeds()
    found: list[str] = []
    tried = 0
    start = time.monotonic()

    def check(
        args: list[str],
        fmt: str,
        size: int,
        codes: tuple[int, ...] = (0, 1, 2),
        live: bool = False,
        before: Callable[[], None] | None = None,
    ) -> None:
        for problem in violations(args, fmt, codes, live, size=size, before=before):
            found.append(f"{' '.join(map(repr, args))}: {problem}")
            report(found[-1])

    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        server = stack.enter_context(_loopback(tmp)) if "api" in families else None
        warm_up(tmp, server, families)
        while (examples is None or tried < examples) and (
            seconds is None or time.monotonic() - start < seconds
        ):
            family = families[tried % len(families)]
            if family == "manifests":
                data, suffix = make_input(rng, pool)
                path = tmp / f"in{tried % 5}{rng.choice(['', chr(0x1B), chr(0x202E), chr(10)])}x{suffix}"
                path.write_bytes(data)
                for args, fmt in targets(str(path), expressions(rng), rng):
                    check(args, fmt, len(data))
                path.unlink()
            elif family == "worlds":
                where = tmp / f"w{tried}"
                for args, fmt in world_targets(rng, pool, where):
                    check(args, fmt, max(f.stat().st_size for f in where.iterdir()))
            else:
                assert server is not None
                for args, fmt in api_targets(rng, pool, server, tmp):
                    check(args, fmt, served_size(server), (0, 1, 2, 3), True, _restorer(server))
            tried += 1
    return tried, found


def warm_up(tmp: Path, server: Any, families: tuple[str, ...] = FAMILIES) -> None:
    """Run each kind of target once in this process, so that the modules and caches every run
    needs are in the parent before the children fork (their memory is then what the input costs)."""
    demo = str(ROOT / "examples" / "demo")
    claim = tmp / "warm.yaml"
    claim.write_text((ROOT / "examples" / "demo" / "claims-pending.yaml").read_text())
    runs: list[list[str]] = []
    if "manifests" in families:
        runs += [[cmd, "-o", fmt, str(claim)] for cmd in ("validate", "lint") for fmt in FORMATS]
        runs.append(["selector", "check", "device.driver == 'x'"])
    if "worlds" in families:
        runs += [["explain-allocation", "--claim", "two-h100", "-f", demo, "-o", f] for f in VIEW_FORMATS]
        runs += [["capacity", "--claim", "single-gpu", "-f", demo, "-o", f] for f in ("table", "json")]
        views = ("availability", "claims", "health", "taints")
        runs += [[view, "-f", demo, "-o", f] for view in views for f in VIEW_FORMATS]
    if server is not None:
        runs += [[view, "--request-timeout", "5s"] for view in ("availability", "claims", "health", "taints")]
    for args in runs:
        run_cli(args)


def _restorer(server: Any) -> Callable[[], None]:
    """What puts the server's faults back as they are now (a run spends them) and forgets its
    cached pages, so that a second run gets the same answers."""
    faults = [dataclasses.replace(f) for f in server.faults]

    def restore() -> None:
        server.faults[:] = [dataclasses.replace(f) for f in faults]
        server.page_cache.clear()

    return restore


def served_size(server: Any) -> int:
    """Bytes the loopback server holds for the live views: its objects as JSON and any hostile
    body (pages that never end: as many as are read)."""
    objects = sum(
        len(json.dumps(o, default=str)) for kind in server.state.objects.values() for o in kind.values()
    )
    hostile = 0
    for f in server.faults:
        if callable(f.body):  # fresh pages: dractl reads at most 64 of them (a run serves fewer)
            hostile += len(f.body(0)) * min(f.times, 64)
        else:
            hostile += len(f.body or b"")
    return objects + hostile


# -- worlds and snapshots -------------------------------------------------------------------

VIEW_FORMATS = ("table", "wide", "json", "yaml")


def _names(pool: list[Any], kind: str) -> list[str]:
    return [str(d.get("metadata", {}).get("name")) for d in pool if d.get("kind") == kind] or ["x"]


def world_targets(rng: random.Random, pool: list[Any], where: Path) -> list[tuple[list[str], str]]:
    """A directory of mutated objects and a snapshot of them; the commands that read worlds."""
    where.mkdir()
    docs = [mutate(rng, d) if rng.random() < 0.5 else d for d in pool]
    if rng.random() < 0.3:
        docs = rng.sample(docs, k=rng.randint(1, len(docs)))
    (where / "world.yaml").write_bytes(dump(docs) if rng.random() < 0.8 else make_input(rng, pool)[0])
    header: dict[str, Any] = {"apiVersion": "dractl/v1alpha1", "kind": "Snapshot", "serverVersion": "v1.37.1"}
    if rng.random() < 0.3:
        header = mutate(rng, header)
    snap = where / "snap.yaml"
    snap.write_bytes(dump([header, *docs]))
    claim = rng.choice(_names(pool, "ResourceClaim"))
    if rng.random() < 0.2:
        claim = claim + rng.choice(HOSTILE[:20])
    node = rng.choice(_names(pool, "Node"))
    fmt = rng.choice(VIEW_FORMATS)
    source = ["-f", str(where)] if rng.random() < 0.5 else ["--snapshot", str(snap)]
    return [
        (["explain-allocation", "--claim", claim, *source, "-o", rng.choice(("table", "json", "yaml"))], "x"),
        (["capacity", "--claim", claim, *source, "-o", rng.choice(("table", "json"))], "x"),
        (["availability", *source, "-o", fmt, *(["--node", node] if rng.random() < 0.3 else [])], fmt),
        (
            [
                rng.choice(["claims", "health", "taints"]),
                *source,
                "-o",
                fmt,
                *(["-A"] if rng.random() < 0.5 else []),
            ],
            fmt,
        ),
    ]


# -- API responses from the loopback server -------------------------------------------------

LIST_PATHS = (
    r"/resourceslices$",
    r"/deviceclasses$",
    r"/resourceclaims$",
    r"/nodes$",
    r"/pods$",
    r"/devicetaintrules$",
    r"/version$",
    r"/apis/resource\.k8s\.io/v1$",
)


def hostile_body(rng: random.Random, pool: list[Any]) -> bytes:
    """A response body no well-behaved API server sends."""
    item = mutate(rng, rng.choice(pool))
    choices: list[Any] = [
        {"kind": "List", "apiVersion": "v1", "items": rng.choice([None, {}, "x", 1, [1, "a", None], [[]]])},
        {
            "kind": "List",
            "apiVersion": "v1",
            "metadata": rng.choice([[], "x", {"continue": 5}]),
            "items": [item],
        },
        {
            "kind": "List",
            "apiVersion": "v1",
            "metadata": {"resourceVersion": "1"},
            "items": [item] * rng.randint(1, 3),
        },
        {"items": [{"metadata": {"name": rng.choice(HOSTILE)}, "kind": rng.choice(HOSTILE)}]},
        {"kind": "Status", "status": "Failure", "code": 500, "message": rng.choice(HOSTILE)},
        {"major": "1", "minor": rng.choice(HOSTILE), "gitVersion": rng.choice(HOSTILE)},
        rng.choice([[], "x", 1, None, True]),
    ]
    body = json.dumps(rng.choice(choices), default=str)
    r = rng.random()
    if r < 0.15:
        body = body.replace('"', '"\\ud800', 1)
    elif r < 0.25:
        body = body[: rng.randrange(len(body) + 1)]
    elif r < 0.3:
        body = "[" * 5000 + "]" * 5000
    elif r < 0.35:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    return body.encode("utf-8", "surrogatepass")


def hostile_pages(rng: random.Random, pool: list[Any]) -> Any:
    """A body for every page of a list that never ends: a fresh continue token each time, with
    items or none, with or without a remainingItemCount that the pages then exceed."""
    items = [mutate(rng, rng.choice(pool)) for _ in range(rng.choice([0, 0, 1, 3]))]
    remaining = rng.choice([None, 0, 1, 5])
    resource_version = rng.choice(["7", ""])

    def body(n: int) -> bytes:
        meta: dict[str, Any] = {"continue": f"fresh-{n + 1}", "resourceVersion": resource_version}
        if remaining is not None:
            meta["remainingItemCount"] = remaining
        doc = {"kind": "List", "apiVersion": "v1", "metadata": meta, "items": items}
        return json.dumps(doc, default=str).encode("utf-8", "surrogatepass")

    return body


@contextlib.contextmanager
def _loopback(tmp: Path) -> Any:
    """The loopback API server with a kubeconfig for it in $KUBECONFIG (restored after)."""
    import os

    sys.path.insert(0, str(ROOT / "tests" / "cluster"))
    from loopback_api import LoopbackApiServer, Policy
    from loopback_tls import make_certs

    from dractl.cluster import transport

    certs_dir = tmp / "ca"
    certs_dir.mkdir()
    server = LoopbackApiServer(make_certs(certs_dir))
    server.add_token("fuzz-token-never-printed", Policy.admin())
    server.start()
    old_env, old_backoff = os.environ.get("KUBECONFIG"), transport.BACKOFF_BASE
    os.environ["KUBECONFIG"] = str(server.kubeconfig(tmp / "kubeconfig", "fuzz-token-never-printed"))
    transport.BACKOFF_BASE = 0.001
    try:
        yield server
    finally:
        transport.BACKOFF_BASE = old_backoff
        if old_env is None:
            os.environ.pop("KUBECONFIG", None)
        else:
            os.environ["KUBECONFIG"] = old_env
        server.stop()


def api_targets(rng: random.Random, pool: list[Any], server: Any, tmp: Path) -> list[tuple[list[str], str]]:
    """Load mutated objects into the server (or put a hostile body in place of one list), and the
    live views to run against it."""
    from loopback_api import Fault, State

    server.state = State()
    server.page_cache.clear()
    server.faults.clear()
    for doc in pool:
        obj = mutate(rng, doc) if rng.random() < 0.4 else doc
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        if not isinstance(meta, dict) or not all(
            isinstance(meta.get(k, ""), str) for k in ("name", "namespace")
        ):
            continue  # the server keys objects by namespace and name; it would fail, not dractl
        try:
            server.state.add(json.loads(json.dumps(obj, default=str)))
        except Exception:  # an object the server itself cannot key (no kind/name): not served
            continue
    if rng.random() < 0.15:
        pages = hostile_pages(rng, pool)
        # pages with items and no remainingItemCount are refused only at MAX_LIST_BYTES (2 GiB):
        # the harness serves 50 of them (then the server's own answer to an unknown token)
        endless = b'"remainingItemCount"' in pages(0) or b'"items": []' in pages(0)
        server.faults.append(Fault(rng.choice(LIST_PATHS[:6]), times=100_000 if endless else 50, body=pages))
    elif rng.random() < 0.6:
        server.faults.append(Fault(rng.choice(LIST_PATHS), times=1000, body=hostile_body(rng, pool)))
    elif rng.random() < 0.3:
        server.fail(
            rng.choice(LIST_PATHS),
            rng.choice([403, 404, 410, 500, 503]),
            times=1000,
            message=rng.choice(HOSTILE),
        )
    fmt = rng.choice(VIEW_FORMATS)
    claim = rng.choice(_names(pool, "ResourceClaim"))
    view = rng.choice(
        [
            ["availability", "-o", fmt],
            ["claims", "-A", "-o", fmt],
            ["health", "-o", fmt],
            ["taints", "-o", fmt],
            ["explain-allocation", "--claim", claim, "-o", rng.choice(("table", "json"))],
            ["capacity", "--claim", claim, "-o", rng.choice(("table", "json"))],
            ["snapshot", "-A", "--file", str(tmp / "live-snap.yaml")],
        ]
    )
    if view[0] == "snapshot":
        fmt = "x"
    elif "-o" in view:
        fmt = view[view.index("-o") + 1]
    return [([*view, "--request-timeout", "5s"], fmt)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--examples", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=FAMILIES, action="append", help="a family of targets (repeatable)")
    parser.add_argument(
        "--atheris", action="store_true", help="coverage-guided (atheris); libFuzzer flags after --"
    )
    ns, rest = parser.parse_known_args()
    if ns.atheris:
        return atheris_main(rest)
    t0 = time.monotonic()
    families = tuple(ns.only) if ns.only else FAMILIES
    tried, found = fuzz(ns.seconds, ns.examples, ns.seed, families=families)
    print(f"{tried} inputs ({', '.join(families)}) in {time.monotonic() - t0:.0f} s: {len(found)} violations")
    return 1 if found else 0


def atheris_main(argv: list[str]) -> int:
    """libFuzzer-driven mutation of raw input bytes (seeded with the demo manifests) through the
    loader, validate and lint, in-process (a forked child's coverage would not reach libFuzzer),
    with the same contract but for memory, checked as the growth of the process's peak RSS (a
    lower bound of what the input cost), and determinism; a violation raises, which atheris
    reports with the reproducer it saves."""
    try:
        import atheris
    except ImportError:
        print("atheris is not installed: pip install atheris (or use the structure-aware modes)")
        return 2
    with atheris.instrument_imports():
        import dractl.cli.checks
        import dractl.io.loader
        import dractl.validate.engine  # noqa: F401
    import atexit
    import shutil

    tmp = Path(tempfile.mkdtemp(prefix="dractl-atheris-"))
    atexit.register(shutil.rmtree, tmp, True)
    target = tmp / "input.yaml"

    def one_input(data: bytes) -> None:  # one command per input, once: speed is coverage here
        target.write_bytes(data)
        fmt = ("table", "json", "junit", "github", "sarif")[len(data) % 5]
        args = [("validate", "lint")[len(data) // 5 % 2], "-o", fmt, str(target)]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        problems = violations(args, fmt, repeat=False, fork=False, size=len(data))
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak  # in-process: the
        if grew > MEMORY_FLOOR + MEMORY_RATIO * len(data):  # peak only grows, so this is a bound
            problems.append(f"memory: the process's peak grew {grew / 2**20:.0f} MB on this input")
        if problems:
            raise AssertionError(f"{args}: {problems}")

    corpus = tmp / "corpus"
    corpus.mkdir()
    for i, path in enumerate(sorted((ROOT / "examples" / "demo").glob("*.yaml"))):
        (corpus / f"seed{i}").write_bytes(path.read_bytes())
    atheris.Setup([sys.argv[0], *argv, str(corpus)], one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
