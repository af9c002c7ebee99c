"""The security tests reuse the cluster tests' loopback API server, CA and kubeconfig fixtures."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

CLUSTER = Path(__file__).resolve().parents[1] / "cluster"
if str(CLUSTER) not in sys.path:
    sys.path.insert(0, str(CLUSTER))  # loopback_api, loopback_tls

_spec = importlib.util.spec_from_file_location("_cluster_fixtures", CLUSTER / "conftest.py")
assert _spec is not None and _spec.loader is not None
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

apiserver = _fixtures.apiserver
certs = _fixtures.certs
kubeconfig = _fixtures.kubeconfig
token = _fixtures.token
