#!/usr/bin/env bash
# Hostile use of the real executable (ctest label `faults`): signals, pipes, full disks, planted
# links and FIFOs, nonsense options. Each case failed on the code before the hostile-input work (941255c); each line
# says what must hold. Usage: hostile_cli.sh path/to/gpuconform
set -uo pipefail
gc=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect_rc() {  # want, got, what
    if [ "$2" -eq "$1" ]; then ok "$3 (exit $2)"; else bad "$3: exit $2, wanted $1"; fi
}
complete_report() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="gpuconform-report"' "$1" 2>/dev/null; }
quick=("$gc" run --backend sim --layer host --quick --quiet)

# --- files we write are ours alone
echo secret > victim; ln -s victim link.json
"${quick[@]}" --json link.json 2>err; rc=$?
expect_rc 2 $rc "--json at a symbolic link is refused"
grep -q "symbolic link" err && [ "$(cat victim)" = secret ] && ok "  ...with the reason, the link's target untouched" || bad "  ...reason or target: $(cat err)"
grep -q "no checks were run" err && ok "  ...before any check runs" || bad "  ...checks ran first"
mkfifo fifo.json
timeout 10 "${quick[@]}" --json fifo.json 2>err; expect_rc 2 $? "--json at a FIFO is refused, not blocked on"
timeout 10 "${quick[@]}" --json ok.json --junit /dev/null >/dev/null 2>err; expect_rc 2 $? "--junit at a device node is refused"
"${quick[@]}" --json "$(printf 'x%.0s' {1..300}).json" 2>err; expect_rc 2 $? "a file name too long is refused"
"${quick[@]}" --json - > /dev/full 2>err; rc=$?
[ $rc -ne 0 ] && ok "--json - > /dev/full fails (exit $rc)" || bad "--json - > /dev/full exited 0"
"$gc" matrix "$gc" -o /dev/null 2>err >/dev/null; rc=$?
grep -q "device node" err && ok "matrix -o at a device node is refused" || bad "matrix -o /dev/null: exit $rc $(cat err)"

# --- SIGPIPE and SIGHUP never cost the report
"$gc" run --backend sim --layer host,runtime --json piped.json 2>/dev/null | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
[ $rc -lt 128 ] && complete_report piped.json && ok "run | head: no SIGPIPE death (exit $rc), report complete" || bad "run | head: exit $rc"
"$gc" run --backend sim --fault hang --check-timeout 60 --layer host,async --json hup.json >/dev/null 2>&1 & pid=$!
sleep 1.5; kill -HUP $pid; wait $pid; rc=$?
[ $rc -eq 130 ] && complete_report hup.json && ok "SIGHUP ends the run with its report (exit 130)" || bad "SIGHUP: exit $rc"

if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
    # Our own TMPDIR names this run's pytest alone (ctest runs other pytest children meanwhile).
    mkdir -p fw-tmp
    TMPDIR="$work/fw-tmp" "$gc" run --backend sim --layer framework --python /usr/bin/python3 --json fw.json >/dev/null 2>&1 & pid=$!
    sleep 1.5; t0=$(date +%s%N)
    if kill -TERM $pid 2>/dev/null; then
        wait $pid; rc=$?; ms=$((($(date +%s%N) - t0) / 1000000))
        [ $rc -eq 130 ] && [ $ms -lt 1500 ] && complete_report fw.json && ! pgrep -f "$work/fw-tmp" >/dev/null \
            && ok "SIGTERM during pytest: its group ended, report written in ${ms} ms" || bad "SIGTERM during pytest: exit $rc after ${ms} ms"
    else
        wait $pid; echo "skip SIGTERM during pytest: pytest finished within 1.5 s"
    fi
    # pytest started early waits for go while a device check hangs: a stop ends its group too.
    mkdir -p early-tmp
    TMPDIR="$work/early-tmp" "$gc" run --backend sim --fault hang --check-timeout 60 --layer async,framework --framework-start early \
        --python /usr/bin/python3 --json early.json >/dev/null 2>&1 & pid=$!
    sleep 1.5; t0=$(date +%s%N); kill -TERM $pid; wait $pid; rc=$?; ms=$((($(date +%s%N) - t0) / 1000000))
    sleep 0.2
    [ $rc -eq 130 ] && [ $ms -lt 1500 ] && complete_report early.json && ! pgrep -f "$work/early-tmp" >/dev/null \
        && [ -z "$(ls -A early-tmp)" ] \
        && ok "SIGTERM while early pytest waits for go: its group ended, folder removed, report in ${ms} ms" \
        || bad "SIGTERM while early pytest waits: exit $rc after ${ms} ms, left: $(pgrep -af "$work/early-tmp") $(ls -A early-tmp)"
fi

