#!/usr/bin/env bash
# On a GPU node: a co-tenant that gpuconform's process list cannot show. gpuconform runs in a PID
# namespace of its own (unshare), the co-tenant (a torch matrix-multiply and copy loop) outside it,
# so NVML, asked from inside, lists our worker but not the tenant: it is seen by utilisation alone.
# Expects a built tree at build/ (CUDA on), python3 with a CUDA torch, unshare (util-linux) and root.
# Writes $OUT/hidden-tenant-run.tar.gz:
#   ns-idle.json/.log       a run in the namespace with the GPU to itself (the comparison)
#   ns-busy.json/.log       the same run with the hidden co-tenant computing and copying
#   diff.txt                gpuconform diff ns-idle.json ns-busy.json (never REGRESSED on a disturbance)
#   nvml-inside.txt         what nvidia-smi lists from inside the namespace while the tenant runs
#   run.log                 exit status of each step
set -u
OUT=${OUT:-$PWD/hidden-tenant-out}
SECONDS_BUSY=${SECONDS_BUSY:-150}
work=$(mktemp -d)
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
ns() { unshare --pid --fork --mount-proc "$@"; }
log() { echo "== $*" | tee -a "$work/run.log"; }
pack() { tar -czf "$OUT/hidden-tenant-run.tar.gz" -C "$work" .; }
layers="--layer host,async"

ns $gc run $layers --json "$work/ns-idle.json" > "$work/ns-idle.log" 2>&1
log "ns-idle rc=$? $(tail -n 1 "$work/ns-idle.log")"

python3 - "$SECONDS_BUSY" > "$work/tenant.log" 2>&1 <<'EOF' &
import sys, time, torch
end = time.time() + float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
host = torch.empty(256 << 20, dtype=torch.uint8).pin_memory()
dev = torch.empty_like(host, device="cuda")
copies = torch.cuda.Stream()
n = 0
while time.time() < end:
    with torch.cuda.stream(copies):
        dev.copy_(host, non_blocking=True)
    for _ in range(8):
        a = (a @ a) / 8192.0
    torch.cuda.synchronize()
    n += 1
print(f"tenant: {n} rounds")
EOF
tenant=$!
sleep 8
ns nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > "$work/nvml-inside.txt" 2>&1
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > "$work/nvml-outside.txt" 2>&1
ns $gc run $layers --busy-wait 20 --json "$work/ns-busy.json" > "$work/ns-busy.log" 2>&1
log "ns-busy rc=$? $(tail -n 1 "$work/ns-busy.log")"
kill "$tenant" 2>/dev/null
wait "$tenant" 2>/dev/null
log "tenant $(tail -n 1 "$work/tenant.log")"
rc=0
$gc diff "$work/ns-idle.json" "$work/ns-busy.json" > "$work/diff.txt" 2>&1 || rc=$?
log "diff rc=$rc $(grep '^verdict' "$work/diff.txt")"
pack
cat "$work/run.log"
