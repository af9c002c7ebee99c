#!/usr/bin/env python3
"""Generate a realistic, deterministic dractl cluster snapshot for benchmarks and tests.

    python scripts/gen_snapshot.py --nodes 1000 --devices 8 -o /tmp/snap.yaml

The cluster: one DeviceClass ``gpu.nvidia.com``, ``--nodes`` GPU Nodes, one
ResourceSlice per node with ``--devices`` NVIDIA-style GPUs (the attributes the
NVIDIA DRA driver publishes, memory capacity), and on about a quarter of the
nodes an allocated ResourceClaim plus the Pod that uses it.  The same
arguments and ``--seed`` always give the same bytes.

Importable: :func:`generate` returns the objects (no header);
:func:`write` adds the snapshot header through :func:`dractl.io.write_snapshot`.
"""

from __future__ import annotations

import argparse
import random
import sys
import uuid
from pathlib import Path
from typing import Any

DRIVER = "gpu.nvidia.com"
# (product name, architecture, compute capability, memory)
PRODUCTS = (
    ("NVIDIA H100 80GB HBM3", "Hopper", "9.0.0", "80Gi"),
    ("NVIDIA A100-SXM4-80GB", "Ampere", "8.0.0", "80Gi"),
    ("NVIDIA L40S", "Ada Lovelace", "8.9.0", "46068Mi"),
    ("NVIDIA H200", "Hopper", "9.0.0", "143771Mi"),
)
DRIVER_VERSIONS = ("550.127.5", "570.133.20", "580.82.7")  # semver: no leading zeros
CUDA_VERSIONS = {"550.127.5": "12.4.0", "570.133.20": "12.8.0", "580.82.7": "13.0.0"}


def _device_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": DRIVER},
        "spec": {
            "selectors": [
                {
                    "cel": {
                        "expression": f"device.driver == '{DRIVER}' && "
                        "device.attributes['gpu.nvidia.com'].type == 'gpu'"
                    }
                }
            ]
        },
    }


def _node(name: str, zone: str, product: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": zone,
                "nvidia.com/gpu.product": product.replace(" ", "-"),
            },
        },
        "spec": {},
    }


def _gpu(
    rng: random.Random, index: int, product: tuple[str, str, str, str], driver_version: str, numa_roots: int
) -> dict[str, Any]:
    name, arch, cc, memory = product
    root = index * numa_roots // 8
    bus = 0x18 + index * 0x10
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "productName": {"string": name},
            "uuid": {"string": f"GPU-{uuid.UUID(int=rng.getrandbits(128))}"},
            "architecture": {"string": arch},
            "brand": {"string": "Nvidia"},
            "cudaComputeCapability": {"version": cc},
            "cudaDriverVersion": {"version": CUDA_VERSIONS[driver_version]},
            "driverVersion": {"version": driver_version},
            "index": {"int": index},
            "minor": {"int": index},
            "type": {"string": "gpu"},
            "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{root * 0x40:02x}"},
            "resource.kubernetes.io/pciBusID": {"string": f"0000:{bus:02x}:00.0"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def _slice(rng: random.Random, node: str, devices: int, product: tuple[str, str, str, str]) -> dict[str, Any]:
    driver_version = rng.choice(DRIVER_VERSIONS)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}-{rng.getrandbits(20):05x}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [_gpu(rng, i, product, driver_version, 2) for i in range(devices)],
        },
    }


def _claim_and_pod(rng: random.Random, node: str, index: int, devices: int) -> list[dict[str, Any]]:
    count = rng.choice([1, 1, 2, 4, devices])
    count = min(count, devices)
    claim = f"train-{index:05d}-gpus"
    pod = f"train-{index:05d}"
    pod_uid = str(uuid.UUID(int=rng.getrandbits(128)))
    results = [
        {"request": "gpus", "driver": DRIVER, "pool": node, "device": f"gpu-{d}"} for d in range(count)
    ]
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": claim, "namespace": "ml", "uid": str(uuid.UUID(int=rng.getrandbits(128)))},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpus",
                            "exactly": {
                                "deviceClassName": DRIVER,
                                "allocationMode": "ExactCount",
                                "count": count,
                            },
                        }
                    ]
                }
            },
            "status": {
                "allocation": {
                    "devices": {"results": results},
                    "nodeSelector": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                        ]
                    },
                },
                "reservedFor": [{"resource": "pods", "name": pod, "uid": pod_uid}],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": pod, "namespace": "ml", "uid": pod_uid},
            "spec": {
                "nodeName": node,
                "resourceClaims": [{"name": "gpus", "resourceClaimName": claim}],
                "containers": [{"name": "trainer", "resources": {"claims": [{"name": "gpus"}]}}],
            },
            "status": {"resourceClaimStatuses": []},
        },
    ]


def generate(nodes: int = 1000, devices: int = 8, seed: int = 20250101) -> list[dict[str, Any]]:
    """The snapshot's objects (without the header), deterministic for given arguments."""
    rng = random.Random(seed)
    objects: list[dict[str, Any]] = [_device_class()]
    workloads: list[dict[str, Any]] = []
    for n in range(nodes):
        name = f"gpu-node-{n:04d}"
        product = PRODUCTS[n % len(PRODUCTS)]
        objects.append(_node(name, f"zone-{'abc'[n % 3]}", product[0]))
        objects.append(_slice(rng, name, devices, product))
        if devices and n % 4 == 0:
            workloads.extend(_claim_and_pod(rng, name, n, devices))
    return objects + workloads


def write(path: str | Path, nodes: int = 1000, devices: int = 8, seed: int = 20250101) -> Path:
    """Write a snapshot file (header + :func:`generate`'s objects); returns the path."""
    from dractl.io import write_snapshot

    text = write_snapshot(
        generate(nodes, devices, seed),
        server_version="v1.37.0",
        feature_gates={},
        time="2026-01-01T00:00:00Z",
    )
    out = Path(path)
    out.write_text(text, encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--devices", type=int, default=8, help="GPUs per node")
    parser.add_argument("--seed", type=int, default=20250101)
    parser.add_argument("-o", "--output", default="-", help="file to write ('-' = stdout)")
    args = parser.parse_args(argv)
    if args.nodes < 0 or args.devices < 0:
        parser.error("--nodes and --devices must be >= 0")
    if args.output == "-":
        from dractl.io import write_snapshot

        sys.stdout.write(
            write_snapshot(
                generate(args.nodes, args.devices, args.seed),
                server_version="v1.37.0",
                feature_gates={},
                time="2026-01-01T00:00:00Z",
            )
        )
    else:
        write(args.output, args.nodes, args.devices, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
