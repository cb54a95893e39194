#!/usr/bin/env bash
# The Slurm integration against a real one-node cluster on this machine: munged, slurmctld and
# slurmd from Debian's slurm-wlm and munge, a generated slurm.conf with a node that has a GRES of
# two GPUs (the simulated backend's devices), and slurmd itself running our HealthCheckProgram.
#   1. healthy simulated node             -> stays IDLE
#   2. checks that end in error (crash)   -> stays IDLE: an inconclusive run never drains
#   3. an injected fault on GPU 1         -> DRAIN, reason "gpuconform: <check> sim:1: ..."
#   4. the fault removed                  -> resumed (IDLE; no reason, or "gpuconform: resumed: ...")
#   5. a node drained by an admin         -> the health check leaves it drained, reason untouched;
#      also one drained with the note our resume leaves (as Slurm's own drains keep it)
#   6. gpuconform-nightly                 -> one job per node, the roll-up lands (matrix, diff)
# `scontrol show node` is logged at every step. Every daemon started here is stopped on exit.
# usage: ci/slurm/test-slurm.sh [BUILD_DIR]   (default ./build; needs BUILD_DIR/gpuconform)
# Exit 0 pass, 1 fail, 77 skip (slurm-wlm or munge not installed).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
gpuconform="$build/gpuconform"
[ -x "$gpuconform" ] || { echo "test-slurm: no $gpuconform (build it first)"; exit 1; }
for tool in munged slurmctld slurmd scontrol sbatch sinfo; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || {
        echo "test-slurm: SKIPPED: $tool not installed (apt-get install slurm-wlm munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "test-slurm: SKIPPED: slurmd must run as root here"; exit 77; }
export PATH="$PATH:/usr/sbin"
# ctest shows a passing test's output only with -V: keep the step log beside the build too.
exec > >(tee "$build/test-slurm.log") 2>&1

work=$(mktemp -d /tmp/gpuconform-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    local rc=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$rc" -ne 0 ]; then
        echo "---- test-slurm failed (rc $rc); daemon logs:"
        tail -n 30 "$work"/*.log 2>/dev/null || true
        [ -z "${GPUCONFORM_SLURM_KEEP:-}" ] || { cp -r "$work" "$GPUCONFORM_SLURM_KEEP"; }
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
node=gcnode1
mkdir -p "$work"/{munge,ctld,reports} "$work/spool/$node"

# munged with its own key and socket, so nothing on this machine is touched.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge.log" --seed-file="$work/munge/seed"
for _ in $(seq 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/munge/munged.pid")")

# The fault the next health checks inject, with a generation number: slurmd may start a check
# before the previous one ended, so each run records the generation it ran with when it is done.
gen=0
echo "0 " > "$work/fault"
cat > "$work/healthcheck" <<EOF
#!/bin/sh
read -r gen fault < "$work/fault"
set -- --backend sim --sim-devices 2
[ -n "\$fault" ] && set -- "\$@" --fault "\$fault"
SCONTROL=$(command -v scontrol) GPUCONFORM="$gpuconform" SLURM_CONF="$work/slurm.conf" \
    "$root/ci/slurm/gpuconform-healthcheck" --node $node --report "$work/healthcheck-\$gen.json" \
    --costs "$work/healthcheck-costs.json" -- "\$@" \
    >>"$work/healthcheck.log" 2>&1
echo "\$gen" >> "$work/runs"
EOF
chmod 755 "$work/healthcheck"

cat > "$work/slurm.conf" <<EOF
ClusterName=gpuconformtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
GresTypes=gpu
PropagateResourceLimitsExcept=MEMLOCK
HealthCheckProgram=$work/healthcheck
HealthCheckInterval=2
HealthCheckNodeState=ANY
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 Gres=gpu:2 State=UNKNOWN
PartitionName=gpu Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Two GPU entries: Slurm 22.05 counts a GPU GRES by its File= lines (Count= alone registers 0).
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$node" "$node" > "$work/gres.conf"
export SLURM_CONF="$work/slurm.conf"

slurmctld -i -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmctld.pid")")
slurmd -N "$node" -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/slurmd-$node.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/slurmd-$node.pid")")

show() { echo "---- scontrol show node ($1)"; scontrol show node "$node" | sed -n '/State=\|Reason=\|Gres=/p'; }
node_state() { scontrol show node "$node" | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }
node_reason() { scontrol show node "$node" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p'; }
# Waits (up to $2 s) until the node's state matches the pattern $1.
wait_state() {
    local pattern=$1 limit=$2 t=0
    while [ "$t" -lt "$((limit * 10))" ]; do
        # shellcheck disable=SC2053
        [[ "$(node_state)" == $pattern ]] && return 0
        sleep 0.1; t=$((t + 1))
    done
    echo "test-slurm: node state $(node_state), expected $pattern within ${limit}s"; return 1
}
set_fault() { gen=$((gen + 1)); echo "$gen $1" > "$work/fault"; }
# Waits until two health checks that started with the current fault have ended: the node's state
# after them is the steady one. Their report is $work/healthcheck-$gen.json.
wait_runs() {
    local t=0
    while [ "$(grep -cx "$gen" "$work/runs" 2>/dev/null)" -lt 2 ] && [ "$t" -lt 1800 ]; do
        sleep 0.1; t=$((t + 1))
    done
    [ "$(grep -cx "$gen" "$work/runs" 2>/dev/null)" -ge 2 ] || {
        echo "test-slurm: slurmd ran fewer than two health checks in 180 s"; return 1; }
}
failures=0
expect() {    # expect WHAT CONDITION...
    local what=$1; shift
    if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}

wait_state "IDLE*" 30
show "started"

echo "==== 1. healthy simulated node"
set_fault ""
wait_runs
show "after healthy health checks"
expect "a healthy node stays IDLE" test "$(node_state)" = IDLE
expect "the health check kept a passing report" python3 -c \
    'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not any(x["status"]=="pass" and x["layer"]=="async" for x in r["results"]))' \
    "$work/healthcheck-$gen.json"

echo "==== 2. an inconclusive run: the runtime crashes in every device check (error, not fail)"
set_fault crash
wait_runs
show "after health checks that could not judge"
expect "an inconclusive node is not drained" test "$(node_state)" = IDLE
expect "the report held errors, so this step tested something" python3 -c \
    'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not any(x["status"]=="error" for x in r["results"]))' \
    "$work/healthcheck-$gen.json"

echo "==== 3. injected fault on GPU 1: pinned copies that block"
set_fault pinned_copy_blocks@1
wait_runs
show "after the fault"
expect "the failing node is drained" bash -c "[[ '$(node_state)' == *DRAIN* ]]"
reason=$(node_reason)
echo "reason: $reason"
expect "the reason is ours and names the check and device" \
    bash -c "[[ '$reason' == 'gpuconform: async.copy.pinned_returns_early sim:1: '* ]]"

echo "==== 4. fault removed"
set_fault ""
wait_runs
show "after the fault was removed"
expect "the node we drained is resumed" test "$(node_state)" = IDLE
reason=$(node_reason)
echo "reason: $reason"
# Slurm 22.05 drops the reason on a resume; 24.11 keeps the last one, which then says "resumed".
expect "no failure reason of ours stays" bash -c "[[ -z '$reason' || '$reason' == 'gpuconform: resumed: '* ]]"

echo "==== 5. a node drained by someone else is not ours to resume"
scontrol update NodeName="$node" State=DRAIN Reason="admin: replacing a fan"
set_fault ""
wait_runs
show "after health checks on an admin-drained node"
expect "it stays drained" bash -c "[[ '$(node_state)' == *DRAIN* ]]"
expect "with the admin's reason" test "$(node_reason)" = "admin: replacing a fan"
scontrol update NodeName="$node" State=RESUME
wait_state "IDLE" 10

echo "==== 5b. a drain by Slurm itself keeps the reason our resume left: still not ours"
# slurmctld's own drains (a failed epilog, a killed task) keep an existing reason, as an admin's
# drain with that text does here.
scontrol update NodeName="$node" State=DRAIN Reason="gpuconform: resumed: the checks pass again"
set_fault ""
wait_runs
show "after health checks on a node drained with our resume note"
expect "it stays drained" bash -c "[[ '$(node_state)' == *DRAIN* ]]"
scontrol update NodeName="$node" State=RESUME
wait_state "IDLE" 10

echo "==== 6. nightly submission and its roll-up"
# A previous night to diff against: the same node's report from the health check's run.
mkdir -p "$work/reports/2000-01-01"
"$gpuconform" run --backend sim --sim-devices 2 --layer host,runtime,async --quick --quiet \
    --json "$work/reports/2000-01-01/$node.json" >/dev/null || true
# Submitted from a shell whose memlock limit is 64 KiB: the job must see the node's own limit.
node_memlock_kib=$(ulimit -l)
(ulimit -l 64; GPUCONFORM="$gpuconform" "$root/ci/slurm/gpuconform-nightly" --partition gpu \
    --reports "$work/reports" -- --backend sim --sim-devices 2 --layer host,runtime,async)
night="$work/reports/$(date -u +%F)"
for _ in $(seq 2400); do
    [ -s "$night/rollup.log" ] && ! squeue -h | grep -q . && break
    sleep 0.1
done
squeue || true
show "after the nightly jobs"
ls -l "$night" || true
cat "$night/rollup.log" 2>/dev/null || true
expect "the node job wrote its report" test -s "$night/$node.json"
expect "and its JUnit XML" test -s "$night/$node.xml"
expect "the roll-up wrote the HTML matrix" grep -q "<html" "$night/matrix.html"
expect "and the Markdown matrix, by host" grep -q "$(hostname)" "$night/matrix.md"
expect "and the diff against the previous night" bash -c "test -s '$night/diff.md' && ! grep -q 'nothing to diff' '$night/diff.md'"
expect "the job saw the node's memlock limit ($node_memlock_kib KiB), not the submitter's 64 KiB" python3 -c \
    'import json,sys; l=json.load(open(sys.argv[1]))["environment"]["limits"]["memlock_soft_bytes"]; w=sys.argv[2]; sys.exit(not (l != 65536 and (w == "unlimited" or l == int(w) * 1024)))' \
    "$night/$node.json" "$node_memlock_kib"
expect "the node is IDLE again" test "$(node_state)" = IDLE

echo "test-slurm: $failures step checks failed"
echo "test-slurm: $((failures == 0 ? 1 : 0)) passed, $((failures != 0 ? 1 : 0)) failed"
[ "$failures" -eq 0 ]
