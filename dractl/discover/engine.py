"""Run the probes: the one entry point that touches the machine (read-only).

``discover(options)`` returns an :class:`Inventory`; each probe is optional and
reports itself in ``inventory.probes`` when it cannot run.  With
``options.record`` the sysfs reads and NVML answers are kept so that
:func:`save_fixture` can write a replayable fixture.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dractl.discover.cpu import probe_cpu
from dractl.discover.net import probe_net
from dractl.discover.nvml import import_pynvml, init_nvml, probe_gpus
from dractl.discover.nvml_fixture import FakeNvml, RecordingNvml
from dractl.discover.pci import PciIds, probe_pci
from dractl.discover.report import Inventory, Message, ProbeStatus
from dractl.discover.sysfs import Recording, SysFS
from dractl.errors import InputError, SourcePos

KINDS = ("gpu", "nic", "pci", "cpu")


@dataclass(frozen=True)
class DiscoverOptions:
    """What to probe and where.  ``nvml_fixture`` replays NVML; ``sysfs_root`` replaces /sys."""

    node: str = ""
    kinds: frozenset[str] = frozenset(KINDS)
    sysfs_root: Path = Path("/sys")
    nvml_fixture: Path | None = None
    record: bool = False


@dataclass
class Session:
    """The inventory plus what a fixture capture needs."""

    inventory: Inventory
    sysfs: SysFS
    pci_ids: PciIds | None = None
    nvml_recording: dict[str, Any] | None = None
    nvml_fixture: dict[str, Any] | None = field(default=None, repr=False)


def default_node_name() -> str:
    """The node name a kubelet would most likely use: ``$NODE_NAME`` or the lower-cased host
    name, with characters a node name cannot hold replaced by ``-``."""
    raw = (os.environ.get("NODE_NAME") or socket.gethostname() or "node").lower()
    return re.sub(r"[^a-z0-9.-]", "-", raw).strip("-.") or "node"


def discover(opts: DiscoverOptions) -> Session:
    """Probe the machine (or the fixtures in ``opts``).  Raises InputError for a bad fixture path."""
    if not opts.sysfs_root.is_dir():
        raise InputError("not a directory", SourcePos(str(opts.sysfs_root)), "--sysfs-root")
    sys = SysFS(opts.sysfs_root, record=opts.record)
    inv = Inventory(node=opts.node or default_node_name())
    session = Session(inventory=inv, sysfs=sys)
    sysfs_ok = sys.exists("bus") or sys.exists("devices") or sys.exists("class")
    if not sysfs_ok:
        inv.probes.append(ProbeStatus("sysfs", False, f"{opts.sysfs_root} has no bus/, class/ or devices/"))
    custom_root = opts.sysfs_root if opts.sysfs_root != Path("/sys") else None
    if {"pci", "nic", "gpu"} & opts.kinds:
        session.pci_ids = PciIds.find(custom_root)
        inv.pci = probe_pci(sys, session.pci_ids)
        inv.probes.append(
            ProbeStatus(
                "pci",
                bool(inv.pci),
                f"{len(inv.pci)} PCI functions" + ("" if session.pci_ids else "; no pci.ids, names unknown"),
            )
        )
    if "nic" in opts.kinds:
        inv.nics, inv.rdma = probe_net(sys)
        inv.probes.append(
            ProbeStatus(
                "net", bool(inv.nics or inv.rdma), f"{len(inv.nics)} interfaces, {len(inv.rdma)} RDMA devices"
            )
        )
    if "cpu" in opts.kinds:
        inv.cpu = probe_cpu(sys)
        detail = (
            f"{len(inv.cpu.cpus)} CPUs, {len(inv.cpu.numa_nodes)} NUMA nodes"
            if inv.cpu
            else "no CPU topology in sysfs"
        )
        inv.probes.append(ProbeStatus("cpu", inv.cpu is not None, detail))
    if "gpu" in opts.kinds:
        _probe_nvml(opts, session)
    return session


def _probe_nvml(opts: DiscoverOptions, session: Session) -> None:
    inv = session.inventory
    nv: Any
    if opts.nvml_fixture is not None:
        nv = FakeNvml.load(opts.nvml_fixture)
        source = f"replaying {opts.nvml_fixture}"
    else:
        nv, why = import_pynvml()
        if nv is None:
            inv.probes.append(ProbeStatus("nvml", False, why))
            return
        source = "NVML"
        if opts.record:
            nv = RecordingNvml(nv)
    try:
        status = init_nvml(nv)
        if not status.available:
            inv.probes.append(status)
            inv.messages.append(Message("info", "nvml", f"GPU discovery skipped: {status.detail}"))
        else:
            try:
                inv.nvml, inv.gpus = probe_gpus(nv, session.sysfs, inv.messages.append)
            finally:
                _shutdown(nv)
            inv.probes.append(ProbeStatus("nvml", True, f"{len(inv.gpus)} GPUs ({source})"))
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, OverflowError) as exc:
        if not isinstance(nv, FakeNvml):
            raise
        raise nv.malformed(exc) from exc  # a hand-edited or corrupt fixture: exit 2, naming the call
    if isinstance(nv, RecordingNvml):
        session.nvml_recording = nv.fixture()
    elif isinstance(nv, FakeNvml) and opts.record:
        session.nvml_recording = nv.data


def _shutdown(nv: Any) -> None:
    with contextlib.suppress(nv.NVMLError):
        nv.nvmlShutdown()


def save_fixture(session: Session, directory: Path) -> list[str]:
    """Write ``sys/`` (every sysfs entry read), ``nvml.json`` and a ``pci.ids`` subset.

    Returns the written top-level names.  Replay with ``--sysfs-root DIR/sys
    --nvml-fixture DIR/nvml.json``.
    """
    rec = session.sysfs.recording
    if rec is None:
        raise ValueError("discovery ran without recording")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise InputError("exists and is not an empty directory", SourcePos(str(directory)), "--save-fixture")
    try:
        return _write_fixture(session, rec, directory)
    except OSError as exc:
        raise InputError(
            f"cannot write the fixture: {exc.strerror or exc}", SourcePos(str(directory)), "--save-fixture"
        ) from exc


def _write_fixture(session: Session, rec: Recording, directory: Path) -> list[str]:
    root = directory / "sys"
    root.mkdir(parents=True, exist_ok=True)
    for rel in sorted(rec.dirs):
        (root / rel).mkdir(parents=True, exist_ok=True)
    for rel, content in sorted(rec.files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    for rel, target in sorted(rec.links.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            continue
        os.symlink(target, path)
    for rel, entries in sorted(rec.listings.items()):
        for name, kind in entries.items():
            path = root / rel / name
            if kind == "dir" and not path.exists():
                path.mkdir(parents=True, exist_ok=True)
            elif kind == "file" and not path.exists() and not path.is_symlink():
                path.write_text("", encoding="utf-8")
    written = ["sys"]
    if session.pci_ids is not None:
        (directory / "pci.ids").write_text(session.pci_ids.subset_text(), encoding="utf-8")
        written.append("pci.ids")
    if session.nvml_recording is not None:
        (directory / "nvml.json").write_text(
            json.dumps(session.nvml_recording, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        written.append("nvml.json")
    return written
