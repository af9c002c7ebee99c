"""The inventory as plain tables (title, columns, rows) for the CLI's table renderer."""

from __future__ import annotations

from dataclasses import dataclass

from dractl.discover.builder import BuildResult
from dractl.discover.report import Inventory, MigProfile


@dataclass(frozen=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _t(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _gib(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**30:.1f} GiB"


def gpu_tables(inv: Inventory) -> list[Table]:
    if not inv.gpus:
        return []
    gpus = tuple(
        (
            _t(g.index),
            _t(g.minor),
            _t(g.name),
            _t(g.uuid),
            _gib(g.memory_bytes),
            _t(g.architecture),
            _t(g.cuda_compute_capability),
            _t(g.pci_bus_id),
            _t(g.numa_node),
            "on" if g.mig_enabled else ("off" if g.mig_capable else "-"),
            _t(None if g.nvlinks_total is None else f"{g.nvlinks_active}/{g.nvlinks_total}"),
            g.health.summary,
            ",".join(t.key for t in g.taints) or "-",
        )
        for g in inv.gpus
    )
    system = inv.nvml
    title = "GPUs"
    if system:
        title += f" (driver {system.driver_version}, CUDA {system.cuda_driver_version})"
    out = [
        Table(
            title,
            (
                "IDX",
                "MINOR",
                "NAME",
                "UUID",
                "MEMORY",
                "ARCH",
                "CC",
                "PCI",
                "NUMA",
                "MIG",
                "NVLINK",
                "HEALTH",
                "TAINTS",
            ),
            gpus,
        )
    ]
    profiles: dict[tuple[str, int], tuple[MigProfile, list[str]]] = {}
    for g in inv.gpus:
        for p in g.mig_profiles:
            profiles.setdefault((p.name, p.id), (p, []))[1].append(str(g.index))
    if profiles:
        out.append(
            Table(
                "MIG profiles (from NVML)",
                (
                    "PROFILE",
                    "ID",
                    "SLICES",
                    "MEMORY",
                    "SM",
                    "CE",
                    "DEC",
                    "ENC",
                    "JPEG",
                    "OFA",
                    "PLACEMENTS",
                    "GPUS",
                ),
                tuple(
                    (
                        p.name,
                        str(p.id),
                        str(p.slice_count),
                        f"{p.memory_mib} MiB",
                        str(p.multiprocessors),
                        str(p.copy_engines),
                        str(p.decoders),
                        str(p.encoders),
                        str(p.jpeg_engines),
                        str(p.ofa_engines),
                        ",".join(f"{pl.start}:{pl.size}" for pl in p.placements),
                        ",".join(gs),
                    )
                    for p, gs in profiles.values()
                ),
            )
        )
    migs = tuple(
        (
            str(g.index),
            m.uuid,
            m.profile.name if m.profile else "-",
            f"{m.placement.start}:{m.placement.size}" if m.placement else "-",
            str(m.gpu_instance_id),
            str(m.compute_instance_id),
            _gib(m.memory_bytes),
        )
        for g in inv.gpus
        for m in g.mig_devices
    )
    if migs:
        out.append(Table("MIG devices", ("GPU", "UUID", "PROFILE", "PLACEMENT", "GI", "CI", "MEMORY"), migs))
    return out


def nic_table(inv: Inventory) -> list[Table]:
    if not inv.nics and not inv.rdma:
        return []
    pci = inv.pci_by_address()
    rows = []
    for n in inv.nics:
        dev = pci.get(n.pci_address or "")
        sriov = (
            "VF"
            if n.is_sriov_vf
            else (f"{n.sriov_num_vfs}/{n.sriov_total_vfs} VFs" if n.sriov_total_vfs else "-")
        )
        rows.append(
            (
                n.name,
                _t(n.pci_address),
                _t(dev.device_name if dev else None),
                _t(n.mac),
                _t(n.mtu),
                _t(n.speed_mbps),
                _t(n.operstate),
                _t(dev.numa_node if dev else None),
                sriov,
                ",".join(n.rdma_devices) or "-",
                "yes" if n.virtual else "no",
            )
        )
    linked = {r for n in inv.nics for r in n.rdma_devices}
    for r in inv.rdma:
        if r.name not in linked:
            rows.append(("-", _t(r.pci_address), "(RDMA only)", "-", "-", "-", "-", "-", "-", r.name, "no"))
    return [
        Table(
            "Network interfaces",
            ("IFACE", "PCI", "DEVICE", "MAC", "MTU", "SPEED", "STATE", "NUMA", "SR-IOV", "RDMA", "VIRTUAL"),
            tuple(rows),
        )
    ]


def pci_table(inv: Inventory) -> list[Table]:
    if not inv.pci:
        return []
    rows = tuple(
        (
            d.address,
            f"{_t(d.vendor_id)}:{_t(d.device_id)}",
            _t(d.class_id),
            _t(d.vendor_name),
            _t(d.device_name),
            _t(d.driver),
            _t(d.numa_node),
            _t(d.iommu_group),
            _t(d.pcie_root),
            f"VF of {d.physfn}"
            if d.physfn
            else (f"{d.sriov_num_vfs}/{d.sriov_total_vfs}" if d.sriov_total_vfs else "-"),
        )
        for d in inv.pci
    )
    return [
        Table(
            "PCI devices",
            ("ADDRESS", "ID", "CLASS", "VENDOR", "DEVICE", "DRIVER", "NUMA", "IOMMU", "PCIE ROOT", "SR-IOV"),
            rows,
        )
    ]


def cpu_table(inv: Inventory) -> list[Table]:
    if inv.cpu is None:
        return []
    topo = inv.cpu
    rows = []
    for node in topo.numa_nodes:
        sockets = sorted({c.socket for c in topo.cpus if c.numa_node == node.id and c.socket is not None})
        rows.append(
            (
                str(node.id),
                ",".join(map(str, sockets)) or "-",
                str(len(node.cpus)),
                _cpulist(node.cpus),
                _gib(node.memory_bytes),
                " ".join(map(str, node.distances)) or "-",
            )
        )
    title = (
        f"CPU / NUMA ({len(topo.cpus)} CPUs, {len(topo.sockets)} sockets, "
        f"SMT {'on' if topo.smt_enabled else 'off'})"
    )
    return [Table(title, ("NODE", "SOCKETS", "CPUS", "CPULIST", "MEMORY", "DISTANCES"), tuple(rows))]


def _cpulist(cpus: tuple[int, ...]) -> str:
    parts, start, prev = [], None, None
    for c in cpus:
        if start is None:
            start = prev = c
        elif prev is not None and c == prev + 1:
            prev = c
        else:
            parts.append(f"{start}-{prev}" if start != prev else f"{start}")
            start = prev = c
    if start is not None:
        parts.append(f"{start}-{prev}" if start != prev else f"{start}")
    return ",".join(parts) or "-"


def tables(inv: Inventory, build: BuildResult | None, kinds: frozenset[str]) -> list[Table]:
    """The tables for ``kinds`` (gpu, nic, pci, cpu), then probes and the slices summary."""
    out: list[Table] = []
    for kind, make in (("gpu", gpu_tables), ("nic", nic_table), ("pci", pci_table), ("cpu", cpu_table)):
        if kind in kinds:
            out += make(inv)
    out.append(
        Table(
            "Probes",
            ("PROBE", "AVAILABLE", "DETAIL"),
            tuple((p.name, _t(p.available), p.detail) for p in inv.probes),
        )
    )
    if build is not None and build.pools:
        out.append(
            Table(
                "ResourceSlices (dractl discover -o yaml)",
                ("DRIVER", "POOL", "DEVICES", "SLICES", "COUNTER SETS"),
                tuple(
                    (p.driver, p.pool, str(p.devices), str(p.slices), str(p.counter_sets))
                    for p in build.pools
                ),
            )
        )
    return out
