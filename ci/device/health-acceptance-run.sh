#!/usr/bin/env bash
# On a GPU node: the health layer's two readings around the acceptance layer's load (the error
# counters read again after it: health.error_growth), then the nightly default run. Expects a
# built tree at build/. Writes to $OUT:
#   health-acceptance.json / .log  `run --layer host,health,acceptance --budget 30 --timings`
#   full.json / full.log           the default run (`run --timings`), as the nightly timer runs it
#   nvidia-smi-q.txt               the driver's own ECC, row-remap, clock-event and power readings
#   run.log                        each step's exit status and wall time
set -u
OUT=${OUT:-$PWD/health-acceptance-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
log() { echo "== $*" | tee -a "$OUT/run.log"; }
t=$(date +%s)
$gc run --layer host,health,acceptance --budget 30 --timings --json "$OUT/health-acceptance.json" \
    > "$OUT/health-acceptance.log" 2>&1
log "health+acceptance rc=$? $(( $(date +%s) - t )) s $(grep -m1 '^verdict' "$OUT/health-acceptance.log")"
t=$(date +%s)
$gc run --timings --json "$OUT/full.json" > "$OUT/full.log" 2>&1
log "default run rc=$? $(( $(date +%s) - t )) s $(grep -m1 '^verdict' "$OUT/full.log")"
nvidia-smi -q -d ECC,ROW_REMAPPER,PERFORMANCE,POWER > "$OUT/nvidia-smi-q.txt" 2>&1
log "nvidia-smi rc=$?"
cat "$OUT/run.log"
