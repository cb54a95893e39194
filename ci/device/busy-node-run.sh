#!/usr/bin/env bash
# On a GPU node: the async layer idle, then under loads of our own making (another
# process copying host<->device, one computing, one only holding memory), then with debugging
# variables set. Expects a built tree at build/ (CUDA on) and python3 with a CUDA torch.
# Writes $OUT/busy-node.tar.gz with every report and log.
set -u
OUT=${OUT:-$PWD/busy-out}
work=$(mktemp -d)
mkdir -p "$OUT" "$work/reports"
gc=./build/gpuconform
log() { echo "== $*" | tee -a "$work/reports/run.log"; }

cat > "$work/load.py" <<'PY'
import sys, time, torch
kind = sys.argv[1]
d = torch.device("cuda")
if kind == "copy":      # another process copying host <-> device all the time
    h = torch.empty(256 << 20, dtype=torch.uint8).pin_memory(); g = torch.empty_like(h, device=d)
    while True:
        g.copy_(h, non_blocking=True); h.copy_(g, non_blocking=True); torch.cuda.synchronize()
elif kind == "compute":  # another process running matrix products
    a = torch.randn(8192, 8192, device=d); b = torch.randn(8192, 8192, device=d)
    while True:
        c = a @ b; torch.cuda.synchronize()
else:                   # one that only holds memory and does nothing
    x = torch.empty(874 << 20, dtype=torch.uint8, device=d); torch.cuda.synchronize()
    while True:
        time.sleep(1)
PY

run() {  # name, env assignments..., -- gpuconform args
    local name=$1; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    local t0=$(date +%s%N)
    env "${envs[@]}" $gc run "$@" --json "$work/reports/$name.json" > "$work/reports/$name.log" 2>&1
    local rc=$?
    log "$name rc=$rc wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
    tail -n 25 "$work/reports/$name.log" >> "$work/reports/run.log"
}

nvidia-smi > "$work/reports/nvidia-smi.txt" 2>&1
run idle-1 X=1 -- --layer async --quick
run idle-2 X=1 -- --layer async --quick
for load in copy compute hold; do
    python3 "$work/load.py" $load > "$work/reports/load-$load.log" 2>&1 &
    pid=$!
    sleep 8  # the load is running (torch and CUDA started)
    nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >> "$work/reports/load-$load.log" 2>&1
    run busy-$load X=1 -- --layer async --quick --busy-wait 5
    kill $pid; wait $pid 2>/dev/null
done
python3 "$work/load.py" compute > "$work/reports/load-compute-measure.log" 2>&1 &
pid=$!; sleep 8
run busy-compute-measure X=1 -- --layer async --quick --when-busy measure
kill $pid; wait $pid 2>/dev/null
for var in CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_DEVICE_WAITS_ON_EXCEPTION=1 CUDA_LAUNCH_BLOCKING=1 CUDA_PROFILE=1 \
           NSIGHT_CUDA_DEBUGGER=1 CUDA_MODULE_LOADING=EAGER CUDA_FORCE_PTX_JIT=1; do
    run "var-${var%%=*}" "$var" -- --layer host,async --quick
done
run nonutf8 CUDA_VISIBLE_DEVICES=$'\xff' -- --layer host,runtime,async --quick
run hidden CUDA_VISIBLE_DEVICES= -- --layer host,runtime,async --quick
tar -czf "$OUT/busy-node.tar.gz" -C "$work" reports
echo "busy-node: reports in $OUT/busy-node.tar.gz"
