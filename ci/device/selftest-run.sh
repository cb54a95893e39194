#!/usr/bin/env bash
# On a GPU node: the selftest's wall time with its scenarios side by side (default --jobs: half the
# CPUs, at most 8), twice, each with its table. Expects a built tree at build/.
# Writes to $OUT: selftest.tsv (jobs, round, seconds, exit, last line) and selftest-<jobs>-<round>.log.
set -u
OUT=${OUT:-$PWD/selftest-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
printf 'jobs\tround\tseconds\texit\tlast line\n' >"$OUT/selftest.tsv"
for spec in default:1 default:2; do
    jobs=${spec%%:*} round=${spec##*:}
    opts=()
    [ "$jobs" = default ] || opts=(--jobs "$jobs")
    log="$OUT/selftest-$jobs-$round.log"
    start=$(date +%s.%N)
    "$gc" selftest "${opts[@]}" >"$log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    printf '%s\t%s\t%.1f\t%s\t%s\n' "$jobs" "$round" "$(awk "BEGIN{print $end - $start}")" "$rc" \
        "$(tail -n 1 "$log")" >>"$OUT/selftest.tsv"
done
nproc >"$OUT/nproc.txt"
cat "$OUT/selftest.tsv"
