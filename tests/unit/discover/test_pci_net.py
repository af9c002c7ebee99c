"""PCI and network probes on the ConnectX SR-IOV fixture and on hand-built trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dractl.discover.net import probe_net
from dractl.discover.pci import PciIds, normalize_bus_id, pcie_root, probe_pci
from dractl.discover.report import Inventory
from dractl.discover.sysfs import SysFS


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("00000000:18:00.0", "0000:18:00.0"),
        ("0000:DB:00.0", "0000:db:00.0"),
        ("0001:0a:1f.7", "0001:0a:1f.7"),
        ("18:00.0", None),
        ("0000:18:00.8", None),
        ("100000000:18:00.0", None),
    ],
)
def test_normalize_bus_id(raw: str, expected: str | None) -> None:
    assert normalize_bus_id(raw) == expected


def test_pci_functions_of_the_connectx_box(connectx: Inventory) -> None:
    by = connectx.pci_by_address()
    assert len(connectx.pci) == 11
    pf = by["0000:17:00.0"]
    assert (pf.vendor_id, pf.device_id, pf.class_id) == ("15b3", "1021", "020000")
    assert pf.vendor_name == "Mellanox Technologies" and pf.device_name == "MT2910 Family [ConnectX-7]"
    assert (pf.driver, pf.numa_node, pf.iommu_group, pf.pcie_root) == ("mlx5_core", 0, 40, "pci0000:15")
    assert (pf.sriov_total_vfs, pf.sriov_num_vfs) == (16, 4)
    assert pf.virtfns == ("0000:17:00.2", "0000:17:00.3", "0000:17:00.4", "0000:17:00.5")
    vf = by["0000:17:00.5"]
    assert (vf.physfn, vf.driver, vf.device_name) == (
        "0000:17:00.0",
        "vfio-pci",
        "ConnectX Family mlx5Gen Virtual Function",
    )
    assert by["0000:4b:00.0"].numa_node == 1 and by["0000:4b:00.0"].pcie_root == "pci0000:4a"


def test_interfaces_and_rdma(connectx: Inventory) -> None:
    nics = {n.name: n for n in connectx.nics}
    assert "lo" not in nics
    assert set(nics) == {
        "ens1f0np0",
        "ens1f1np1",
        "eno1",
        "cni0",
        "docker0",
        *(f"ens1f{p}v{k}" for p in (0, 1) for k in range(4) if (p, k) != (0, 3)),
    }
    pf = nics["ens1f0np0"]
    assert (pf.pci_address, pf.mtu, pf.speed_mbps, pf.operstate, pf.encapsulation, pf.kind) == (
        "0000:17:00.0",
        9000,
        400000,
        "up",
        "ether",
        "device",
    )
    assert pf.rdma_devices == ("mlx5_0",) and not pf.is_sriov_vf and pf.sriov_total_vfs == 16
    vf = nics["ens1f1v2"]
    assert vf.is_sriov_vf and vf.pci_address == "0000:17:01.0" and vf.speed_mbps is None
    bridge = nics["cni0"]
    assert bridge.virtual and bridge.pci_address is None and bridge.kind == "bridge"
    rdma = {r.name: r.pci_address for r in connectx.rdma}
    assert rdma["mlx5_0"] == "0000:17:00.0" and rdma["mlx5_1"] == "0000:17:00.1" and len(rdma) == 9


def test_interface_behind_a_virtio_parent(tmp_path: Path) -> None:
    """Cloud VMs: class/net/eth0/device points at virtio0, whose parent is the PCI function."""
    dev = tmp_path / "devices/pci0000:00/0000:00:03.0"
    (dev / "virtio0/net/eth0").mkdir(parents=True)
    (dev / "class").write_text("0x020000\n")
    (dev / "virtio0/net/eth0/mtu").write_text("1460\n")
    os.symlink("../../../0000:00:03.0/virtio0", dev / "virtio0/net/eth0/device")
    (tmp_path / "class/net").mkdir(parents=True)
    os.symlink("../../devices/pci0000:00/0000:00:03.0/virtio0/net/eth0", tmp_path / "class/net/eth0")
    (tmp_path / "bus/pci/devices").mkdir(parents=True)
    os.symlink("../../../devices/pci0000:00/0000:00:03.0", tmp_path / "bus/pci/devices/0000:00:03.0")
    sys = SysFS(tmp_path)
    nics, _ = probe_net(sys)
    assert [(n.name, n.pci_address, n.mtu, n.virtual) for n in nics] == [
        ("eth0", "0000:00:03.0", 1460, False)
    ]
    assert pcie_root(sys, "0000:00:03.0") == "pci0000:00"
    assert probe_pci(sys)[0].pcie_root == "pci0000:00"


def test_missing_sysfs_gives_empty_results(tmp_path: Path) -> None:
    sys = SysFS(tmp_path)
    assert probe_pci(sys) == [] and probe_net(sys) == ([], [])
    assert pcie_root(sys, "0000:00:00.0") is None


def test_pci_ids_parser_and_subset() -> None:
    ids = PciIds.parse(
        [
            "# comment",
            "15b3  Mellanox Technologies",
            "\t1021  MT2910 Family [ConnectX-7]",
            "\t\t15b3 0041  subsystem line",
            "10de  NVIDIA Corporation",
            "C 02  Network controller",
            "\t00  Ethernet controller",
        ]
    )
    assert ids.vendor("15b3") == "Mellanox Technologies"
    assert ids.device("15b3", "1021") == "MT2910 Family [ConnectX-7]"
    assert ids.device("15b3", "ffff") is None and "02" not in ids.vendors
    assert PciIds.parse(ids.subset_text().splitlines()).devices == {
        ("15b3", "1021"): "MT2910 Family [ConnectX-7]"
    }