# --- settings that select nothing are bad usage
"${quick[@]}" --device -1 --json d.json >/dev/null 2>&1; expect_rc 2 $? "--device -1"
"${quick[@]}" --only 'async.*' --json d.json >/dev/null 2>&1; expect_rc 2 $? "--only matching nothing in the chosen layers"
GPUCONFORM_MODULE_DIR=/nonexistent "${quick[@]}" --json d.json >/dev/null 2>&1; expect_rc 2 $? "GPUCONFORM_MODULE_DIR that does not exist"
"$gc" selftest --only-fault bogus >/dev/null 2>&1; expect_rc 2 $? "selftest --only-fault bogus"
"${quick[@]}" --check-timeout 1e16 --json d.json >/dev/null 2>&1; expect_rc 2 $? "--check-timeout 1e16"
"${quick[@]}" --check-timeout nan --json d.json >/dev/null 2>&1; expect_rc 2 $? "--check-timeout nan"
"${quick[@]}" --busy-wait inf --json d.json >/dev/null 2>&1; expect_rc 2 $? "--busy-wait inf"

# --- settings files: every key is one a check reads, within its range
printf 'defaults:\n  async.copy.bandwidth: {pinned_min_gpbs: 40}\n' > typo.yaml
"${quick[@]}" --profile typo.yaml --json d.json >/dev/null 2>err; expect_rc 2 $? "a profile key with a typo"
grep -q "typo.yaml:2: defaults.async.copy.bandwidth.pinned_min_gpbs: unknown key (did you mean 'pinned_min_gbps'?)" err \
    && ok "  ...named with file, line and the nearest key" || bad "  ...message: $(cat err)"
printf 'defaults:\n  async.launch.returns_early: {gate_ms: 0}\n' > zero.yaml
"${quick[@]}" --profile zero.yaml --json d.json >/dev/null 2>&1; expect_rc 2 $? "a profile gate_ms of 0"
printf 'defaults:\n  async.peer.copy_bandwidth: {peer_min_gbps: 100}\n' > optional.yaml
"${quick[@]}" --profile optional.yaml --json d.json >/dev/null 2>&1; rc=$?
[ $rc -le 1 ] && ok "a key read only when set (peer_min_gbps) is accepted (exit $rc)" || bad "peer_min_gbps refused: exit $rc"
printf 'measurements:\n  - {match: x, tolerence: 0.1}\n' > tol.yaml
"$gc" diff d.json d.json --tolerances tol.yaml >/dev/null 2>err; expect_rc 2 $? "diff --tolerances with a typo'd key"
grep -q "did you mean 'tolerance'" err && ok "  ...with the nearest key" || bad "  ...message: $(cat err)"

# --- a report whose folder disappears during the run is kept elsewhere, and the run fails
mkdir gone
TMPDIR=$work "$gc" run --backend sim --fault hang --check-timeout 3 --layer async --only async.launch.returns_early \
    --quiet --json gone/r.json >/dev/null 2>err & pid=$!
sleep 1; rm -rf gone; wait $pid; rc=$?
kept=$(sed -n 's/.*the report was written to \(.*\) instead.*/\1/p' err)
[ $rc -eq 2 ] && [ -n "$kept" ] && complete_report "$kept" && ok "folder removed during the run: exit 2, report kept at ${kept#$work/}" \
    || bad "folder removed during the run: exit $rc, $(cat err)"

# --- hostile report files
"${quick[@]}" --json good.json >/dev/null 2>&1
mkdir fleet; cp good.json fleet/
python3 - <<'PY'
import json
d = json.load(open("good.json"))
del d["results"][0]["id"]; d["run"]["id"] = "noid"
json.dump(d, open("fleet/noid.json", "w"))
PY
printf '%s' "$(printf '[%.0s' {1..50000})" > fleet/deep.json
mkfifo fleet/pipe.json; ln -s ../fleet fleet/loop; ln -s loop2 fleet/loop1.json; ln -s loop1.json fleet/loop2
for f in terminal markdown csv json junit prometheus html; do
    timeout 20 "$gc" matrix fleet -f "$f" >/dev/null 2>err; rc=$?
    [ $rc -eq 3 ] && grep -q noid.json err && grep -q pipe.json err && grep -q deep.json err \
        && ok "matrix -f $f: bad files named, the rest rolled up (exit 3)" || bad "matrix -f $f: exit $rc"
done
for f in noid deep pipe; do
    timeout 10 "$gc" render "fleet/$f.json" -f html >/dev/null 2>&1; expect_rc 2 $? "render $f.json"
done
timeout 10 "$gc" render fleet >/dev/null 2>err; expect_rc 2 $? "render given a folder"

echo "$fails failed"
[ $fails -eq 0 ]
