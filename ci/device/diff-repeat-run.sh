#!/usr/bin/env bash
# On a GPU node: does `gpuconform diff` call an unchanged node "no regression", and a disturbed
# one "could not compare"? Needs a built tree at build/. Works in a scratch folder and leaves
# table.md and diff-repeat.tar.gz (everything) in $OUT (default ./diff-repeat); the runs:
#   before.json, after.json            async --quick --repeat 5, twice, nothing else on the GPU
#   bw-{1,2,3}.json                    async.copy.bandwidth --repeat 3, three times
#   disturbed.json                     the same while another process copies on GPU 0
#   table.md                           every diff below with its verdict and exit status
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dest="${OUT:-diff-repeat}"
mkdir -p "$dest"
out="$(mktemp -d)"
g=build/gpuconform
"$g" run --layer async --quick --repeat 5 --quiet --json "$out/before.json" > "$out/before.log" 2>&1
"$g" run --layer async --quick --repeat 5 --quiet --json "$out/after.json" > "$out/after.log" 2>&1
for i in 1 2 3; do
    "$g" run --layer async --only async.copy.bandwidth --repeat 3 --quiet --json "$out/bw-$i.json" > /dev/null 2>&1
done
# Another GPU user: torch copying 1 GiB back and forth on GPU 0 for as long as the run lasts.
python3 - > "$out/copier.log" 2>&1 <<'PY' &
import time, torch
a = torch.empty(1 << 30, dtype=torch.uint8, pin_memory=True)
d = torch.empty(1 << 30, dtype=torch.uint8, device="cuda:0")
end = time.time() + 120
while time.time() < end:
    d.copy_(a, non_blocking=True); a.copy_(d, non_blocking=True)
torch.cuda.synchronize()
PY
copier=$!
sleep 5
"$g" run --layer async --only async.copy.bandwidth --repeat 3 --quiet --json "$out/disturbed.json" > "$out/disturbed.log" 2>&1
kill "$copier" 2>/dev/null; wait "$copier" 2>/dev/null
{
    echo "| base | new | verdict | exit |"
    echo "|---|---|---|---|"
    for p in "before after" "after before" "bw-1 bw-2" "bw-2 bw-3" "bw-3 bw-1" "bw-1 disturbed" "bw-2 disturbed"; do
        set -- $p
        rc=0
        "$g" diff --all "$out/$1.json" "$out/$2.json" > "$out/diff-$1-$2.txt" 2>&1 || rc=$?
        echo "| $1 | $2 | $(sed -n 's/^verdict: //p' "$out/diff-$1-$2.txt") | $rc |"
    done
} > "$out/table.md"
cat "$out/table.md"
cp "$out/table.md" "$dest/"
tar -czf "$dest/diff-repeat.tar.gz" -C "$out" .
