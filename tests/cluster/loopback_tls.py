"""A throw-away certificate authority and a server certificate for 127.0.0.1, made with the
``openssl`` command (the ``cryptography`` package is not a dependency of dractl).

kubectl and the Python client send a kubeconfig's bearer token only to a server they trust
over TLS, so the loopback API server needs a real chain: a CA that the generated kubeconfig
names, and a leaf with ``IP:127.0.0.1`` and ``DNS:localhost`` as subject alternative names.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Certs:
    ca_cert: Path
    server_cert: Path
    server_key: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_certs(directory: Path) -> Certs:
    """Create CA and server key pair in ``directory`` (EC P-256: fast to make and to use)."""
    if shutil.which("openssl") is None:  # pragma: no cover - openssl is in every CI image we use
        raise RuntimeError("the loopback API server needs the openssl command to make its CA")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(
        "req",
        "-x509",
        *curve,
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=dractl-test-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
        cwd=d,
    )
    _openssl("req", *curve, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1", cwd=d)
    (d / "ext.cnf").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
        cwd=d,
    )
    return Certs(d / "ca.crt", d / "server.crt", d / "server.key")
