#!/usr/bin/env bash
# On a GPU node, after a change that must not change any verdict: the run shapes of
# ci/device/speed-run.sh with a fresh folder of kept compile verdicts, each shape's report diffed
# against the same shape's report from before the change, and the selftest timed. Expects a built
# tree at build/ and BEFORE=<folder with before-<shape>.json>. Writes to $OUT: speed.tsv,
# diff-<shape>.txt, selftest.log, after-<shape>.json, run.log.
set -u
OUT=${OUT:-$PWD/after-change-out}
BEFORE=${BEFORE:?BEFORE=<folder with before-full.json ...>}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
export GPUCONFORM_CACHE_DIR=${GPUCONFORM_CACHE_DIR:-$(mktemp -d)}
work=$(mktemp -d)
OUT=$work bash "$(dirname "$0")/speed-run.sh" >/dev/null
cp "$work/speed.tsv" "$OUT/speed.tsv"
for shape in full quick native host_runtime; do
    cp "$work/speed-$shape-2.json" "$OUT/after-$shape.json"
    "$gc" diff "$BEFORE/before-$shape.json" "$OUT/after-$shape.json" >"$OUT/diff-$shape.txt" 2>&1
    echo "diff $shape rc=$? $(grep -m1 -i 'verdict' "$OUT/diff-$shape.txt")" | tee -a "$OUT/run.log"
done
start=$(date +%s)
timeout 400 "$gc" selftest >"$OUT/selftest.log" 2>&1
echo "selftest rc=$? $(( $(date +%s) - start )) s" | tee -a "$OUT/run.log"
cat "$OUT/speed.tsv"
