"""Which cluster, as whom: kubeconfig files (kubectl's precedence and merge) or the pod's
service account.

kubectl's rules, which this follows: ``--kubeconfig FILE`` alone if given; else every file
of ``$KUBECONFIG`` (``:``-separated, missing ones skipped) merged so that the *first* file to
define a cluster, user or context — or ``current-context`` — wins; else ``~/.kube/config``;
with none of them, the in-cluster service account when running in a pod.  The namespace is
``-n``, else the context's, else the pod's own (in-cluster), else ``default``.

Credentials stay inside the client's configuration object: nothing here returns, logs or
words an error with a token, and kubeconfig files are never written back (the client would
otherwise persist refreshed tokens).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dractl.cluster.options import ClusterOptions
from dractl.errors import ClusterError, InputError

SA_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass(frozen=True)
class Connection:
    """A ready client configuration (``kubernetes.client.Configuration``) and what it points at."""

    configuration: Any
    server: str
    context: str | None  # None: in-cluster
    namespace: str  # the default namespace: -n, else the context's, else "default"

    def describe(self) -> str:
        who = f"context {self.context}" if self.context else "in-cluster service account"
        return f"cluster: {who} ({self.server})"


def kubeconfig_paths(opts: ClusterOptions, environ: dict[str, str] | None = None) -> list[str]:
    """The kubeconfig files to merge, in precedence order; [] means none exists."""
    env = os.environ if environ is None else environ
    if opts.kubeconfig:
        path = os.path.expanduser(opts.kubeconfig)
        if not os.path.isfile(path):
            raise InputError(f"--kubeconfig {opts.kubeconfig}: no such file")
        return [path]
    listed = env.get("KUBECONFIG", "")
    if listed:
        candidates = [os.path.expanduser(p) for p in listed.split(os.pathsep) if p]
    else:
        candidates = [os.path.expanduser("~/.kube/config")]
    return [p for p in dict.fromkeys(candidates) if os.path.isfile(p)]


def _is_mapping(path: str) -> bool:
    # A function of its own so that no frame that raises holds the file's contents (tokens):
    # --debug prints tracebacks with their locals.
    doc = _read_yaml(path)
    return doc is None or isinstance(doc, dict)


def first_current_context(paths: list[str]) -> str | None:
    """kubectl takes ``current-context`` from the first file that sets it (the Python client
    takes the last one, so it is passed explicitly)."""
    for path in paths:
        doc = _read_yaml(path)
        current = doc.get("current-context") if isinstance(doc, dict) else None
        if isinstance(current, str) and current:
            return current
    return None


def _read_yaml(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read kubeconfig: {e.strerror or e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{where}: not a valid kubeconfig (YAML error)") from None


def in_cluster(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return bool(env.get("KUBERNETES_SERVICE_HOST") and env.get("KUBERNETES_SERVICE_PORT"))


def connect(opts: ClusterOptions) -> Connection:
    """Resolve kubeconfig or in-cluster credentials into a client configuration.

    Raises InputError for a kubeconfig that can't be read (exit 2) and ClusterError when
    there is nothing to connect with, the context does not exist, or authentication set-up
    (an exec or OIDC plugin) fails (exit 3)."""
    from dractl.cluster.client import load

    configuration = load().Configuration()
    configuration.retries = False  # dractl retries itself, within --request-timeout
    paths = kubeconfig_paths(opts)
    if not paths:
        if in_cluster():
            return _in_cluster(configuration, opts)
        looked = (
            "$KUBECONFIG names no file that exists"
            if os.environ.get("KUBECONFIG")
            else "~/.kube/config does not exist"
        )
        raise ClusterError(
            "find",
            "a cluster",
            f"no kubeconfig ({looked}) and not running in a pod; "
            "give --kubeconfig FILE or set KUBECONFIG (or read a snapshot with --snapshot "
            "FILE, or files with -f, where the command takes them)",
        )
    return _from_files(configuration, paths, opts)


def _from_files(configuration: Any, paths: list[str], opts: ClusterOptions) -> Connection:
    from dractl.cluster.client import load

    client = load()
    ConfigException, KubeConfigLoader, KubeConfigMerger = (
        client.ConfigException,
        client.KubeConfigLoader,
        client.KubeConfigMerger,
    )

    for path in paths:  # clear one-line errors before the client's own parser sees them
        if not _is_mapping(path):
            raise InputError(f"{path}: not a valid kubeconfig (expected a mapping)")
    try:
        merged = KubeConfigMerger(os.pathsep.join(paths))
    except (ConfigException, AttributeError, TypeError, KeyError) as e:
        raise InputError(f"{', '.join(paths)}: not a valid kubeconfig: {_safe(e)}") from None
    if merged.config is None:
        raise InputError(f"{', '.join(paths)}: not a valid kubeconfig (empty)")
    contexts = [getattr(c, "value", c) for c in merged.config.value.get("contexts") or []]
    names = [str(c.get("name")) for c in contexts if isinstance(c, dict)]
    context = opts.context or first_current_context(paths)
    if not context:
        raise ClusterError(
            "choose",
            "context",
            f"the kubeconfig ({', '.join(paths)}) sets no "
            f"current-context; give --context (one of: {', '.join(names) or 'none'})",
        )
    if context not in names:
        raise ClusterError(
            "choose",
            "context",
            f"context {context!r} does not exist in the kubeconfig (contexts: {', '.join(names) or 'none'})",
        )
    try:
        with _captured_logs() as logged:
            loader = KubeConfigLoader(
                config_dict=merged.config,
                active_context=context,
                config_base_path=None,
                config_persister=None,
            )
            loader.load_and_set(configuration)
        ctx = loader.current_context.get("context") or {}
    except (ConfigException, ValueError, KeyError, TypeError, OSError) as e:
        raise ClusterError("authenticate", f"with context {context}", _safe(e)) from None
    if logged:  # the client logs a failed exec/OIDC plugin and carries on without credentials
        raise ClusterError(
            "authenticate",
            f"with context {context}",
            f"the credential plugin failed: {_safe(Exception(logged[0]))}",
        )
    namespace = opts.namespace or (ctx.get("namespace") if isinstance(ctx, dict) else None) or "default"
    return Connection(configuration, str(configuration.host), context, str(namespace))


def _in_cluster(configuration: Any, opts: ClusterOptions) -> Connection:
    from dractl.cluster.client import load

    client = load()
    ConfigException, InClusterConfigLoader = client.ConfigException, client.InClusterConfigLoader

    try:
        InClusterConfigLoader(
            token_filename=str(SA_DIR / "token"), cert_filename=str(SA_DIR / "ca.crt")
        ).load_and_set(configuration)
    except (ConfigException, OSError) as e:
        raise ClusterError("authenticate", "with the pod's service account", _safe(e)) from None
    namespace = opts.namespace
    if not namespace:
        try:
            namespace = (SA_DIR / "namespace").read_text(encoding="utf-8").strip() or "default"
        except OSError:
            namespace = "default"
    return Connection(configuration, str(configuration.host), None, namespace)


@contextlib.contextmanager
def _captured_logs() -> Iterator[list[str]]:
    """Collect what the client logs at ERROR (it reports plugin failures that way) instead
    of letting it reach stderr — or configure the root logger, which ``logging.error`` does
    when no handler is installed."""
    messages: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                messages.append(record.getMessage())

    root = logging.getLogger()
    handler = _Collect()
    root.addHandler(handler)
    try:
        yield messages
    finally:
        root.removeHandler(handler)


def _safe(error: BaseException) -> str:
    """An exception's text on one line, with anything that looks like a credential cut out."""
    text = " ".join(str(error).split())
    for marker in ("Bearer ", "bearer ", "token=", "password="):
        if marker in text:
            text = text.split(marker)[0] + marker + "<redacted>"
    return text[:300]
