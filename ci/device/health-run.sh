#!/usr/bin/env bash
# On a GPU node: the health layer with its real readings (docs/gpu-health.md). Expects a built
# tree at build/. Writes to $OUT:
#   health.json             `run --layer host,health --timings`: the report to commit under reports/samples/
#   health.log              its terminal view, the verdict and where the time went (health.read, health.checks)
#   nvidia-smi-q.txt        what nvidia-smi says of the same GPUs (ECC, row remapping, clocks, power), to compare
#   selftest-health.log     the health faults on the simulated node: each trips exactly its checks
#   run.log                 each step's exit status
set -u
OUT=${OUT:-$PWD/health-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
log() { echo "== $*" | tee -a "$OUT/run.log"; }
$gc run --layer host,health --timings --json "$OUT/health.json" > "$OUT/health.log" 2>&1
log "health rc=$? $(grep -m1 '^verdict' "$OUT/health.log")"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT,PERFORMANCE,TEMPERATURE,POWER,CLOCK > "$OUT/nvidia-smi-q.txt" 2>&1
    nvidia-smi -q | grep -E 'VBIOS|Image Version|Persistence|Compute Mode|Replays|Product Name' >> "$OUT/nvidia-smi-q.txt" 2>&1
    log "nvidia-smi rc=$?"
fi
$gc selftest --only-fault ecc_uncorrectable --only-fault row_remap_pending --only-fault row_remap_failure \
    --only-fault thermal_slowdown --only-fault power_capped --only-fault gpu_missing --only-fault vbios_odd \
    > "$OUT/selftest-health.log" 2>&1
log "selftest rc=$?"
cat "$OUT/run.log"
