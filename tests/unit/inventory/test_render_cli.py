"""Inventory tables (exact text, --no-headers, escaping) and the command wiring (--watch)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from inventory_builders import claim, dev, device_class, node, slice_, world
from rich.console import Console

from dractl.inventory.claims import ClaimsOptions, claims
from dractl.inventory.taints import TaintsOptions, taints
from dractl.model.features import Features
from dractl.render import render
from dractl.render.inventory import table_options

F37 = Features.for_version("1.37")


def text(report, fmt: str = "table", no_headers: bool = False) -> str:
    buf = io.StringIO()
    with table_options(no_headers=no_headers):
        render(report, fmt, Console(file=buf, width=100, color_system=None))
    return buf.getvalue()


def sample():
    return world(
        node("n1"),
        device_class(),
        slice_("s", "n1", [dev("a")]),
        claim("x", [{"pool": "n1", "device": "a"}]),
        claim("y", ns="team-b"),
    )


def test_claims_table_exact() -> None:
    out = text(claims(sample(), ClaimsOptions(F37)))
    assert out == (
        "NAMESPACE   NAME   STATE                    NODE   DEVICES                RESERVED FOR\n"
        "default     x      allocated (unreserved)   n1     gpu.example.com/n1/a   -\n"
        "team-b      y      pending                  -      -                      -\n"
        "\nWarnings:\n"
        "  claim default/x is allocated but reserved for nobody: its 1 device(s) stay unavailable until it is "
        "deallocated or deleted\n"
        "\n2 claims: 1 pending, 1 allocated, 0 reserved, 0 deleting. 1 allocated but unreserved, holding 1 "
        "device(s).\n"
    )


def test_no_headers_drops_only_the_header_row() -> None:
    report = claims(sample(), ClaimsOptions(F37))
    with_headers, without = text(report).splitlines(), text(report, no_headers=True).splitlines()
    assert with_headers[0].startswith("NAMESPACE") and not without[0].startswith("NAMESPACE")
    assert without[0].split() == with_headers[1].split()


def test_control_characters_from_the_cluster_are_escaped_in_tables_but_exact_in_json() -> None:
    w = world(
        node("n1"),
        slice_("s", "n1", [dev("a", taints=[{"key": "k", "value": "\x1b[2Jx", "effect": "None"}])]),
    )
    report = taints(w, TaintsOptions(F37))
    table = text(report)
    assert "\x1b" not in table and ("\\u001b[2Jx" in table or "\\x1b[2Jx" in table)
    import json

    assert json.loads(text(report, "json"))["items"][0]["value"] == "\x1b[2Jx"


def test_watch_renders_again_only_when_the_inputs_change(tmp_path: Path) -> None:
    from dractl.cli import inventory_inputs as inputs
    from dractl.io.sources import FileSource

    f = tmp_path / "c.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    srcs = [FileSource((str(f),))]
    shown: list[int] = []
    rounds = iter(range(10))

    def sleep(_: float) -> None:
        i = next(rounds)
        if i == 1:  # the file changes between the second and third look
            f.write_text(
                "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
                "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n"
            )
            os.utime(f, ns=(10**18, 10**18))

    def once():
        from dractl.inventory.availability import AvailabilityOptions, availability

        return availability(inputs.load(srcs), AvailabilityOptions(F37))

    inputs.watch(once, lambda r: shown.append(r.nodes), 0.0, srcs, sleep=sleep, rounds=4)
    assert shown == [1, 2]


def test_commands_exit_codes(run_cli, tmp_path: Path) -> None:
    demo = str(Path(__file__).resolve().parents[3] / "examples" / "demo")
    assert run_cli(["taints", "-f", demo]).exit_code == 0
    bad = run_cli(["claims", "-l", "a in (", "-f", demo])
    assert (
        bad.exit_code == 2
        and bad.stderr.startswith("dractl: error: --selector")
        and "Traceback" not in bad.stderr
    )
    missing = run_cli(["health", "-f", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    unknown = run_cli(["availability", "--kube-version", "1.20", "-f", demo])
    assert unknown.exit_code == 2 and 'invalid argument "1.20" for "--kube-version" flag' in unknown.stderr
