"""The parts of the ``kubernetes`` client dractl uses, imported without the rest.

``import kubernetes`` (or any ``from kubernetes.x import y``) first runs the package's
``__init__``, which imports every generated API and model module (about 1,500 of them) plus
``dynamic``, ``watch``, ``stream`` and ``leaderelection``: about 1.5 s, half of a live view's
time budget.  dractl needs four modules of it: the client ``Configuration``, ``ApiClient``
(authentication, TLS and the urllib3 pool), and the kubeconfig and in-cluster loaders (exec
and OIDC plugins, token refresh).  None of them needs the generated models: dractl never
deserialises into them.

:func:`load` imports just those modules, through package objects whose real ``__init__`` has
not run yet.  Each such package completes itself on first use of any other name
(``kubernetes.client.CoreV1Api``, ``kubernetes.client.models.V1Pod``): it then runs its real
``__init__``, so other code in the same process sees the whole client as usual.  When
``kubernetes`` is already imported nothing is changed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from dataclasses import dataclass
from typing import Any

_LOCK = threading.RLock()
# The packages whose __init__ is deferred, parent first.  kubernetes.utils is among them: its
# __init__ imports the YAML/create helpers (and through them the generated APIs), while
# kubernetes.client.rest needs only two of its small modules.
_DEFERRED = ("kubernetes", "kubernetes.client", "kubernetes.client.models", "kubernetes.utils")


@dataclass(frozen=True)
class Client:
    """The client classes dractl uses."""

    Configuration: Any
    ApiClient: Any
    KubeConfigLoader: Any
    KubeConfigMerger: Any
    InClusterConfigLoader: Any
    ConfigException: Any


_CLIENT: Client | None = None


def load() -> Client:
    """The client classes, imported once (thread-safe)."""
    global _CLIENT
    if _CLIENT is None:
        with _LOCK:
            if _CLIENT is None:
                _CLIENT = _import()
    return _CLIENT


_importing = False


def _import() -> Client:
    global _importing
    if "kubernetes" not in sys.modules:
        _defer_packages()
    _importing = True
    try:
        return _import_modules()
    finally:
        _importing = False


def _import_modules() -> Client:
    configuration = importlib.import_module("kubernetes.client.configuration")
    client_pkg = sys.modules["kubernetes.client"]
    _provide(client_pkg, "Configuration", configuration.Configuration)
    api_client = importlib.import_module("kubernetes.client.api_client")
    _provide(client_pkg, "ApiClient", api_client.ApiClient)
    exceptions = importlib.import_module("kubernetes.config.config_exception")
    kube_config = importlib.import_module("kubernetes.config.kube_config")
    incluster = importlib.import_module("kubernetes.config.incluster_config")
    return Client(
        Configuration=configuration.Configuration,
        ApiClient=api_client.ApiClient,
        KubeConfigLoader=kube_config.KubeConfigLoader,
        KubeConfigMerger=kube_config.KubeConfigMerger,
        InClusterConfigLoader=incluster.InClusterConfigLoader,
        ConfigException=exceptions.ConfigException,
    )


def _provide(package: types.ModuleType, name: str, value: Any) -> None:
    """Make ``from package import name`` work before the package's __init__ has run (the
    kubeconfig loaders import ``ApiClient`` and ``Configuration`` that way)."""
    if name not in package.__dict__:
        setattr(package, name, value)


def _defer_packages() -> None:
    for name in _DEFERRED:
        spec = importlib.util.find_spec(name)  # a child's parent is the deferred package above
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return  # not a package layout we know: the normal import will do
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _completer(module)  # type: ignore[method-assign]
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


# Names the real __init__ defines that callers may ask for; other dunders (probes by inspect,
# pickle, copy) are answered "no such attribute" without completing the package.
_PACKAGE_DUNDERS = frozenset({"__all__", "__version__", "__project__"})


def _completer(module: types.ModuleType) -> Any:
    """A module ``__getattr__``: a name that is a submodule is imported (``from
    kubernetes.client import rest`` asks for it this way); any other name runs the package's
    real ``__init__`` once, then is answered from it."""

    def complete(attr: str) -> Any:
        if attr.startswith("__") and attr not in _PACKAGE_DUNDERS:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
        with _LOCK:
            # While dractl's own modules import, a submodule is just imported; afterwards any
            # name completes the package (its __init__ may rebind a submodule's name, as
            # kubernetes.utils does with create_from_yaml).
            if _importing and importlib.util.find_spec(f"{module.__name__}.{attr}") is not None:
                return importlib.import_module(f"{module.__name__}.{attr}")
            if module.__dict__.pop("__getattr__", None) is not None:
                assert module.__spec__ is not None and module.__spec__.loader is not None
                module.__spec__.loader.exec_module(module)
        return getattr(module, attr)

    return complete
