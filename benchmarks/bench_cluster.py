"""Live-cluster reads at scale: dractl against kubectl (+ jq) on the same loopback API server.

The cluster: ``NODES`` nodes × 8 GPUs (one ResourceSlice per node), 4 allocated one-GPU claims
per node with their running Pods (20,000 of each at 5,000 nodes, in 50 namespaces), one
pending claim.  It is served over TLS by tests/cluster/loopback_api.py in a separate process
with pre-serialised pages (every list page is serialised once, in a warm-up run, and then
served from memory), so what is timed is the client: connection, transfer, decode, model,
output.

Rows, per size (1,000 and 5,000 nodes; ``DRACTL_BENCH_CLUSTER_NODES=1000,5000`` to choose):

* ``dractl snapshot -A`` end to end from a fresh process (target < 5 s, < 1 GB);
* ``dractl availability -A`` / ``health -A`` when those commands exist (targets 3 s / 500 MB
  and ≥ 4× faster than kubectl + jq; 5 s / 1 GB);
* ``dractl explain-allocation --claim NS/NAME`` of the pending claim, when it reads a cluster;
* ``kubectl get resourceslices -o json``, ``kubectl get resourceclaims -A -o json`` and both
  piped into ``jq`` counting free devices per node (python counting when jq is missing);
* where dractl's time goes for ``snapshot -A``, ``availability -A`` and ``health -A``, in a
  fresh process with timers around each phase, wall and CPU seconds: import (kubernetes and
  dractl), transfer (bytes off the wire), JSON decode, other read, model build, engine,
  render, and the rest (CLI, world building).

Bytecode is cached (as for an installed wheel; PYTHONDONTWRITEBYTECODE is dropped for the
children).  The machine this project runs on is shared: CPU seconds (user + system, of the
child) are printed beside every wall time, and the kubectl + jq ratio is given for both.

Every timed command runs after one untimed warm-up (pages cached by the server).  RSS is the
child's peak resident set (``getrusage``).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
STANDIN = ROOT / "tests" / "cluster" / "loopback_api.py"
GPUS = 8
CLAIMS_PER_NODE = 4
NAMESPACES = 50
JQ_FREE_PER_NODE = (
    # slices → devices per node; claims → allocated (pool, device); free = devices - allocated
    "(.[0].items | map({node: .spec.nodeName, pool: .spec.pool.name, d: [.spec.devices[].name]})) as $s"
    ' | ([.[1].items[] | .status.allocation.devices.results[]? | "\\(.pool)/\\(.device)"]'
    " | map({(.): true}) | add // {}) as $used"
    ' | $s | map({node, free: ([.pool as $p | .d[] | select($used["\\($p)/\\(.)"] | not)] | length)})'
    " | length"
)


def _gen() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_snapshot  # type: ignore[import-not-found]

    return gen_snapshot


def generate(nodes: int, seed: int = 7) -> list[dict[str, Any]]:
    """The served objects, deterministic."""
    gen = _gen()
    rng = random.Random(seed)
    objects: list[dict[str, Any]] = [gen._device_class()]
    for n in range(nodes):
        node = f"gpu-node-{n:04d}"
        product = gen.PRODUCTS[n % len(gen.PRODUCTS)]
        objects.append(gen._node(node, f"zone-{'abc'[n % 3]}", product[0]))
        objects.append(gen._slice(rng, node, GPUS, product))
        for c in range(CLAIMS_PER_NODE):
            objects.extend(_claim_and_pod(node, n * CLAIMS_PER_NODE + c, f"gpu-{c}"))
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "pending-one-gpu", "namespace": "ml-00"},
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}
            },
        }
    )
    return objects


def _claim_and_pod(node: str, index: int, device: str) -> list[dict[str, Any]]:
    ns = f"ml-{index % NAMESPACES:02d}"
    claim, pod = f"job-{index:06d}-gpu", f"job-{index:06d}"
    pod_uid = f"00000000-0000-4000-8000-{index:012d}"
    return [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "name": claim,
                "namespace": ns,
                "uid": f"10000000-0000-4000-8000-{index:012d}",
                "creationTimestamp": "2026-11-30T12:00:00Z",
                "managedFields": [
                    {
                        "manager": "kube-scheduler",
                        "operation": "Apply",
                        "apiVersion": "resource.k8s.io/v1",
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:status": {"f:allocation": {}}},
                    }
                ],
            },
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": "gpu.nvidia.com",
                                "allocationMode": "ExactCount",
                                "count": 1,
                            },
                        }
                    ]
                }
            },
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {"request": "gpu", "driver": "gpu.nvidia.com", "pool": node, "device": device}
                        ]
                    },
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
            "metadata": {
                "name": pod,
                "namespace": ns,
                "uid": pod_uid,
                "labels": {"app": "trainer"},
                "annotations": {"kubectl.kubernetes.io/restartedAt": "2026-11-30T12:00:00Z"},
            },
            "spec": {
                "nodeName": node,
                "schedulerName": "default-scheduler",
                "restartPolicy": "Never",
                "serviceAccountName": "default",
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}],
                "containers": [
                    {
                        "name": "trainer",
                        "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                        "args": ["python", "train.py", "--epochs", "90"],
                        "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
                        "resources": {
                            "claims": [{"name": "gpu"}],
                            "requests": {"cpu": "8", "memory": "64Gi"},
                        },
                    }
                ],
            },
            "status": {
                "phase": "Running",
                "podIP": f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256}",
                "conditions": [{"type": "Ready", "status": "True"}],
                "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": claim}],
                "containerStatuses": [
                    {
                        "name": "trainer",
                        "ready": True,
                        "restartCount": 0,
                        "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                        "allocatedResourcesStatus": [
                            {
                                "name": "claim:gpu",
                                "resources": [
                                    {"resourceID": f"gpu.nvidia.com/{node}/{device}", "health": "Healthy"}
                                ],
                            }
                        ],
                    }
                ],
            },
        },
    ]


class Served:
    """The stand-in API server in its own process, and a kubeconfig for it."""

    def __init__(self, nodes: int, work: Path) -> None:
        self.work = work
        self.token = "bench-" + secrets.token_urlsafe(16)
        state = work / f"state-{nodes}.json"
        state.write_text(json.dumps(generate(nodes)))
        port_file = work / "url"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "tests" / "cluster")}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(STANDIN),
                "serve",
                "--state",
                str(state),
                "--certs",
                str(work / "certs"),
                "--port-file",
                str(port_file),
                "--token",
                self.token,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 300
        while not port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stand-in server did not start: {self.proc.stderr.read()[-500:]!r}")
            time.sleep(0.2)
        url = port_file.read_text()
        self.kubeconfig = work / "kubeconfig"
        self.kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "bench",
                    "clusters": [
                        {
                            "name": "bench",
                            "cluster": {
                                "server": url,
                                "certificate-authority": str(work / "certs" / "ca.crt"),
                            },
                        }
                    ],
                    "users": [{"name": "bench", "user": {"token": self.token}}],
                    "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
                }
            )
        )
        # Bytecode is cached (in the work directory), as for an installed wheel: with
        # PYTHONDONTWRITEBYTECODE every fresh process would compile dractl again (~1 s).
        self.env = {
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(work / "pycache"),
            "KUBECONFIG": str(self.kubeconfig),
            "PYTHONPATH": str(ROOT),
            "HOME": str(work),
            "COLUMNS": "200",
        }

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


_MEASURE = (
    "import resource, subprocess, sys, time; t = time.perf_counter(); "
    "p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL if sys.argv[1] == '-' else "
    "open(sys.argv[1], 'wb'), stderr=subprocess.PIPE, shell=False); "
    "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(time.perf_counter() - t, r.ru_maxrss / 1024, p.returncode, r.ru_utime + r.ru_stime); "
    "sys.stderr.buffer.write(p.stderr[-300:])"
)


CPU: dict[str, float] = {}  # the CPU seconds (user + system) of the last measure() of each argv


def measure(argv: list[str], env: dict[str, str], out: str = "-") -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of one fresh process (its CPU seconds go to
    ``CPU[" ".join(argv)]``: the machine is shared, so CPU time is the figure to compare)."""
    res = subprocess.run(
        [sys.executable, "-c", _MEASURE, out, *argv], env=env, capture_output=True, text=True, timeout=600
    )
    secs, rss, code, cpu = res.stdout.split()
    CPU[" ".join(argv)] = float(cpu)
    return float(secs), float(rss), int(code)


