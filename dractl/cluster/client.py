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

Those four modules import, at their top, libraries they use only on paths dractl never takes:
``requests_oauthlib`` and ``oauthlib`` (with ``requests``: an OIDC token refresh),
``pydantic`` (an ``isinstance`` check for its ``SecretStr``, and the typed ``ApiResponse`` that
only the generated APIs build) and ``dateutil`` (parsing dates into the models): about 230
modules, a tenth of a second of every live command.  While they import, each such library
that is not imported yet is a stand-in (:class:`_StandIn`) that imports the real library the
first time the client uses it (an OIDC refresh makes a real ``OAuth2Session``); the stand-ins
leave ``sys.modules`` once the client's modules are imported, so any later ``import`` gets the
real library.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

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
    stand_ins: list[_StandIn] = []
    if "kubernetes" not in sys.modules:
        _defer_packages()
        stand_ins = _stand_in()
    _importing = True
    try:
        return _import_modules()
    finally:
        _importing = False
        for module in stand_ins:
            module.withdraw()


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


class _StandIn(types.ModuleType):
    """A module, in ``sys.modules`` while the client's modules import, in place of one they
    import but rarely use.  Its own attributes are stand-ins too (made by :func:`_stand_in`:
    they behave as the real object does); any other attribute is the real module's (imported
    then; a submodule's name imports the submodule), so a client version that imports more of
    the library than expected still gets the real objects."""

    def withdraw(self) -> None:
        """Out of ``sys.modules`` (where a later import then finds the real module)."""
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # probes (__wrapped__, __file__ ...): a plain module's answer
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
        self.withdraw()
        real = importlib.import_module(self.__name__)
        try:
            return getattr(real, attr)
        except AttributeError:
            return importlib.import_module(f"{self.__name__}.{attr}")


def _real(module: str, name: str) -> Any:
    """``module.name`` of the real module (a stand-in, if still in ``sys.modules``, leaves first)."""
    current = sys.modules.get(module)
    if isinstance(current, _StandIn):
        current.withdraw()
    return getattr(importlib.import_module(module), name)


def _deferred_call(module: str, name: str) -> Callable[..., Any]:
    """A function that calls the real ``module.name`` with its arguments (a class: makes one)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return _real(module, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


class _RealSecretStrCheck(type):
    """``isinstance(x, SecretStr)`` of the stand-in: true only of the real pydantic's
    ``SecretStr`` (and nothing can be one while pydantic is not imported)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        real = sys.modules.get("pydantic")
        return real is not None and not isinstance(real, _StandIn) and isinstance(obj, real.SecretStr)

    def __subclasscheck__(cls, sub: Any) -> bool:
        real = sys.modules.get("pydantic")
        return real is not None and not isinstance(real, _StandIn) and issubclass(sub, real.SecretStr)


class _SecretStr(metaclass=_RealSecretStrCheck):
    """Stands in for ``pydantic.SecretStr`` in ``isinstance`` checks; calling it makes the real
    one (should another thread import pydantic while the client's modules import)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _real("pydantic", "SecretStr")(*args, **kwargs)


class _ApiResponse:
    """Stands in for ``kubernetes.client.api_response.ApiResponse``: ``ApiResponse[T]`` (in the
    client's annotations) is itself; calling it makes the real one."""

    def __class_getitem__(cls, _item: Any) -> type[_ApiResponse]:
        return cls

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _real("kubernetes.client.api_response", "ApiResponse")(*args, **kwargs)


# Each group: stood in only when none of its modules is imported yet (a package with a
# submodule the client imports is stood in with it); name -> the attributes the client's
# modules take from it.
_STAND_INS: tuple[dict[str, Callable[[], dict[str, Any]]], ...] = (
    {"requests_oauthlib": lambda: {"OAuth2Session": _deferred_call("requests_oauthlib", "OAuth2Session")}},
    {"oauthlib": dict, "oauthlib.oauth2": dict},
    {"pydantic": lambda: {"SecretStr": _SecretStr}},
    {
        "kubernetes.client.api_response": lambda: {
            "ApiResponse": _ApiResponse,
            "T": TypeVar("T"),
        }
    },
    {"dateutil": dict, "dateutil.parser": lambda: {"parse": _deferred_call("dateutil.parser", "parse")}},
)


def _stand_in() -> list[_StandIn]:
    """Put the stand-ins in ``sys.modules`` (see the module docstring); the ones put there."""
    out = []
    for group in _STAND_INS:
        if any(name in sys.modules for name in group):
            continue
        paths: dict[str, list[str] | None] = {}
        for name, attrs in group.items():
            module = _StandIn(name)
            module.__dict__.update(attrs())
            # a package's stand-in has the package's __path__ (found, not imported): a submodule
            # that is not stood in still imports, from the real package
            parent, _, _ = name.rpartition(".")
            spec = None
            if not parent or paths.get(parent) is not None:  # a top-level name, or a package's child
                spec = importlib.machinery.PathFinder.find_spec(name, paths.get(parent))
            path = None if spec is None else spec.submodule_search_locations
            paths[name] = None if path is None else list(path)
            if path is not None:
                module.__path__ = list(path)
            sys.modules[name] = module
            out.append(module)
    return out
