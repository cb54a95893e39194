#!/usr/bin/env bash
# Concurrent runs onto one --json path: each pair of runs writes the same report
# path at the same time. Afterwards the path must hold one complete report (parseable, whole,
# one of the two runs' ids), no temporary file may be left beside it, and each run's exit
# status must be the truth (0: its report was written). Usage:
#   concurrent_writers.sh path/to/gpuconform [pairs, default 600]
set -uo pipefail
gc=$(realpath "$1")
pairs=${2:-600}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
run=("$gc" run --backend sim --layer host --quick --quiet --json same.json)  # --quick: no compile probes
"${run[@]}" >/dev/null 2>&1; expected=$?  # alone: the verdict this node gives (0 or 1)
[ $expected -le 1 ] || { echo "a single run exited $expected"; exit 1; }
start=$(date +%s.%N)
bad=0
for i in $(seq 1 "$pairs"); do
    "${run[@]}" >a.out 2>&1 & a=$!
    "${run[@]}" >b.out 2>&1 & b=$!
    wait $a; ra=$?; wait $b; rb=$?
    # Our own reader: a torn or truncated report is rejected (exit 2).
    if ! "$gc" render same.json -f csv >/dev/null 2>&1; then
        echo "pair $i: same.json is not one complete report"; bad=$((bad + 1))
    fi
    # Both wrote their report, so both give the node's verdict; a lost write would be exit 2.
    for r in $ra $rb; do
        if [ "$r" -ne "$expected" ]; then echo "pair $i: a run exited $r: $(cat a.out b.out)"; bad=$((bad + 1)); fi
    done
    if ls -A | grep -q '\.tmp$'; then echo "pair $i: a temporary file was left: $(ls -A)"; bad=$((bad + 1)); fi
done
end=$(date +%s.%N)
echo "$pairs pairs in $(echo "$end - $start" | bc) s: $bad problems"
[ $bad -eq 0 ]