RUNS = 3  # timed dractl rows: the best of this many fresh processes (the machine is shared)


def measure_best(argv: list[str], env: dict[str, str], runs: int = RUNS) -> tuple[float, float, float, int]:
    """:func:`measure` ``runs`` times: the best and the median wall seconds, the largest peak RSS
    (MB) and the exit code of the best run (a failed run is not a time: any exit other than 0
    or 1 is returned at once); ``CPU[...]`` holds the least CPU of the runs."""
    walls, rsss, cpus = [], [], []
    code = 0
    for _ in range(runs):
        secs, rss, code = measure(argv, env)
        if code not in (0, 1):
            return secs, secs, rss, code
        walls.append(secs)
        rsss.append(rss)
        cpus.append(CPU[" ".join(argv)])
    CPU[" ".join(argv)] = min(cpus)
    return min(walls), statistics.median(walls), max(rsss), code


def best_note(median: float) -> str:
    """What a timed row's value is (the machine is shared: single runs vary by half)."""
    return f"best of {RUNS} runs, median {median:.2f} s"


def cpu_of(argv: list[str]) -> str:
    return f"CPU {CPU.get(' '.join(argv), float('nan')):.2f} s"


def dractl(*args: str) -> list[str]:
    return [sys.executable, "-c", "from dractl.cli.app import main; main()", *args]


