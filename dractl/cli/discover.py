"""``dractl discover``: inventory this machine's devices and the ResourceSlices drivers would publish."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli.env import CliEnv
from dractl.cli.options import FeatureGatesOpt, KubeVersionOpt, NoHeadersOpt, output_option
from dractl.errors import UsageError

if TYPE_CHECKING:
    from dractl.discover import BuildResult, Inventory

_, OutputOpt, DEFAULT_OUTPUT = output_option("discover")

EXAMPLES = """\b
Examples:
  # Show the GPUs, MIG profiles, NICs, PCI devices and CPU/NUMA topology of this machine
  dractl discover

\b
  # Emit the ResourceSlices the drivers would publish, ready for kubectl apply -f -
  dractl discover -o yaml --node worker-1

\b
  # Model the GPUs as partitionable (DynamicMIG) for a 1.36 cluster
  dractl discover --only gpu --mig-mode partitionable --kube-version 1.36 -o yaml

\b
  # Capture a fixture for a bug report, then replay it elsewhere
  dractl discover --save-fixture ./node-fixture
  dractl discover --sysfs-root ./node-fixture/sys --nvml-fixture ./node-fixture/nvml.json
"""


class MigMode(StrEnum):
    STATIC = "static"
    PARTITIONABLE = "partitionable"


class CpuMode(StrEnum):
    GROUPED = "grouped"
    INDIVIDUAL = "individual"


OnlyOpt = Annotated[
    str | None,
    typer.Option(
        "--only", metavar="KINDS", help="Probe only these kinds (comma list of gpu, nic, pci, cpu)."
    ),
]
DriverOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--driver",
        metavar="[KIND=]NAME",
        help="Publish under another driver name, e.g. gpu=gpu.example.com "
        "(plain NAME when --only selects one kind).",
    ),
]


def parse_kinds(only: str | None) -> frozenset[str]:
    from dractl.discover import KINDS

    if only is None:
        return frozenset(KINDS)
    kinds = {k.strip().lower() for k in only.split(",") if k.strip()}
    bad = sorted(kinds - set(KINDS))
    if bad or not kinds:
        raise UsageError(
            f"--only: unknown kind {', '.join(bad) or repr(only)}; one or more of: {', '.join(KINDS)}",
            "discover",
        )
    return frozenset(kinds)


def parse_drivers(values: list[str] | None, kinds: frozenset[str]) -> dict[str, str]:
    from dractl.discover.builder import DEFAULT_DRIVERS

    drivers = dict(DEFAULT_DRIVERS)
    for value in values or []:
        kind, sep, name = value.partition("=")
        if not sep:
            publishing = sorted(kinds & set(DEFAULT_DRIVERS))
            if len(publishing) != 1:
                raise UsageError(
                    "--driver NAME needs --only with exactly one of gpu, nic, cpu; otherwise use KIND=NAME",
                    "discover",
                )
            kind, name = publishing[0], value
        if kind not in DEFAULT_DRIVERS or not name:
            raise UsageError(
                f"--driver {value!r}: expected KIND=NAME with KIND one of gpu, nic, cpu", "discover"
            )
        drivers[kind] = name.strip()
    return drivers


_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_names(node: str | None, pool: str | None, drivers: dict[str, str]) -> None:
    """Node, pool and driver names the API server accepts (UsageError otherwise)."""
    if node is not None and not _SUBDOMAIN.match(node):
        raise UsageError(
            f"--node {node!r}: must be a lower-case DNS subdomain (a Kubernetes node name)", "discover"
        )
    if pool is not None and (len(pool) > 253 or not all(_SUBDOMAIN.match(p) for p in pool.split("/"))):
        raise UsageError(f"--pool {pool!r}: must be DNS subdomains joined by '/'", "discover")
    for name in drivers.values():
        if len(name) > 63 or not _SUBDOMAIN.match(name.lower()):
            raise UsageError(
                f"--driver {name!r}: must be a DNS subdomain of at most 63 characters", "discover"
            )


def discover(
    ctx: typer.Context,
    output: OutputOpt = DEFAULT_OUTPUT,  # type: ignore[valid-type]
    inventory: Annotated[
        bool, typer.Option("--inventory", help="With -o yaml/json: emit the raw inventory instead of slices.")
    ] = False,
    only: OnlyOpt = None,
    node: Annotated[
        str | None, typer.Option("--node", metavar="NAME", help="Node name (default: host name).")
    ] = None,
    pool: Annotated[
        str | None, typer.Option("--pool", metavar="NAME", help="Pool name (default: node name).")
    ] = None,
    driver: DriverOpt = None,
    kube_version: KubeVersionOpt = None,
    feature_gates: FeatureGatesOpt = None,
    mig_mode: Annotated[
        MigMode,
        typer.Option(
            "--mig-mode",
            case_sensitive=False,
            help="static: publish existing MIG devices; partitionable: every MIG placement with "
            "shared counters (DynamicMIG).",
        ),
    ] = MigMode.STATIC,
    cpu_mode: Annotated[
        CpuMode,
        typer.Option(
            "--cpu-mode",
            case_sensitive=False,
            help="grouped: one shareable device per NUMA node; individual: one per CPU.",
        ),
    ] = CpuMode.GROUPED,
    legacy_gpu_attributes: Annotated[
        bool,
        typer.Option(
            "--legacy-gpu-attributes", help="Also publish index and minor, as older NVIDIA drivers did."
        ),
    ] = False,
    sysfs_root: Annotated[
        Path,
        typer.Option("--sysfs-root", metavar="DIR", help="Read this captured sysfs tree instead of /sys."),
    ] = Path("/sys"),
    nvml_fixture: Annotated[
        Path | None,
        typer.Option("--nvml-fixture", metavar="FILE", help="Replay recorded NVML answers instead of NVML."),
    ] = None,
    save_fixture: Annotated[
        Path | None,
        typer.Option(
            "--save-fixture",
            metavar="DIR",
            help="Record the sysfs files and NVML answers read into DIR (sys/, nvml.json, pci.ids).",
        ),
    ] = None,
    no_headers: NoHeadersOpt = False,
) -> None:
    """Discover GPUs (NVML), NICs, PCI devices and CPU/NUMA, and the ResourceSlices drivers would publish.

    Read-only: never changes MIG mode, clocks or any device setting.  Probes that cannot
    run (no NVIDIA driver, no sysfs) are reported, not fatal.
    """
    from dractl.discover import BuildOptions, DiscoverOptions, build
    from dractl.discover import discover as run_discovery
    from dractl.discover import save_fixture as write_fixture

    env = CliEnv.of(ctx)
    kinds = parse_kinds(only)
    drivers = parse_drivers(driver, kinds)
    check_names(node, pool, drivers)
    release = env.release(kube_version, feature_gates)
    session = run_discovery(
        DiscoverOptions(
            node=node or "",
            kinds=kinds,
            sysfs_root=sysfs_root,
            nvml_fixture=nvml_fixture,
            record=save_fixture is not None,
        )
    )
    inv = session.inventory
    result = build(
        inv,
        BuildOptions(
            node=inv.node,
            pool=pool,
            kube_version=release.kube_version,
            features=release.features,
            mig_mode=mig_mode.value,
            cpu_mode=cpu_mode.value,
            drivers=drivers,
            kinds=kinds,
            legacy_gpu_attributes=legacy_gpu_attributes,
        ),
    )
    for message in [*inv.messages, *result.messages]:
        if message.level == "warning":
            env.warn(message.text)
        elif output != "table":  # tables show probes; say why slices may be missing
            env.err.print(f"Note: {message.text}", soft_wrap=True)
    if save_fixture is not None:
        written = write_fixture(session, save_fixture)
        env.err.print(f"Saved fixture to {save_fixture}: {', '.join(written)}", soft_wrap=True)
    env.render(_report(inventory, inv, result, kinds), output, no_headers=no_headers)


def _report(inventory: bool, inv: Inventory, result: BuildResult, kinds: frozenset[str]) -> Any:
    """What discover shows, as the render registry's ``discover`` report."""
    from dractl.discover.tables import tables
    from dractl.render.discover import DiscoverReport, DiscoverTable

    shown = [
        DiscoverTable(t.title, tuple(t.columns), tuple(tuple(r) for r in t.rows))
        for t in tables(inv, result, kinds)
    ]
    if inventory:
        raw = inv.to_dict()
        return DiscoverReport(raw, [raw], shown, stream=False)
    return DiscoverReport(result.to_list(), result.slices, shown)


def register(app: typer.Typer) -> None:
    app.command("discover", epilog=EXAMPLES)(discover)
