#!/usr/bin/env bash
# Read-only GPU check for `dractl discover` on a machine with an NVIDIA GPU.
#
#   scripts/gpu-check.sh [OUT_DIR]
#
# 1. runs discovery (NVML + sysfs) and saves a fixture with --save-fixture (commit
#    OUT_DIR/fixture under tests/fixtures/discover/<machine>/ to turn it into a test);
# 2. emits the ResourceSlices (static and partitionable MIG modelling) and validates them
#    with `dractl validate`;
# 3. replays the saved fixture and checks it gives the same slices;
# 4. compares the inventory with `nvidia-smi -q -x` and `nvidia-smi -L`: GPU count, UUIDs,
#    minor numbers, PCI bus ids, memory, MIG mode and MIG device UUIDs;
# 5. prints a summary (and the discovery time) and exits 0 when everything agrees.
#
# Only queries are made: nothing changes MIG mode, clocks or any other setting.
# Environment: PYTHON (default: the repo's .venv or python3); DRACTL (default: $PYTHON -m
# dractl.cli.app); GPU_CHECK_DISCOVER_ARGS (extra `dractl discover` flags, used by tests to
# replay a fixture); NVIDIA_SMI (default: nvidia-smi).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$(mktemp -d -t gpu-check.XXXXXX)}"
mkdir -p "$out"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x "$here/../.venv/bin/python" ]]; then PYTHON="$here/../.venv/bin/python"
  elif [[ -x "$here/.venv/bin/python" ]]; then PYTHON="$here/.venv/bin/python"
  else PYTHON=python3; fi
fi
nvidia_smi="${NVIDIA_SMI:-nvidia-smi}"
read -r -a extra <<< "${GPU_CHECK_DISCOVER_ARGS:-}"
dractl() {
  if [[ -n "${DRACTL:-}" ]]; then $DRACTL "$@"; else PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" -m dractl.cli.app "$@"; fi
}

if ! command -v "$nvidia_smi" >/dev/null 2>&1; then
  echo "gpu-check: $nvidia_smi not found: this check needs a machine with an NVIDIA driver" >&2
  exit 2
fi
node="gpu-check-node"
echo "gpu-check: writing to $out"

start=$(date +%s%N)
dractl discover --node "$node" --only gpu,pci,cpu "${extra[@]}" --save-fixture "$out/fixture" \
  --inventory -o json > "$out/inventory.json" 2> "$out/discover.stderr"
end=$(date +%s%N)
discover_ms=$(( (end - start) / 1000000 ))
dractl discover --node "$node" --only gpu "${extra[@]}" -o yaml > "$out/slices-static.yaml" 2>> "$out/discover.stderr"
dractl discover --node "$node" --only gpu "${extra[@]}" --mig-mode partitionable -o yaml \
  > "$out/slices-partitionable.yaml" 2>> "$out/discover.stderr"
dractl discover --node "$node" --only gpu --sysfs-root "$out/fixture/sys" \
  --nvml-fixture "$out/fixture/nvml.json" -o yaml > "$out/slices-replayed.yaml" 2>> "$out/discover.stderr"

validation=ok
for f in slices-static slices-partitionable; do
  if [[ -s "$out/$f.yaml" ]] && ! dractl validate "$out/$f.yaml" > "$out/$f.validate.txt" 2>&1; then
    validation="FAILED ($f, see $out/$f.validate.txt)"
  fi
done
replay=ok
cmp -s "$out/slices-static.yaml" "$out/slices-replayed.yaml" || replay="FAILED (replayed fixture differs)"

"$nvidia_smi" -q -x > "$out/nvidia-smi.xml"
"$nvidia_smi" -L > "$out/nvidia-smi-L.txt"

"$PYTHON" - "$out" "$discover_ms" "$validation" "$replay" <<'EOF'
import json, re, sys
import xml.etree.ElementTree as ET

out, ms, validation, replay = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
inv = json.load(open(f"{out}/inventory.json"))
root = ET.parse(f"{out}/nvidia-smi.xml").getroot()
smi = []
for g in root.findall("gpu"):
    mem = (g.findtext("fb_memory_usage/total") or "").split()[0]
    bus = g.findtext("pci/pci_bus_id") or g.get("id") or ""
    smi.append({"uuid": g.findtext("uuid"), "minor": g.findtext("minor_number"),
                "bus": bus[-12:].lower(), "mib": int(mem) if mem.isdigit() else None,
                "mig": (g.findtext("mig_mode/current_mig") or "N/A")})
migs_smi = set(re.findall(r"UUID: (MIG-[0-9a-fA-F-]+)", open(f"{out}/nvidia-smi-L.txt").read()))
gpus = inv["gpus"]
problems = []
if len(gpus) != len(smi):
    problems.append(f"GPU count: dractl {len(gpus)}, nvidia-smi {len(smi)}")
by_uuid = {g["uuid"]: g for g in gpus}
for s in smi:
    g = by_uuid.get(s["uuid"])
    if g is None:
        problems.append(f"{s['uuid']}: reported by nvidia-smi, not by dractl")
        continue
    if s["minor"] not in (None, "N/A") and str(g["minor"]) != s["minor"]:
        problems.append(f"{s['uuid']}: minor {g['minor']} vs {s['minor']}")
    if g["pciBusId"] != s["bus"]:
        problems.append(f"{s['uuid']}: PCI bus id {g['pciBusId']} vs {s['bus']}")
    if s["mib"] is not None and g["memoryBytes"] is not None and g["memoryBytes"] // 2**20 != s["mib"]:
        problems.append(f"{s['uuid']}: memory {g['memoryBytes'] // 2**20} MiB vs {s['mib']} MiB")
    if s["mig"] in ("Enabled", "Disabled") and g["migEnabled"] != (s["mig"] == "Enabled"):
        problems.append(f"{s['uuid']}: MIG {'on' if g['migEnabled'] else 'off'} vs {s['mig']}")
migs = {m["uuid"] for g in gpus for m in g["migDevices"]}
if migs != migs_smi:
    problems.append(f"MIG devices: dractl {sorted(migs)}, nvidia-smi {sorted(migs_smi)}")
for label, status in (("validate", validation), ("replay", replay)):
    if status != "ok":
        problems.append(f"{label}: {status}")
profiles = sorted({p["name"] for g in gpus for p in g["migProfiles"]})
print(f"GPUs: {len(gpus)} (nvidia-smi: {len(smi)}); MIG devices: {len(migs)}; "
      f"MIG profiles: {', '.join(profiles) or 'none'}")
print(f"driver {(inv.get('nvml') or {}).get('driverVersion')}, CUDA {(inv.get('nvml') or {}).get('cudaDriverVersion')}; "
      f"discovery + capture took {ms} ms")
print(f"slices validate: {validation}; fixture replay: {replay}")
for p in problems:
    print(f"MISMATCH: {p}")
print("gpu-check: PASS" if not problems else f"gpu-check: FAIL ({len(problems)} problems)")
sys.exit(0 if not problems else 1)
EOF
