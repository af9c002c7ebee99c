"""Shell completion: ``dractl completion bash|zsh|fish`` prints a script (as ``kubectl completion``
does); the script asks ``dractl __complete -- WORDS…`` (a hidden command) for candidates.

``__complete`` resolves the words with Click's own parser (the same tree as ``--help``), so
subcommands, options and choices (``-o``) always match the CLI.  Values of ``--claim``,
``--class``, ``--node``, ``--pool``, ``--device``, ``--pod`` … are names read from the
``-f``/``--snapshot`` inputs already on the command line, else from the cluster (``--context``,
``--kubeconfig``), within a short timeout (``DRACTL_COMPLETION_TIMEOUT``, default 2 s) and
through a cache (``$XDG_CACHE_HOME/dractl/completion``: files keyed by path, size and mtime;
a cluster's answer kept 60 s), so a slow cluster never blocks the shell.

Protocol (one line each): a directive (``files``: let the shell complete file names when no
candidate fits; ``none``), then the candidates as ``VALUE<TAB>HELP``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from enum import Enum
from typing import Any

import typer

from dractl.cli.env import CliEnv

TIMEOUT_ENV = "DRACTL_COMPLETION_TIMEOUT"
CLUSTER_TTL = 60.0
# option → kind of names it takes (dractl.generate.catalog.NAME_KINDS)
NAME_OPTIONS = {
    "--claim": "claims",
    "--pod": "pods",
    "--class": "classes",
    "--node": "nodes",
    "--without-node": "nodes",
    "--nodes": "nodes",
    "--pool": "pools",
    "--device": "devices",
    "--template": "templates",
}
_NAMESPACED = ("claims", "pods", "templates")


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


EXAMPLES = """\b
Examples:
  # Load completion into the current bash shell
  source <(dractl completion bash)

\b
  # Install it for zsh (a directory on $fpath) or fish
  dractl completion zsh > "${fpath[1]}/_dractl"
  dractl completion fish > ~/.config/fish/completions/dractl.fish
"""


def completion(
    ctx: typer.Context, shell: Shell = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish.")
) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Names after --claim, --class, --node, --pool and --device are completed from the -f or
    --snapshot inputs on the command line, else from the cluster (2 s at most, cached).
    """
    CliEnv.of(ctx).write(script(shell.value))


def script(shell: str, prog: str = "dractl") -> str:
    """The completion script of ``shell`` for the command ``prog``."""
    from importlib import resources

    text = resources.files("dractl.cli").joinpath(f"completion_scripts/{shell}.sh").read_text()
    return text.replace("@PROG@", prog).replace("@FUNC@", prog.replace("-", "_"))


def complete_command(ctx: typer.Context) -> None:
    """``dractl __complete -- WORDS…``: the directive, then one candidate per line."""
    root = ctx.find_root().command
    words = list(ctx.args)
    directive, items = complete(root, words)
    lines = [directive, *(f"{v}\t{h}" if h else v for v, h in items)]
    CliEnv.of(ctx).write("\n".join(lines) + "\n")


def complete(root: Any, words: list[str]) -> tuple[str, list[tuple[str, str]]]:
    """Candidates for the last word of ``words`` (the words after ``dractl``)."""
    from typer._click.core import Parameter
    from typer._click.shell_completion import _resolve_context, _resolve_incomplete

    args, incomplete = (words[:-1], words[-1]) if words else ([], "")
    try:
        ctx = _resolve_context(root, {}, "dractl", args)
        obj, incomplete = _resolve_incomplete(ctx, args, incomplete)
    except Exception:  # a half-typed command line must never break the shell
        return "files", []
    if (
        isinstance(obj, Parameter)
        and obj.param_type_name == "option"
        and any(o in NAME_OPTIONS for o in obj.opts)
    ):
        kind = next(NAME_OPTIONS[o] for o in obj.opts if o in NAME_OPTIONS)
        return "none", [(n, "") for n in dynamic_names(ctx, kind, incomplete)]
    try:
        items = obj.shell_complete(ctx, incomplete)
    except Exception:
        items = []
    out = [(i.value, _one_line(i.help or "")) for i in items if i.type == "plain"]
    return ("files" if _takes_files(obj) or any(i.type in ("file", "dir") for i in items) else "none"), out


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 80 else line[:77] + "..."


def _takes_files(obj: Any) -> bool:
    """A parameter whose metavar names a file, path or directory (dractl's convention)."""
    from typer._click.core import Parameter

    if not isinstance(obj, Parameter):
        return False
    metavar = (obj.metavar or "").upper()
    return any(w in metavar for w in ("FILE", "PATH", "DIR"))


# -- dynamic names ---------------------------------------------------------------------------------


