"""Network interfaces (``class/net``) and RDMA devices (``class/infiniband``) from sysfs.

Addresses (IPv4/IPv6) and tc/eBPF programs are not in sysfs, so they are not
reported; everything else dranet publishes about a link is.
"""

from __future__ import annotations

import re

from dractl.discover.pci import BDF_RE
from dractl.discover.report import NetInterface, RdmaDevice
from dractl.discover.sysfs import SysFS

# Linux ARPHRD_* link types (include/uapi/linux/if_arp.h) → the names netlink reports.
_ENCAP = {
    1: "ether",
    24: "ieee1394",
    32: "infiniband",
    512: "ppp",
    768: "ipip",
    769: "tunnel6",
    772: "loopback",
    776: "sit",
    778: "gre",
    823: "ip6gre",
    65534: "none",
}


def pci_address_of(sys: SysFS, path: str) -> str | None:
    """The PCI function a class device sits on (walks up through virtio-style parents)."""
    real = sys.realpath(path)
    if not real or not real.startswith("devices/"):
        return None
    for part in reversed(real.split("/")):
        if BDF_RE.match(part):
            return part
    return None


def _devtype(sys: SysFS, base: str) -> str | None:
    for line in (sys.read(f"{base}/uevent") or "").splitlines():
        if line.startswith("DEVTYPE="):
            return line.partition("=")[2] or None
    return None


def probe_interface(sys: SysFS, name: str, rdma_by_pci: dict[str, list[str]]) -> NetInterface:
    base = f"class/net/{name}"
    real = sys.realpath(base) or ""
    virtual = real.startswith("devices/virtual/")
    pci = None if virtual else pci_address_of(sys, f"{base}/device")
    arphrd = sys.read_int(f"{base}/type")
    speed = sys.read_int(f"{base}/speed")
    return NetInterface(
        name=name,
        pci_address=pci,
        mac=sys.read(f"{base}/address") or None,
        mtu=sys.read_int(f"{base}/mtu"),
        speed_mbps=speed if speed is not None and speed > 0 else None,
        operstate=sys.read(f"{base}/operstate"),
        encapsulation=_ENCAP.get(arphrd) if arphrd is not None else None,
        kind="device" if pci else _devtype(sys, base),
        alias=sys.read(f"{base}/ifalias"),
        virtual=virtual,
        is_sriov_vf=pci is not None and sys.exists(f"{base}/device/physfn"),
        sriov_total_vfs=sys.read_int(f"{base}/device/sriov_totalvfs") if pci else None,
        sriov_num_vfs=sys.read_int(f"{base}/device/sriov_numvfs") if pci else None,
        rdma_devices=tuple(rdma_by_pci.get(pci, ())) if pci else (),
    )


def probe_rdma(sys: SysFS) -> list[RdmaDevice]:
    """RDMA devices (``class/infiniband``), each with its PCI function when it has one."""
    out = []
    for name in sys.listdir("class/infiniband"):
        base = f"class/infiniband/{name}"
        node_type = sys.read(f"{base}/node_type")
        out.append(
            RdmaDevice(
                name=name,
                pci_address=pci_address_of(sys, f"{base}/device"),
                node_type=node_type,
                ports=len(sys.listdir(f"{base}/ports")),
            )
        )
    return out


def probe_net(sys: SysFS) -> tuple[list[NetInterface], list[RdmaDevice]]:
    """All interfaces but loopback, and all RDMA devices; ([], []) without sysfs."""
    rdma = probe_rdma(sys)
    by_pci: dict[str, list[str]] = {}
    for dev in rdma:
        if dev.pci_address:
            by_pci.setdefault(dev.pci_address, []).append(dev.name)
    nics = []
    for name in sys.listdir("class/net"):
        if name == "lo" or not re.fullmatch(r"[^/\s]{1,15}", name):
            continue
        nic = probe_interface(sys, name, by_pci)
        if nic.encapsulation == "loopback":
            continue
        nics.append(nic)
    return nics, rdma
