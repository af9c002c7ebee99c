"""``dra.cpu`` devices as dra-driver-cpu publishes them.

Grouped mode (the driver's default): one device per NUMA node
(``cpudevnuma000``…) that many claims may share, with consumable capacity
``dra.cpu/cpu``.  Individual mode: one device per CPU (``cpudev000``…).  Both
carry the deprecated ``dra.cpu/numaNodeID`` and ``dra.net/numaNode`` too.
"""

from __future__ import annotations

from typing import Any

from dractl.discover.attrs import b, decimal, i, s
from dractl.discover.report import Cpu, CpuTopology


def _numa_attrs(node: int | None) -> dict[str, Any]:
    if node is None:
        return {}
    return {
        "resource.kubernetes.io/numaNode": i(node),
        "dra.cpu/numaNodeID": i(node),
        "dra.net/numaNode": i(node),
    }


def _grouped(topo: CpuTopology) -> list[dict[str, Any]]:
    groups: list[tuple[str, int | None, list[Cpu]]] = []
    if topo.numa_nodes:
        for node in topo.numa_nodes:
            members = [c for c in topo.cpus if c.numa_node == node.id]
            if members:
                groups.append((f"cpudevnuma{node.id:03d}", node.id, members))
    else:
        for socket in topo.sockets or (0,):
            members = [c for c in topo.cpus if (c.socket or 0) == socket]
            groups.append((f"cpudevsocket{socket:03d}", None, members))
    out = []
    for name, node_id, members in groups:
        attrs: dict[str, Any] = {
            **_numa_attrs(node_id),
            "dra.cpu/numCPUs": i(len(members)),
            "dra.cpu/smtEnabled": b(topo.smt_enabled),
        }
        sockets = sorted({c.socket for c in members if c.socket is not None})
        if sockets:
            attrs["dra.cpu/socketID"] = i(sockets[0])
        out.append(
            {
                "name": name,
                "allowMultipleAllocations": True,
                "attributes": attrs,
                "capacity": {"dra.cpu/cpu": decimal(len(members))},
            }
        )
    return out


def _individual(topo: CpuTopology) -> list[dict[str, Any]]:
    ordered = sorted(
        topo.cpus,
        key=lambda c: (c.numa_node if c.numa_node is not None else -1, c.socket or 0, c.core or 0, c.id),
    )
    out = []
    for k, cpu in enumerate(ordered):
        attrs: dict[str, Any] = {
            "dra.cpu/cpuID": i(cpu.id),
            "dra.cpu/coreType": s(cpu.core_type),
            "dra.cpu/smtEnabled": b(topo.smt_enabled),
            **_numa_attrs(cpu.numa_node),
        }
        for key, value in (
            ("dra.cpu/coreID", cpu.core),
            ("dra.cpu/socketID", cpu.socket),
            ("dra.cpu/cacheL3ID", cpu.l3_cache_id),
        ):
            if value is not None:
                attrs[key] = i(value)
        out.append({"name": f"cpudev{k:03d}", "attributes": attrs})
    return out


def cpu_devices(topo: CpuTopology, mode: str) -> list[dict[str, Any]]:
    """Devices for ``mode`` ``grouped`` or ``individual``."""
    return _individual(topo) if mode == "individual" else _grouped(topo)
