"""``dra.net`` devices as DRANET publishes them: one per network PCI function, one
per RDMA-only PCI function, one per non-PCI interface (loopback excluded).

Device names: ``pci-DDDD-BB-DD-F`` for PCI functions; the interface name for
other links (``net-<base32>`` when it is not a DNS label).  IP addresses and
tc/eBPF programs are not in sysfs and are left out.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from dractl.discover.attrs import b, fit_string, i, s
from dractl.discover.report import Inventory, NetInterface, PciDevice

# Drivers that bind a NIC without giving it a netdev; DRANET skips such functions.
NON_NETDEV_DRIVERS = frozenset({"vfio-pci", "uio_pci_generic", "igb_uio", "pci-stub"})
IGNORED_INTERFACES = frozenset({"cilium_net", "cilium_host", "docker0"})
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def pci_device_name(address: str) -> str:
    return "pci-" + address.replace(":", "-").replace(".", "-")


def interface_device_name(name: str) -> str:
    if _DNS_LABEL.match(name):
        return name
    return "net-" + base64.b32encode(name.encode()).decode().rstrip("=").lower()


def _link_attributes(nic: NetInterface) -> dict[str, Any]:
    attrs: dict[str, Any] = {"dra.net/ifName": s(nic.name), "dra.net/virtual": b(nic.virtual)}
    if nic.mac is not None:
        attrs["dra.net/mac"] = s(nic.mac)
    if nic.mtu is not None:
        attrs["dra.net/mtu"] = i(nic.mtu)
    if nic.encapsulation:
        attrs["dra.net/encapsulation"] = s(nic.encapsulation)
    attrs["dra.net/alias"] = s(nic.alias or "")
    if nic.operstate:
        attrs["dra.net/state"] = s(nic.operstate)
    if nic.kind:
        attrs["dra.net/type"] = s(nic.kind)
    sriov = bool(nic.sriov_total_vfs)
    attrs["dra.net/sriov"] = b(sriov)
    if sriov:
        attrs["dra.net/sriovVfs"] = i(nic.sriov_num_vfs or 0)
    if nic.is_sriov_vf:
        attrs["dra.net/isSriovVf"] = b(True)
    return attrs


def _pci_attributes(dev: PciDevice, warn: Callable[[str], None]) -> dict[str, Any]:
    attrs: dict[str, Any] = {"dra.net/pciAddress": s(dev.address)}
    if dev.numa_node is not None:
        attrs["dra.net/numaNode"] = i(dev.numa_node)
        attrs["resource.kubernetes.io/numaNode"] = i(dev.numa_node)
    for key, value in (
        ("dra.net/pciVendor", dev.vendor_name),
        ("dra.net/pciDevice", dev.device_name),
        ("dra.net/pciSubsystem", dev.subsystem_device_id),
    ):
        if value:
            text, cut = fit_string(value)
            if cut:
                warn(f"{dev.address}: {key} {value!r} is longer than 64 bytes; cut to {text!r}")
            attrs[key] = s(text)
    if dev.pcie_root:
        attrs["resource.kubernetes.io/pcieRoot"] = s(dev.pcie_root)
    return attrs


def _is_network_function(dev: PciDevice) -> bool:
    return (dev.class_id or "").startswith("02") and dev.driver not in NON_NETDEV_DRIVERS


def nic_devices(inv: Inventory, warn: Callable[[str], None]) -> list[dict[str, Any]]:
    """The dra.net devices of the node, sorted by name (as DRANET sorts them)."""
    by_pci: dict[str, NetInterface] = {}
    for nic in inv.nics:
        if nic.pci_address and nic.pci_address not in by_pci:
            by_pci[nic.pci_address] = nic
    rdma_by_pci: dict[str, str] = {}
    for r in inv.rdma:
        if r.pci_address:
            rdma_by_pci.setdefault(r.pci_address, r.name)
    devices = []
    for dev in inv.pci:
        if not (_is_network_function(dev) or dev.address in rdma_by_pci):
            continue
        attrs = _pci_attributes(dev, warn)
        link = by_pci.get(dev.address)
        if link is not None:
            attrs.update(_link_attributes(link))
        attrs["dra.net/rdma"] = b(dev.address in rdma_by_pci)
        if dev.address in rdma_by_pci:
            attrs["dra.net/rdmaDevice"] = s(rdma_by_pci[dev.address])
        devices.append({"name": pci_device_name(dev.address), "attributes": attrs})
    known = {dev.address for dev in inv.pci}
    for nic in inv.nics:
        if (nic.pci_address and nic.pci_address in known) or nic.name in IGNORED_INTERFACES:
            continue
        attrs = _link_attributes(nic)
        attrs["dra.net/rdma"] = b(False)
        devices.append({"name": interface_device_name(nic.name), "attributes": attrs})
    return sorted(devices, key=lambda d: d["name"])
