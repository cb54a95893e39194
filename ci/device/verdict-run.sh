#!/usr/bin/env bash
# On a GPU node: the verdict line and its causes on idle, busy and faulted runs. Expects a built tree
# at build/ (CUDA on) and python3 with a CUDA torch. Writes $OUT/verdict-run.tar.gz:
#   idle-NN.json            IDLE (default 10) fresh full runs; every ordered pair diffed (pairs.md)
#   sanitizer.json/.log     the async checks under compute-sanitizer memcheck: the tool named
#   hidden.json/.log        CUDA_VISIBLE_DEVICES= : one cause, the torch results in it
#   tmpdir.json/.log        TMPDIR=/nonexistent, every layer: no error
set -u
OUT=${OUT:-$PWD/verdict-out}
IDLE=${IDLE:-10}
work=$(mktemp -d)
mkdir -p "$OUT"
gc=$PWD/build/gpuconform
log() { echo "== $*" | tee -a "$work/run.log"; }
pack() { tar -czf "$OUT/verdict-run.tar.gz" -C "$work" .; }
for i in $(seq -w 1 "$IDLE"); do
    $gc run --quiet --json "$work/idle-$i.json" > "$work/idle-$i.log" 2>&1
    log "idle-$i rc=$? $(tail -n 1 "$work/idle-$i.log")"
done
{
    echo "| base | new | verdict | exit |"
    echo "|---|---|---|---|"
    for a in "$work"/idle-*.json; do
        for b in "$work"/idle-*.json; do
            [ "$a" = "$b" ] && continue
            rc=0
            out=$($gc diff "$a" "$b" 2>&1) || rc=$?
            echo "| $(basename "$a" .json) | $(basename "$b" .json) | $(echo "$out" | sed -n 's/^verdict: //p') | $rc |"
        done
    done
} > "$work/pairs.md"
log "pairs: $(grep -c '| 0 |$' "$work/pairs.md") of $(( $(wc -l < "$work/pairs.md") - 2 )) exit 0"
pack
CUDA_VISIBLE_DEVICES= $gc run --json "$work/hidden.json" > "$work/hidden.log" 2>&1; log "hidden rc=$?"
TMPDIR=/nonexistent $gc run --json "$work/tmpdir.json" > "$work/tmpdir.log" 2>&1; log "tmpdir rc=$?"
pack
if command -v compute-sanitizer >/dev/null 2>&1; then
    timeout 150 compute-sanitizer --tool memcheck $gc run --layer host,async --quick \
        --only 'host.env,async.stream.*,async.overlap.*,async.launch.*' --json "$work/sanitizer.json" \
        > "$work/sanitizer.log" 2>&1
    log "sanitizer rc=$?"
fi
pack
cat "$work/run.log"
