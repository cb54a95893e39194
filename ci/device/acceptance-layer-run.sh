#!/usr/bin/env bash
# On a GPU node: the acceptance layer in a 120 s budget beside BabelStream's CUDA build, and the
# nightly default's checks unchanged. Expects a built tree at build/ and, optionally, BabelStream's
# sources at $BABELSTREAM_SRC (fetched outside the repository; none of its code is committed).
# Writes to $OUT:
#   acceptance.json / .log   `run --layer acceptance --budget 120 --timings`: the report and its terminal view
#   babelstream.log          BabelStream's CUDA build on the same GPU (triad GB/s to compare)
#   default-list.txt         the default run's and --quick's check ids (the acceptance layer is in neither)
#   selftest-acceptance.log  the acceptance faults on the simulated device: each trips exactly its check
#   nvidia-smi.txt           the GPU before and after
#   run.log                  each step's exit status and time
set -u
OUT=${OUT:-$PWD/acceptance-layer-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
log() { echo "== $*" | tee -a "$OUT/run.log"; }
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
start=$(date +%s.%N)
$gc run --layer acceptance --budget 120 --timings --json "$OUT/acceptance.json" > "$OUT/acceptance.log" 2>&1
rc=$?
log "acceptance rc=$rc wall=$(echo "$(date +%s.%N) - $start" | bc) s $(grep -m1 '^verdict' "$OUT/acceptance.log")"
if [ -n "${BABELSTREAM_SRC:-}" ] && [ -d "$BABELSTREAM_SRC" ]; then
    bs=$(mktemp -d)
    nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4 \
        -I"$BABELSTREAM_SRC/src" -I"$BABELSTREAM_SRC/src/cuda" "$BABELSTREAM_SRC/src/main.cpp" \
        "$BABELSTREAM_SRC/src/cuda/CUDAStream.cu" -lnvidia-ml -o "$bs/cuda-stream" > "$OUT/babelstream.log" 2>&1
    log "babelstream build rc=$?"
    # Its default: 2^25 doubles per array, 100 times; then arrays of 1 GiB as the layer uses.
    "$bs/cuda-stream" >> "$OUT/babelstream.log" 2>&1
    log "babelstream default rc=$?"
    "$bs/cuda-stream" --arraysize 134217728 >> "$OUT/babelstream.log" 2>&1
    log "babelstream 1GiB rc=$?"
fi
nvidia-smi >> "$OUT/nvidia-smi.txt" 2>&1
$gc list > "$OUT/default-list.txt" 2>&1
$gc run --only 'nothing.*' --json /dev/null >> "$OUT/default-list.txt" 2>&1
$gc selftest --only-fault acceptance --only-fault slow_hbm --only-fault gemm_wrong_element \
    --only-fault bad_memory_cell --only-fault throttles_under_load --only-fault copies_corrupt_soak \
    > "$OUT/selftest-acceptance.log" 2>&1
log "selftest rc=$?"
cat "$OUT/run.log"
