"""CPU/NUMA probe on the DGX-style and EPYC fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.discover.cpu import parse_cpulist, probe_cpu
from dractl.discover.report import Inventory
from dractl.discover.sysfs import SysFS


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0-3,8,10-11", (0, 1, 2, 3, 8, 10, 11)), ("", ()), (None, ()), ("5", (5,)), ("0-1,x,3", (0, 1, 3))],
)
def test_parse_cpulist(text: str | None, expected: tuple[int, ...]) -> None:
    assert parse_cpulist(text) == expected


def test_two_socket_epyc_with_four_numa_nodes(epyc: Inventory) -> None:
    topo = epyc.cpu
    assert topo is not None
    assert len(topo.cpus) == 128 and topo.sockets == (0, 1) and topo.smt_enabled
    assert [n.id for n in topo.numa_nodes] == [0, 1, 2, 3]
    assert all(len(n.cpus) == 32 for n in topo.numa_nodes)
    assert topo.numa_nodes[0].distances == (10, 12, 32, 32)
    assert topo.numa_nodes[3].memory_bytes == 264091648 * 1024
    cpu = {c.id: c for c in topo.cpus}
    assert (cpu[17].socket, cpu[17].core, cpu[17].numa_node, cpu[17].l3_cache_id) == (0, 17, 1, 2)
    assert cpu[17].siblings == (17, 81) and cpu[81].numa_node == 1
    assert len({c.l3_cache_id for c in topo.cpus}) == 8
    assert all(c.core_type == "standard" for c in topo.cpus)


def test_hybrid_core_types(tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"devices/system/cpu/cpu{n}/topology").mkdir(parents=True)
    (tmp_path / "devices/system/cpu/online").write_text("0-3\n")
    (tmp_path / "devices/cpu_core").mkdir(parents=True)
    (tmp_path / "devices/cpu_core/cpus").write_text("0-1\n")
    (tmp_path / "devices/cpu_atom").mkdir(parents=True)
    (tmp_path / "devices/cpu_atom/cpus").write_text("2-3\n")
    topo = probe_cpu(SysFS(tmp_path))
    assert topo is not None
    assert [c.core_type for c in topo.cpus] == ["p-core", "p-core", "e-core", "e-core"]
    assert topo.numa_nodes == () and not topo.smt_enabled


def test_no_cpu_topology(tmp_path: Path) -> None:
    assert probe_cpu(SysFS(tmp_path)) is None
