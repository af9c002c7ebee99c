"""CEL engine benchmark: µs per (selector, device) and ms per compile (cost estimate included).

Devices: 10,000 GPU devices with 12 attributes and 2 capacities, as a typical NVIDIA driver
publishes them.  Each device is converted once (as the allocator does); the per-evaluation figure
is the median over the batch.  Compile time is measured with the compile cache bypassed.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dractl.cel.activation import DeviceActivationCache
from dractl.cel.cache import CelCache
from dractl.cel.selector import clear_caches, compile_selector
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.model.quantity import Quantity

N_DEVICES = 10_000
SELECTORS = {
    "productName": 'device.driver == "gpu.nvidia.com" && '
    'device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA H")',
    "memory": 'device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0',
    "regex": 'device.attributes["gpu.nvidia.com"].productName.matches("^NVIDIA [AH][0-9]+")',
}
PRODUCTS = ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA L40S", "NVIDIA H200")


def make_devices(n: int = N_DEVICES) -> list[Device]:
    out = []
    for i in range(n):
        attrs = {
            "index": AttributeValue("int", i % 8),
            "minor": AttributeValue("int", i % 8),
            "uuid": AttributeValue("string", f"GPU-{i:08x}-0000-0000-0000-000000000000"),
            "productName": AttributeValue("string", PRODUCTS[i % len(PRODUCTS)]),
            "brand": AttributeValue("string", "Nvidia"),
            "architecture": AttributeValue("string", "Hopper" if i % 2 else "Ampere"),
            "cudaComputeCapability": AttributeValue("version", "9.0.0" if i % 2 else "8.0.0"),
            "driverVersion": AttributeValue("version", "550.54.15"),
            "cudaDriverVersion": AttributeValue("version", "12.4.0"),
            "pcieBusID": AttributeValue("string", f"0000:{i % 256:02x}:00.0"),
            "type": AttributeValue("string", "gpu"),
            "resource.kubernetes.io/pcieRoot": AttributeValue("string", f"pci0000:{i % 4:02x}"),
        }
        caps = {
            "memory": DeviceCapacity(Quantity.parse("80Gi" if i % 3 else "24Gi")),
            "multiprocessors": DeviceCapacity(Quantity.parse("132")),
        }
        out.append(
            Device(name=f"gpu-{i}", driver="gpu.nvidia.com", pool="node-a", attributes=attrs, capacity=caps)
        )
    return out


def _eval_us(expr: str, devices: list[Device]) -> float:
    sel = compile_selector(expr)
    cache = DeviceActivationCache(max_entries=len(devices) + 1)
    for d in devices:  # convert each device once, as the matcher does
        cache.get(d)
    samples = []
    batch = 500
    for start in range(0, len(devices), batch):
        chunk = devices[start : start + batch]
        t0 = time.perf_counter()
        for d in chunk:
            sel.matches(d, activations=cache)
        samples.append((time.perf_counter() - t0) / len(chunk) * 1e6)
    return statistics.median(samples)


def _compile_ms(expr: str, rounds: int = 50) -> float:
    times = []
    for _ in range(rounds):
        cache = CelCache()
        t0 = time.perf_counter()
        compile_selector(expr, cache=cache)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _hostile_regex_ms(n: int = 100_000) -> float:
    """A backtracking-prone pattern on an attribute of ``n`` characters (linear time on RE2)."""
    sel = compile_selector('device.attributes["gpu.nvidia.com"].productName.matches("^(a+)+$")')
    dev = Device(
        name="gpu-x",
        driver="gpu.nvidia.com",
        pool="node-a",
        attributes={"productName": AttributeValue("string", "a" * n + "!")},
    )
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        sel.matches(dev, activations=DeviceActivationCache())
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def run() -> list[dict[str, object]]:
    clear_caches()
    devices = make_devices()
    rows: list[dict[str, object]] = []
    for name, expr in SELECTORS.items():
        rows.append(
            {
                "name": f"cel eval {name}",
                "value": round(_eval_us(expr, devices), 2),
                "unit": "µs",
                "target": "≤ 28 µs",
                "note": f"per (selector, device), {len(devices)} devices",
            }
        )
    for name, expr in SELECTORS.items():
        rows.append(
            {
                "name": f"cel compile {name}",
                "value": round(_compile_ms(expr), 3),
                "unit": "ms",
                "target": "≤ 1 ms",
                "note": "parse + check + cost estimate + program",
            }
        )
    rows.append(
        {
            "name": "cel regex (a+)+$ on 100k chars",
            "value": round(_hostile_regex_ms(), 3),
            "unit": "ms",
            "target": "≤ 10 ms",
            "note": "RE2: linear time (Python's re: hours)",
        }
    )
    clear_caches()
    return rows


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<28} {row['value']:>10} {row['unit']:<3} target {row['target']:<10} {row['note']}"
        )
