"""dractl imports the four kubernetes client modules it uses, not the package's ~1,500
generated modules; the rest of the client still works in the same process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_load_imports_only_what_dractl_uses() -> None:
    got = _run(
        """
        import json, sys
        from dractl.cluster import client
        c = client.load()
        cfg = c.Configuration()
        api = c.ApiClient(cfg)
        mods = [m for m in sys.modules if m.startswith("kubernetes")]
        print(json.dumps({
            "count": len(mods),
            "models": [m for m in mods if m.startswith("kubernetes.client.models.")],
            "apis": [m for m in mods if m.startswith("kubernetes.client.api.")],
            "watch": "kubernetes.watch" in sys.modules,
            "rest": type(api.rest_client).__module__,
            "loader": c.KubeConfigLoader.__module__,
        }))
        """
    )
    assert got["models"] == [] and got["apis"] == [] and got["watch"] is False
    assert isinstance(got["count"], int) and got["count"] < 40
    assert got["rest"] == "kubernetes.client.rest"
    assert got["loader"] == "kubernetes.config.kube_config"


def test_the_rest_of_the_client_still_works_afterwards() -> None:
    got = _run(
        """
        import json
        from dractl.cluster import client
        c = client.load()
        import kubernetes
        import kubernetes.client as kc
        from kubernetes.utils import create_from_yaml
        from kubernetes.client import CoreV1Api, V1Pod
        print(json.dumps({
            "version": kubernetes.__version__,
            "watch": kubernetes.watch.Watch.__name__,
            "core": CoreV1Api.__name__,
            "pod": kc.models.V1Pod is V1Pod,
            "same": kc.ApiClient is c.ApiClient and kc.Configuration is c.Configuration,
            "create_from_yaml": callable(create_from_yaml) and not hasattr(create_from_yaml, "__path__")
            and type(create_from_yaml).__name__ == "function",
        }))
        """
    )
    assert got == {
        "version": got["version"],
        "watch": "Watch",
        "core": "CoreV1Api",
        "pod": True,
        "same": True,
        "create_from_yaml": True,
    }
    assert isinstance(got["version"], str) and got["version"][0].isdigit()


def test_an_already_imported_client_is_used_as_is() -> None:
    got = _run(
        """
        import json
        import kubernetes.client
        from dractl.cluster import client
        c = client.load()
        print(json.dumps({"same": c.ApiClient is kubernetes.client.ApiClient}))
        """
    )
    assert got == {"same": True}


@pytest.mark.parametrize("name", ["__wrapped__", "__reduce_ex__x"])
def test_probing_dunders_does_not_complete_the_package(name: str) -> None:
    got = _run(
        f"""
        import json, sys
        from dractl.cluster import client
        client.load()
        import kubernetes
        print(json.dumps({{"has": hasattr(kubernetes, {name!r}),
                          "models": "kubernetes.client.models.v1_pod" in sys.modules}}))
        """
    )
    assert got == {"has": False, "models": False}


# What the client's modules import but use only on paths dractl never takes.
_RARELY_USED = (
    "requests_oauthlib",
    "oauthlib",
    "requests",
    "pydantic",
    "dateutil",
    "dateutil.parser",
    "kubernetes.client.api_response",
)


def test_load_leaves_out_the_libraries_only_rare_paths_use() -> None:
    got = _run(
        f"""
        import json, sys
        from dractl.cluster import client
        c = client.load()
        api = c.ApiClient(c.Configuration())
        api.param_serialize("GET", "/api/v1/pods", query_params=[("limit", "1")], header_params={{"Accept": "x"}})
        print(json.dumps({{
            "imported": [m for m in {_RARELY_USED!r} if m in sys.modules],
            "stand_ins": [m for m, v in sys.modules.items() if type(v).__name__ == "_StandIn"],
        }}))
        """
    )
    assert got == {"imported": [], "stand_ins": []}


def test_the_rarely_used_libraries_are_the_real_ones_when_used() -> None:
    """An OIDC refresh gets a real OAuth2Session (and its error class), a real SecretStr is
    unwrapped, dates parse, and the typed response is pydantic's model, as without dractl."""
    got = _run(
        """
        import json, sys
        from dractl.cluster import client
        c = client.load()
        import kubernetes.config.kube_config as kc
        import kubernetes.client.api_client as ac
        session = kc.OAuth2Session(client_id="dractl")
        invalid = kc.oauthlib.oauth2.rfc6749.errors.InvalidClientIdError
        import requests_oauthlib, oauthlib.oauth2, pydantic, dateutil.parser
        from kubernetes.client.api_response import ApiResponse
        api = c.ApiClient(c.Configuration())
        reply = ac.ApiResponse(status_code=200, headers={}, data=1, raw_data=b"x")
        print(json.dumps({
            "session": type(session) is requests_oauthlib.OAuth2Session,
            "error": invalid is oauthlib.oauth2.rfc6749.errors.InvalidClientIdError,
            "secret": api.sanitize_for_serialization({"a": pydantic.SecretStr("s"), "b": "t"}),
            "not_secret": isinstance("s", ac.SecretStr),
            "made": type(ac.SecretStr("s")) is pydantic.SecretStr,
            "date": ac.parse("2024-01-02T03:04:05Z") == dateutil.parser.parse("2024-01-02T03:04:05Z"),
            "response": type(reply) is ApiResponse and reply.status_code == 200,
            "stand_ins": [m for m, v in sys.modules.items() if type(v).__name__ == "_StandIn"],
            "path": list(kc.oauthlib.__path__) == list(oauthlib.__path__),
        }))
        """
    )
    assert got == {
        "path": True,
        "session": True,
        "error": True,
        "secret": {"a": "s", "b": "t"},
        "not_secret": False,
        "made": True,
        "date": True,
        "response": True,
        "stand_ins": [],
    }