def dynamic_names(ctx: Any, kind: str, incomplete: str) -> list[str]:
    """Names of ``kind`` that start with ``incomplete``; claims of the command's namespace
    (``-n``, default ``default``) also without their namespace."""
    inputs = _inputs(ctx)
    found = _cached_names(inputs)
    names = found.get(kind, [])
    if kind in _NAMESPACED:
        namespace = _param(ctx, "-n", "--namespace") or "default"
        short = [n.split("/", 1)[1] for n in names if n.startswith(f"{namespace}/")]
        names = sorted(set(short)) + names
    return [n for n in names if n.startswith(incomplete)]


def _param(ctx: Any, *opts: str) -> Any:
    for p in ctx.command.params:
        if any(o in opts for o in p.opts):
            return ctx.params.get(p.name)
    return None


def _inputs(ctx: Any) -> dict[str, Any]:
    files = _param(ctx, "-f", "--filename") or []
    files = [files] if isinstance(files, str) else list(files)
    snapshot = _param(ctx, "--snapshot")
    paths = [*files, *([snapshot] if snapshot else [])]
    if paths:
        return {"paths": paths}
    return {"cluster": {"kubeconfig": _param(ctx, "--kubeconfig"), "context": _param(ctx, "--context")}}


def _cache_file(inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Where the names of ``inputs`` are cached, and the stamp that must match to reuse them."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if "paths" in inputs:
        stamp: dict[str, Any] = {"paths": [_stat(p) for p in inputs["paths"]]}
    else:
        stamp = {"cluster": inputs["cluster"], "kubeconfig": os.environ.get("KUBECONFIG", "")}
    key = hashlib.sha256(json.dumps(stamp, sort_keys=True).encode()).hexdigest()[:32]
    return os.path.join(base, "dractl", "completion", f"{key}.json"), stamp


def _stat(path: str) -> list[Any]:
    """Path, size and mtime of a file, or of every YAML/JSON file below a directory."""
    real = os.path.realpath(path)
    if os.path.isdir(real):
        out: list[Any] = [real]
        for root, dirs, files in os.walk(real):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                if f.endswith((".yaml", ".yml", ".json")):
                    st = os.stat(os.path.join(root, f))
                    out.append([os.path.join(root, f), st.st_size, st.st_mtime_ns])
        return out
    try:
        st = os.stat(real)
        return [real, st.st_size, st.st_mtime_ns]
    except OSError:
        return [real, None, None]


def _cached_names(inputs: dict[str, Any]) -> dict[str, list[str]]:
    path, stamp = _cache_file(inputs)
    cached = _read_cache(path)
    fresh = (
        cached is not None
        and cached.get("stamp") == stamp
        and ("paths" in inputs or time.time() - float(cached.get("time", 0)) < CLUSTER_TTL)
    )
    if fresh and cached is not None:
        return dict(cached["names"])
    result: dict[str, dict[str, list[str]]] = {}
    worker = threading.Thread(target=lambda: result.update(names=_load_names(inputs)), daemon=True)
    worker.start()
    worker.join(_timeout())
    if "names" not in result:  # too slow: whatever we knew before (stale) or nothing
        return dict(cached["names"]) if cached else {}
    _write_cache(path, {"stamp": stamp, "time": time.time(), "names": result["names"]})
    return result["names"]


def _timeout() -> float:
    try:
        return max(0.05, float(os.environ.get(TIMEOUT_ENV, "2")))
    except ValueError:
        return 2.0


def _load_names(inputs: dict[str, Any]) -> dict[str, list[str]]:
    from dractl.generate.catalog import names

    try:
        if "paths" in inputs:
            from dractl.io.loader import load_paths

            return names(d.raw for d in load_paths(inputs["paths"]).docs)
        from dractl.cluster.options import ClusterOptions
        from dractl.cluster.source import ClusterSource

        opts = ClusterOptions(
            kubeconfig=inputs["cluster"]["kubeconfig"],
            context=inputs["cluster"]["context"],
            all_namespaces=True,
            request_timeout=_timeout(),
        )
        kinds = ("DeviceClass", "ResourceSlice", "Node", "ResourceClaim", "ResourceClaimTemplate")
        raw = ClusterSource(opts, kinds=kinds).load_raw()
        return names(obj for objs in raw.objects.values() for obj in objs)
    except Exception:  # no cluster, no kubeconfig, unreadable file: nothing to offer
        return {}


def _read_cache(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) and isinstance(data.get("names"), dict) else None
    except (OSError, ValueError):
        return None


def _write_cache(path: str, data: dict[str, Any]) -> None:
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: complete without a cache


def register(app: typer.Typer) -> None:
    app.command("completion", epilog=EXAMPLES)(completion)
    app.command(
        "__complete",
        hidden=True,
        add_help_option=False,
        context_settings={
            "ignore_unknown_options": True,
            "allow_extra_args": True,
            "allow_interspersed_args": False,
        },
    )(complete_command)