def has_command(name: str, env: dict[str, str]) -> bool:
    return subprocess.run(dractl(name, "--help"), env=env, capture_output=True).returncode == 0


def all_namespaces_flag(name: str, env: dict[str, str]) -> list[str]:
    """``["-A"]`` when the command takes it (views that are cluster-wide anyway don't)."""
    out = subprocess.run(dractl(name, "--help"), env=env, capture_output=True, text=True).stdout
    return ["-A"] if "--all-namespaces" in out else []


def kubectl_jq(served: Served) -> tuple[float, float, float]:
    """``kubectl get resourceslices -o json`` and ``kubectl get resourceclaims -A -o json`` into jq (or
    python) counting free devices per node: total wall time, the largest RSS of the steps and
    their CPU time."""
    work = served.work
    t = time.perf_counter()
    steps = [
        ["kubectl", "get", "resourceslices", "-o", "json"],
        ["kubectl", "get", "resourceclaims", "-A", "-o", "json"],
    ]
    _, rss1, _ = measure(steps[0], served.env, str(work / "s.json"))
    _, rss2, _ = measure(steps[1], served.env, str(work / "c.json"))
    if shutil.which("jq"):
        steps.append(["jq", "-s", JQ_FREE_PER_NODE, str(work / "s.json"), str(work / "c.json")])
        _, rss3, _ = measure(steps[-1], served.env)
    else:  # pragma: no cover
        _, rss3, _ = measure(
            [
                sys.executable,
                "-c",
                "import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))",
                str(work / "s.json"),
                str(work / "c.json"),
            ],
            served.env,
        )
    cpu = sum(CPU.get(" ".join(step), 0.0) for step in steps)
    return time.perf_counter() - t, max(rss1, rss2, rss3), cpu


