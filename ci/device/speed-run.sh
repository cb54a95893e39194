#!/usr/bin/env bash
# On a GPU node: the wall time of the whole process for the run shapes #33's targets name, each
# shape three times in alternation, and the framework layer's own floor (Python start + import
# torch). Expects a built tree at build/. Writes to $OUT: speed.tsv (shape, round, seconds, exit,
# verdict line) and speed-<shape>-<round>.json for each run.
set -u
OUT=${OUT:-$PWD/speed-out}
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
py=${GPUCONFORM_PYTHON:-python3}
declare -A shapes=(
    [full]=""
    [quick]="--quick"
    [native]="--layer host,runtime,async"
    [host_runtime]="--layer host,runtime"
    [framework]="--layer framework"
)
printf 'shape\tround\tseconds\texit\tverdict\n' >"$OUT/speed.tsv"
for round in 1 2 3; do
    for shape in full quick native host_runtime framework; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086  # the shape's options are words
        $gc run ${shapes[$shape]} --json "$OUT/speed-$shape-$round.json" >"$OUT/speed-$shape.log" 2>&1
        rc=$?
        end=$(date +%s.%N)
        printf '%s\t%s\t%.2f\t%s\t%s\n' "$shape" "$round" "$(awk "BEGIN{print $end - $start}")" "$rc" \
            "$(grep -m1 '^verdict' "$OUT/speed-$shape.log")" >>"$OUT/speed.tsv"
    done
    start=$(date +%s.%N)
    "$py" -c 'import torch; torch.cuda.init()' >/dev/null 2>&1
    end=$(date +%s.%N)
    printf 'python_import_torch\t%s\t%.2f\t0\t\n' "$round" "$(awk "BEGIN{print $end - $start}")" >>"$OUT/speed.tsv"
done
cat "$OUT/speed.tsv"
