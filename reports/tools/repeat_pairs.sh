#!/usr/bin/env bash
# Diffs every pair of committed repeat runs from one machine and writes the table
# reports/examples/repeat-pairs.md: the evidence that an unchanged node diffs to "no regression".
#   reports/tools/repeat_pairs.sh [build/gpuconform]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exe="${1:-$root/build/gpuconform}"
out="$root/reports/examples/repeat-pairs.md"
cd "$root"
pair() {  # base new
    local verdict rc=0 text
    text="$("$exe" diff "$1" "$2" 2>&1)" || rc=$?
    verdict="$(printf '%s\n' "$text" | sed -n 's/^verdict: //p')"
    printf '| `%s` | `%s` | %s | %s |\n' "$1" "$2" "${verdict:-?}" "$rc"
}
{
    echo "# Repeat runs of one machine, diffed pairwise"
    echo
    echo "Written by \`reports/tools/repeat_pairs.sh\` from the committed samples. Exit status 0 is"
    echo "\"no regression\", 1 \"REGRESSED\" (reports/README.md, \"Exit status\")."
    echo
    echo "| base | new | verdict | exit |"
    echo "|---|---|---|---|"
    for d in reports/samples/ubuntu24.04-h200-2026-11-29 reports/samples/ubuntu24.04-2xh200-2026-11-29; do
        for a in 1 2 3 4 5; do
            for b in 1 2 3 4 5; do
                [ "$a" = "$b" ] || pair "$d/bw-$a.json" "$d/bw-$b.json"
            done
        done
    done
    h=reports/samples/ubuntu24.04-h200-2026-11-29
    h2=reports/samples/ubuntu24.04-2xh200-2026-11-29
    for p in "$h/async-quick.json $h2/async-quick.json" "$h2/async-quick.json $h/async-quick.json" \
             "$h/full.json $h2/full.json" "$h2/full.json $h/full.json"; do
        # shellcheck disable=SC2086
        pair $p
    done
    echo
    echo 'The 2× → 1× rows are REGRESSED by status alone: the second GPU'"'"'s results and the peer checks'
    echo 'stop reporting on a one-GPU node (as they would if a GPU fell off the bus). On the checks both'
    echo 'runs share, no key figure regressed (`gpuconform diff` prints "0 key figures regressed beyond noise").'
    echo 'The concurrent-a/b runs (two runs at once on one GPU, disturbing each other) are left out:'
    echo 'once results carry `disturbance`, such a pair is "could not compare".'
} >"$out"
grep -c '| no regression |' "$out" | sed 's/^/no regression: /'
grep -c '| REGRESSED |' "$out" | sed 's/^/REGRESSED: /' || true