_PHASES = r"""
import io, json, sys, time
clock = lambda: (time.perf_counter(), time.process_time())
t0 = clock()
import dractl.cluster.client; dractl.cluster.client.load()  # the kubernetes client, as dractl imports it
import dractl.cli.app, dractl.cluster.source, dractl.inventory.availability, dractl.inventory.health  # noqa
import dractl.io.snapshot, dractl.render.inventory, dractl.cluster.snapshot  # noqa
from dractl.cluster import lists, transport, source
import dractl.render
acc = {}
def timed(owner, name, phase):
    real = getattr(owner, name)
    def wrapper(*a, **k):
        t = clock()
        try:
            return real(*a, **k)
        finally:
            w, c = acc.get(phase, (0.0, 0.0)); n = clock()
            acc[phase] = (w + n[0] - t[0], c + n[1] - t[1])
    setattr(owner, name, wrapper)
timed(transport.Transport, "get", "transfer")
if hasattr(lists, "json_loads"):  # pages decoded through transport.json_loads
    timed(lists, "json_loads", "decode")
else:
    timed(lists.json, "loads", "decode")
if hasattr(lists, "fast_typed"):  # a lean read's pages, decoded without the fields no view reads
    timed(lists, "fast_typed", "decode")
timed(source.ClusterSource, "load_raw", "read")
import dractl.model.build  # noqa
timed(dractl.model.build, "resource_slice", "lean")  # what a lean read builds as it reads (model)
timed(dractl.model.build, "resource_claim", "lean")
timed(source.ClusterSource, "load", "load")
timed(dractl.inventory.availability, "availability", "engine")
timed(dractl.inventory.health, "health", "engine")
timed(dractl.render, "render", "render")
timed(dractl.cluster.snapshot, "write_snapshot", "render")  # as cluster.snapshot imported it
t1 = clock()
code = 0
sys.stdout = io.StringIO()
try:
    dractl.cli.app.main(sys.argv[1:])
except SystemExit as e:
    code = e.code
t2 = clock()
sys.stdout = sys.__stdout__
z = (0.0, 0.0)
get = lambda k: acc.get(k, z)
minus = lambda a, *b: (a[0] - sum(x[0] for x in b), a[1] - sum(x[1] for x in b))
phases = {
    "import": (t1[0] - t0[0], t1[1] - t0[1]),
    "transfer": get("transfer"),
    "JSON decode": get("decode"),
    "other read": minus(get("read"), get("transfer"), get("decode"), get("lean")),
    "model": minus(get("load"), get("read"), (-get("lean")[0], -get("lean")[1])) if "load" in acc else z,
    "engine": get("engine"),
    "render": get("render"),
}
phases["rest"] = minus((t2[0] - t1[0], t2[1] - t1[1]), *[v for k, v in phases.items() if k != "import"])
print(json.dumps({"exit": code, "phases": phases}))
"""