def test_libraries_already_imported_are_used_as_they_are() -> None:
    got = _run(
        """
        import json
        import pydantic, requests_oauthlib
        from dractl.cluster import client
        client.load()
        import kubernetes.config.kube_config as kc
        import kubernetes.client.api_client as ac
        print(json.dumps({
            "secret": ac.SecretStr is pydantic.SecretStr,
            "session": kc.OAuth2Session is requests_oauthlib.OAuth2Session,
        }))
        """
    )
    assert got == {"secret": True, "session": True}


def test_a_client_that_imports_more_of_a_stood_in_library_gets_the_real_objects() -> None:
    """A client version that imports other names or submodules of a library stood in while its
    modules import than the ones dractl expects still imports: those are the real ones."""
    got = _run(
        """
        import json, sys
        from dractl.cluster import client
        stand_ins = client._stand_in()
        try:
            import oauthlib.common  # a submodule of a stood-in package that is not stood in
            from oauthlib.oauth2 import WebApplicationClient  # a name the stand-in has not
            from pydantic import BaseModel
            from dateutil.parser import parse, isoparse
            import dateutil.tz
            got = {
                "common": oauthlib.common.Request.__module__,
                "client": WebApplicationClient.__module__,
                "model": BaseModel.__module__,
                "parse": parse("2024-01-02").year,
                "isoparse": isoparse("2024-01-02").year,
                "tz": dateutil.tz.UTC is not None,
            }
        finally:
            for module in stand_ins:
                module.withdraw()
        got["stand_ins"] = [m for m, v in sys.modules.items() if type(v).__name__ == "_StandIn"]
        print(json.dumps(got))
        """
    )
    assert got == {
        "common": "oauthlib.common",
        "client": "oauthlib.oauth2.rfc6749.clients.web_application",
        "model": "pydantic.main",
        "parse": 2024,
        "isoparse": 2024,
        "tz": True,
        "stand_ins": [],
    }
