"""CPU and NUMA topology from sysfs (``devices/system/cpu``, ``devices/system/node``)."""

from __future__ import annotations

import re

from dractl.discover.report import Cpu, CpuTopology, NumaNode
from dractl.discover.sysfs import SysFS

CPU_DIR = "devices/system/cpu"
NODE_DIR = "devices/system/node"
# What a Linux kernel can report: CONFIG_NR_CPUS is at most 8192 (x86-64, arm64 and ppc64 cap it
# there) and MAX_NUMNODES at most 1024 (NODES_SHIFT <= 10).  Ids at or above these are not real
# (a corrupt or hostile capture): they are ignored, so "0-99999999" costs 8,192 ids, not 10^8.
MAX_CPUS = 8192
MAX_NODES = 1024
_CPU_DIR_NAME = re.compile(r"cpu(\d{1,5})")
_NODE_DIR_NAME = re.compile(r"node(\d{1,5})")


def parse_cpulist(text: str | None, limit: int = MAX_CPUS) -> tuple[int, ...]:
    """``"0-3,8,10-11"`` → (0, 1, 2, 3, 8, 10, 11); empty or malformed parts are skipped, and ids
    of ``limit`` or more (more than the kernel can have) are dropped."""
    out: set[int] = set()
    for part in (text or "").strip().split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d{1,19})(?:-(\d{1,19}))?", part)
        if not m:
            continue
        lo = int(m.group(1))
        hi = min(int(m.group(2)) if m.group(2) else lo, limit - 1)
        out.update(range(lo, hi + 1))
    return tuple(sorted(out))


def _l3_id(sys: SysFS, cpu: int) -> int | None:
    base = f"{CPU_DIR}/cpu{cpu}/cache"
    for index in sys.listdir(base):
        if index.startswith("index") and sys.read_int(f"{base}/{index}/level") == 3:
            return sys.read_int(f"{base}/{index}/id")
    return None


def _core_types(sys: SysFS) -> dict[int, str]:
    """Hybrid CPUs list their P- and E-cores under ``devices/cpu_core`` / ``devices/cpu_atom``."""
    kinds: dict[int, str] = {}
    for pmu, kind in (("devices/cpu_core/cpus", "p-core"), ("devices/cpu_atom/cpus", "e-core")):
        for cpu in parse_cpulist(sys.read(pmu)):
            kinds[cpu] = kind
    return kinds


def _numa_nodes(sys: SysFS) -> tuple[NumaNode, ...]:
    nodes = []
    for node in parse_cpulist(sys.read(f"{NODE_DIR}/online"), MAX_NODES) or _listed_nodes(sys):
        base = f"{NODE_DIR}/node{node}"
        memory = None
        for line in (sys.read(f"{base}/meminfo") or "").splitlines():
            m = re.search(r"MemTotal:\s+(\d+)\s*kB", line)
            if m:
                memory = int(m.group(1)) * 1024
        distances = tuple(int(x) for x in (sys.read(f"{base}/distance") or "").split() if x.isdigit())
        nodes.append(
            NumaNode(
                id=node,
                cpus=parse_cpulist(sys.read(f"{base}/cpulist")),
                memory_bytes=memory,
                distances=distances,
            )
        )
    return tuple(nodes)


def _listed_nodes(sys: SysFS) -> tuple[int, ...]:
    return tuple(
        sorted(
            i
            for n in sys.listdir(NODE_DIR)
            if (m := _NODE_DIR_NAME.fullmatch(n)) and (i := int(m.group(1))) < MAX_NODES
        )
    )


def probe_cpu(sys: SysFS) -> CpuTopology | None:
    """The online CPUs and NUMA nodes; None when sysfs has no CPU topology."""
    online = parse_cpulist(sys.read(f"{CPU_DIR}/online"))
    if not online:
        online = tuple(
            sorted(
                i
                for n in sys.listdir(CPU_DIR)
                if (m := _CPU_DIR_NAME.fullmatch(n)) and (i := int(m.group(1))) < MAX_CPUS
            )
        )
    if not online:
        return None
    nodes = _numa_nodes(sys)
    node_of = {cpu: n.id for n in nodes for cpu in n.cpus}
    kinds = _core_types(sys)
    cpus = []
    for cpu in online:
        topo = f"{CPU_DIR}/cpu{cpu}/topology"
        socket = sys.read_int(f"{topo}/physical_package_id")
        cpus.append(
            Cpu(
                id=cpu,
                socket=socket if socket is not None and socket >= 0 else None,
                core=sys.read_int(f"{topo}/core_id"),
                numa_node=node_of.get(cpu),
                l3_cache_id=_l3_id(sys, cpu),
                core_type=kinds.get(cpu, "standard"),
                siblings=parse_cpulist(sys.read(f"{topo}/thread_siblings_list")),
            )
        )
    smt_active = sys.read_int(f"{CPU_DIR}/smt/active")
    smt = bool(smt_active) if smt_active is not None else any(len(c.siblings) > 1 for c in cpus)
    return CpuTopology(cpus=tuple(cpus), numa_nodes=nodes, smt_enabled=smt)