def breakdown(served: Served, *args: str) -> dict[str, tuple[float, float]]:
    """Seconds (wall, CPU) per phase of ``dractl ARGS`` in a fresh process (in-process timers
    around the transport, json.loads, the model build, the engine and the renderer; "rest" is
    the CLI around them)."""
    out = subprocess.run(
        [sys.executable, "-c", _PHASES, *args],
        env=served.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return {k: (v[0], v[1]) for k, v in result["phases"].items()}


def _phase_note(phases: dict[str, tuple[float, float]]) -> str:
    return ", ".join(f"{k} {w:.2f}/{c:.2f}" for k, (w, c) in phases.items())


def rows_for(nodes: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dractl-bench-cluster-") as tmp:
        served = Served(nodes, Path(tmp))
        try:
            env = served.env
            measure(dractl("snapshot", "-A"), env)  # warm-up: the server serialises every page once
            measure(["kubectl", "get", "resourceslices,resourceclaims", "-A", "-o", "json"], env)
            secs, median, rss, code = measure_best(dractl("snapshot", "-A"), env)
            note = f"{nodes} nodes; {best_note(median)}; least {cpu_of(dractl('snapshot', '-A'))}" + (
                f"; exit {code}" if code else ""
            )
            rows.append(
                {
                    "name": f"cluster {nodes}: dractl snapshot -A",
                    "value": secs,
                    "unit": "s",
                    "target": "< 5 s" if nodes >= 5000 else "",
                    "note": note,
                }
            )
            rows.append(
                {
                    "name": f"cluster {nodes}: dractl snapshot -A RSS",
                    "value": rss,
                    "unit": "MB",
                    "target": "< 1000 MB" if nodes >= 5000 else "",
                }
            )
            kj_secs, kj_rss, kj_cpu = kubectl_jq(served)
            for args, target in (
                (("get", "resourceslices", "-o", "json"), ""),
                (("get", "resourceclaims", "-A", "-o", "json"), ""),
            ):
                s, r, _ = measure(["kubectl", *args], env)
                rows.append(
                    {
                        "name": f"cluster {nodes}: kubectl {' '.join(args)}",
                        "value": s,
                        "unit": "s",
                        "target": target,
                        "note": f"{r:.0f} MB; {cpu_of(['kubectl', *args])}",
                    }
                )
            rows.append(
                {
                    "name": f"cluster {nodes}: kubectl slices+claims | jq free per node",
                    "value": kj_secs,
                    "unit": "s",
                    "note": f"peak {kj_rss:.0f} MB; CPU {kj_cpu:.2f} s; ignores taints, counters, capacity",
                }
            )
            for command, target_s, target_mb in (("availability", 3, 500), ("health", 5, 1000)):
                if not has_command(command, env):
                    rows.append(
                        {
                            "name": f"cluster {nodes}: dractl {command} -A",
                            "value": float("nan"),
                            "unit": "s",
                            "note": "command not on this branch yet",
                        }
                    )
                    continue
                flags = all_namespaces_flag(command, env)
                measure(dractl(command, *flags), env)
                s, median, r, code = measure_best(dractl(command, *flags), env)
                s = s if code in (0, 1) else float("nan")  # a failed run is not a time
                rows.append(
                    {
                        "name": f"cluster {nodes}: dractl {command} -A",
                        "value": s,
                        "unit": "s",
                        "target": f"< {target_s} s" if nodes >= 5000 else "",
                        "note": f"{best_note(median)}; {r:.0f} MB (target < {target_mb} MB); "
                        f"least {cpu_of(dractl(command, *flags))}; exit {code}",
                    }
                )
                if command == "availability" and kj_secs == kj_secs:
                    rows.append(
                        {
                            "name": f"cluster {nodes}: kubectl+jq / dractl availability",
                            "value": kj_secs / s,
                            "unit": "x",
                            "target": ">= 4 x" if nodes >= 5000 else "",
                            "note": f"CPU: {kj_cpu / CPU[' '.join(dractl(command, *flags))]:.1f} x",
                        }
                    )
            explain = dractl("explain-allocation", "--claim", "ml-00/pending-one-gpu")
            measure(explain, env)
            s, median, r, code = measure_best(explain, env)
            rows.append(
                {
                    "name": f"cluster {nodes}: dractl explain-allocation --claim (live)",
                    "value": s,
                    "unit": "s",
                    "target": "< 5 s" if nodes >= 5000 else "",
                    "note": f"{best_note(median)}; {r:.0f} MB; least {cpu_of(explain)}; exit {code}"
                    + (" (no live cluster support)" if code == 2 else ""),
                }
            )
            for args in (
                ("snapshot", "-A"),
                ("availability", "-A"),
                ("health", "-A"),
                ("explain-allocation", "--claim", "ml-00/pending-one-gpu"),  # its engine: "rest"
            ):
                phases = breakdown(served, *args)
                rows.append(
                    {
                        "name": f"cluster {nodes}: {args[0]} phases (wall/CPU s)",
                        "value": sum(w for w, _ in phases.values()),
                        "unit": "s",
                        "note": _phase_note(phases),
                    }
                )
        finally:
            served.close()
    return rows


def run() -> list[dict[str, Any]]:
    sizes = [int(x) for x in os.environ.get("DRACTL_BENCH_CLUSTER_NODES", "1000,5000").split(",") if x]
    rows: list[dict[str, Any]] = []
    for nodes in sizes:
        rows.extend(rows_for(nodes))
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
