"""PCI devices from sysfs (``bus/pci/devices``), plus vendor/device names from pci.ids.

The PCIe root of a device is the first component of its real sysfs path
(``devices/pci0000:17/0000:17:01.0/0000:18:00.0`` → ``pci0000:17``), as
Kubernetes' ``deviceattribute`` helper derives ``resource.kubernetes.io/pcieRoot``.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable
from pathlib import Path

from dractl.discover.report import PciDevice
from dractl.discover.sysfs import SysFS, read_regular

BDF_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
PCI_DEVICES = "bus/pci/devices"
MAX_PCI_IDS = 16 * 1024 * 1024  # the full database is ~1.5 MB
PCI_IDS_LOCATIONS = ("/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids")


def normalize_bus_id(raw: str) -> str | None:
    """``00000000:18:00.0`` (NVML) or ``0000:18:00.0`` → ``0000:18:00.0``; None if not a BDF."""
    m = re.fullmatch(r"([0-9a-fA-F]{1,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])", raw.strip())
    if not m:
        return None
    domain = int(m.group(1), 16)
    if domain > 0xFFFF:
        return None
    return f"{domain:04x}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4)}"


def pcie_root(sys: SysFS, address: str) -> str | None:
    """The PCIe root complex (``pciDDDD:BB``) of a device, or None when sysfs does not show it."""
    link = f"{PCI_DEVICES}/{address}"
    target = sys.readlink(link)
    if target is None:
        return None
    resolved = os.path.normpath(os.path.join(os.path.dirname(link), target))
    parts = resolved.split("/")
    if len(parts) < 3 or parts[0] != "devices" or not parts[1].startswith("pci") or parts[-1] != address:
        return None
    return parts[1]


def _hex(sys: SysFS, path: str) -> str | None:
    text = sys.read(path)
    if not text:
        return None
    return text.lower().removeprefix("0x")


def _link_name(sys: SysFS, path: str) -> str | None:
    target = sys.readlink(path)
    return os.path.basename(target) if target else None


def _numa(sys: SysFS, path: str) -> int | None:
    value = sys.read_int(path)
    return value if value is not None and value >= 0 else None


def probe_device(sys: SysFS, address: str, names: PciIds | None) -> PciDevice:
    base = f"{PCI_DEVICES}/{address}"
    vendor, device = _hex(sys, f"{base}/vendor"), _hex(sys, f"{base}/device")
    group = _link_name(sys, f"{base}/iommu_group")
    virtfns = sorted(
        (n for n in sys.listdir(base) if re.fullmatch(r"virtfn\d+", n)), key=lambda n: int(n[6:])
    )
    return PciDevice(
        address=address,
        vendor_id=vendor,
        device_id=device,
        class_id=_hex(sys, f"{base}/class"),
        subsystem_vendor_id=_hex(sys, f"{base}/subsystem_vendor"),
        subsystem_device_id=_hex(sys, f"{base}/subsystem_device"),
        vendor_name=names.vendor(vendor) if names and vendor else None,
        device_name=names.device(vendor, device) if names and vendor and device else None,
        driver=_link_name(sys, f"{base}/driver"),
        numa_node=_numa(sys, f"{base}/numa_node"),
        iommu_group=int(group) if group and group.isdigit() else None,
        pcie_root=pcie_root(sys, address),
        sriov_total_vfs=sys.read_int(f"{base}/sriov_totalvfs"),
        sriov_num_vfs=sys.read_int(f"{base}/sriov_numvfs"),
        physfn=_link_name(sys, f"{base}/physfn"),
        virtfns=tuple(n for n in (_link_name(sys, f"{base}/{v}") for v in virtfns) if n),
    )


def probe_pci(sys: SysFS, names: PciIds | None = None) -> list[PciDevice]:
    """Every PCI function under ``bus/pci/devices`` (sorted by address); [] when absent."""
    return [probe_device(sys, a, names) for a in sys.listdir(PCI_DEVICES) if BDF_RE.match(a)]


class PciIds:
    """Vendor and device names from a pci.ids file (only the entries asked for are kept)."""

    def __init__(
        self, vendors: dict[str, str], devices: dict[tuple[str, str], str], source: str | None = None
    ) -> None:
        self.vendors = vendors
        self.devices = devices
        self.source = source
        self.used: set[tuple[str, str | None]] = set()

    def vendor(self, vendor_id: str) -> str | None:
        self.used.add((vendor_id, None))
        return self.vendors.get(vendor_id)

    def device(self, vendor_id: str, device_id: str) -> str | None:
        self.used.add((vendor_id, device_id))
        return self.devices.get((vendor_id, device_id))

    @classmethod
    def parse(cls, lines: Iterable[str], source: str | None = None) -> PciIds:
        """Parse the vendor/device part of pci.ids (classes after ``C `` are ignored)."""
        vendors: dict[str, str] = {}
        devices: dict[tuple[str, str], str] = {}
        vendor: str | None = None
        for line in lines:
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("C "):
                break
            if not line.startswith("\t"):
                ident, _, name = line.partition("  ")
                vendor = ident.strip().lower()
                vendors[vendor] = name.strip()
            elif not line.startswith("\t\t") and vendor is not None:
                ident, _, name = line[1:].partition("  ")
                devices[(vendor, ident.strip().lower())] = name.strip()
        return cls(vendors, devices, source)

    @classmethod
    def find(cls, sysfs_root: Path | None = None) -> PciIds | None:
        """Load pci.ids: first one beside a captured sysfs tree, then the system copies."""
        candidates = [sysfs_root.parent / "pci.ids"] if sysfs_root is not None else []
        candidates += [Path(p) for p in PCI_IDS_LOCATIONS]
        for path in candidates:
            data = read_regular(path, MAX_PCI_IDS)  # regular files only, bounded (a capture may lie)
            if data is not None:
                return cls.parse(io.StringIO(data.decode("utf-8", errors="replace")), str(path))
        return None

    def subset_text(self) -> str:
        """A minimal pci.ids holding only the names that were looked up (for fixtures)."""
        out = ["# pci.ids subset written by dractl discover --save-fixture"]
        for vendor in sorted({v for v, _ in self.used}):
            if vendor not in self.vendors:
                continue
            out.append(f"{vendor}  {self.vendors[vendor]}")
            for v, d in sorted((k for k in self.used if k[0] == vendor and k[1]), key=str):
                if d is not None and (v, d) in self.devices:
                    out.append(f"\t{d}  {self.devices[(v, d)]}")
        return "\n".join(out) + "\n"
