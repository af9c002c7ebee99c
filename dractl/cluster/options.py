"""What a command asks of the cluster: kubectl's connection and scope flags as plain data.

No ``kubernetes`` import here (nor anywhere at module level in this package), so commands
can build options without paying for the client.
"""

from __future__ import annotations

from dataclasses import dataclass

from dractl.errors import UsageError

DEFAULT_CHUNK_SIZE = 500  # kubectl's --chunk-size default


@dataclass(frozen=True)
class ClusterOptions:
    """Connection and scope, with kubectl's meaning.

    ``kubeconfig`` is one file (``--kubeconfig``); None means ``$KUBECONFIG`` (a list of files,
    merged as kubectl merges them), else ``~/.kube/config``, else the in-cluster service
    account.  ``context`` None is the kubeconfig's current context.  ``namespace`` None means the
    context's namespace (else ``default``); ``all_namespaces`` reads every namespace.
    ``request_timeout`` (seconds) bounds each request including its retries; None waits as
    long as the server takes.  ``chunk_size`` is the page size of lists (0: no paging).
    ``partial`` turns reads that fail into warnings naming what is missing.  ``node`` limits
    ResourceSlices and Pods to one node (``spec.nodeName`` field selector);
    ``label_selector`` applies to Nodes.
    """

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    request_timeout: float | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    partial: bool = False
    node: str | None = None
    label_selector: str | None = None

    def validated(self, command: str | None = None) -> ClusterOptions:
        """``self``, or UsageError for values kubectl would refuse too."""
        if self.chunk_size < 0:
            raise UsageError(f"--chunk-size must be 0 or greater, not {self.chunk_size}", command)
        if self.request_timeout is not None and self.request_timeout < 0:
            raise UsageError("--request-timeout must be 0 or greater (0: no timeout)", command)
        for flag, value in (
            ("--context", self.context),
            ("--namespace", self.namespace),
            ("--node", self.node),
        ):
            if value is not None and not value.strip():
                raise UsageError(f"{flag} must not be empty", command)
        return self


def parse_timeout(text: str | None, command: str | None = None) -> float | None:
    """kubectl's ``--request-timeout``: ``30``, ``30s``, ``1m``, ``2h``, ``500ms``; ``0`` is no
    timeout (None).  UsageError for anything else."""
    if text is None:
        return None
    value = text.strip()
    units = (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0))
    factor = 1.0
    for suffix, mult in units:
        if value.endswith(suffix) and value[: -len(suffix)].replace(".", "", 1).isdigit():
            value, factor = value[: -len(suffix)], mult
            break
    try:
        seconds = float(value) * factor
    except ValueError:
        seconds = -1.0
    if not value or seconds < 0 or seconds != seconds or seconds == float("inf"):
        raise UsageError(f"--request-timeout: invalid duration {text!r} (e.g. 30s, 1m, 0 for none)", command)
    return seconds or None
