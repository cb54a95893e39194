#!/usr/bin/env bash
# On a GPU node: does health.xid keep our own error check's deliberate fault out of its verdict?
# Two default runs (the first leaves async.error.deferred's Xid in the kernel log), then the
# kernel log's Xid lines. Expects a built tree at build/. Writes to $OUT: run1.json, run2.json,
# xid-lines.txt, run.log.
set -u
OUT=${OUT:-$PWD/xid-own-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
for i in 1 2; do
    "$gc" run --json "$OUT/run$i.json" >"$OUT/run$i.log" 2>&1
    echo "run $i rc=$? $(grep -m1 'health.xid' "$OUT/run$i.log")" | tee -a "$OUT/run.log"
done
{ dmesg 2>/dev/null || timeout 2 cat /dev/kmsg; } | grep -i "xid" >"$OUT/xid-lines.txt"
echo "xid lines: $(wc -l <"$OUT/xid-lines.txt")" | tee -a "$OUT/run.log"
