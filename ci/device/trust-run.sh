#!/usr/bin/env bash
# On a GPU node: the runs behind the verdict line, the diff's noise floors and the instrumented-
# process rule. Expects a built tree at build/ (CUDA on) and python3 with a CUDA torch.
# Writes $OUT/trust-run.tar.gz with every report and log:
#   repeat-NN.json/.log   N full runs, nothing else on the GPU (REPEATS, default 20): the spread
#                         of every key figure (reports/tools/figure_spread.py reads them)
#   hidden.json           CUDA_VISIBLE_DEVICES= (every GPU hidden): one cause, torch's result in it
#   tmpdir.json           TMPDIR=/nonexistent: no install error
#   sanitizer-*.txt       what compute-sanitizer puts into the process it starts: its
#                         environment and mapped libraries, then the async checks under memcheck
set -u
OUT=${OUT:-$PWD/trust-out}
REPEATS=${REPEATS:-20}
work=$(mktemp -d)
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
log() { echo "== $*" | tee -a "$work/run.log"; }
pack() { tar -czf "$OUT/trust-run.tar.gz" -C "$work" .; }

nvidia-smi > "$work/nvidia-smi.txt" 2>&1
for i in $(seq -w 1 "$REPEATS"); do
    t0=$(date +%s%N)
    $gc run --json "$work/repeat-$i.json" > "$work/repeat-$i.log" 2>&1
    log "repeat-$i rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
pack
CUDA_VISIBLE_DEVICES= $gc run --json "$work/hidden.json" > "$work/hidden.log" 2>&1; log "hidden rc=$?"
TMPDIR=/nonexistent $gc run --layer host,runtime --json "$work/tmpdir.json" > "$work/tmpdir.log" 2>&1; log "tmpdir rc=$?"
pack
# What the sanitizer's launcher gives its target, seen from inside a plain program.
if command -v compute-sanitizer >/dev/null 2>&1; then
    compute-sanitizer --tool memcheck /usr/bin/env > "$work/sanitizer-env.txt" 2>&1
    compute-sanitizer --tool memcheck /bin/cat /proc/self/maps > "$work/sanitizer-maps.txt" 2>&1
    env > "$work/plain-env.txt"
    compute-sanitizer --version > "$work/sanitizer-version.txt" 2>&1
    t0=$(date +%s%N)
    timeout 150 compute-sanitizer --tool memcheck $gc run --layer async --quick \
        --only 'async.stream.*,async.overlap.*,async.launch.*' --json "$work/sanitizer.json" \
        > "$work/sanitizer-run.log" 2>&1
    log "sanitizer rc=$? wall=$(( ($(date +%s%N) - t0) / 1000000 )) ms"
fi
pack
cat "$work/run.log"
