#!/usr/bin/env bash
# The Slurm integration against a real multi-node cluster made on this machine: a controller and
# three compute hosts, each a set of Linux namespaces of its own (network, UTS, mount) with its own
# hostname, its own address on a bridge the test creates (10.213.0.0/24, seen only inside these
# namespaces: the machine's own network is not touched), its own /etc/hosts and its own munged
# (one shared key, as on a real cluster). slurmctld and three slurmd from Debian's slurm-wlm;
# every node has a GRES of two simulated GPUs; slurmd runs our HealthCheckProgram and Prolog.
#   1. healthy                          -> every node IDLE
#   2. a fault on GPU 1 of gcn2         -> gcn2 DRAIN, reason names the check and sim:1; others IDLE
#   3. the fault removed                -> gcn2 resumed, no failure reason left
#   4. gpuconform-nightly               -> a job on every node (each report from its own host),
#                                          the afterany roll-up holds every node's report
#   5. a fault only the prolog sees     -> the job's prolog on gcn1 drains gcn1, the job is
#                                          requeued and runs on another node
#   6. faults on every node (breaker)   -> at most floor(share x 3) = 1 node drained; the others
#                                          say "not drained: breaker" in their Comment and log
# The node states (sinfo) are logged at every step; the time of every step and of the whole test
# is printed. Every daemon and namespace is stopped on every exit path.
# usage: ci/slurm/test-slurm-cluster.sh [BUILD_DIR]   (default ./build; needs BUILD_DIR/gpuconform)
# Exit 0 pass, 1 fail, 77 skip (slurm-wlm, munge, unshare or ip missing, or not root).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
gpuconform="$build/gpuconform"
[ -x "$gpuconform" ] || { echo "test-slurm-cluster: no $gpuconform (build it first)"; exit 1; }
export PATH="$PATH:/usr/sbin:/sbin"
for tool in munged slurmctld slurmd scontrol sbatch sinfo squeue unshare nsenter ip; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "test-slurm-cluster: SKIPPED: $tool not installed (apt-get install slurm-wlm munge iproute2)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "test-slurm-cluster: SKIPPED: needs root (namespaces, slurmd)"; exit 77; }
unshare --net --uts --mount true 2>/dev/null || {
    echo "test-slurm-cluster: SKIPPED: cannot create namespaces here (unshare --net --uts --mount)"; exit 77; }
exec > >(tee "$build/test-slurm-cluster.log") 2>&1
started=$(date +%s)

work=$(mktemp -d /tmp/gpuconform-cluster.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/local" "$work/reports"
declare -A hostpid=()
daemons=()
cleanup() {
    local rc=$?
    set +e
    trap '' PIPE INT TERM    # neither a log reader gone nor a second signal stops the cleanup
    for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${daemons[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    # Whatever else runs inside our namespaces (job steps, health checks): ours, ended by pid.
    local ns pid
    for h in "${!hostpid[@]}"; do
        ns=$(readlink "/proc/${hostpid[$h]}/ns/net") || continue
        for pid in $(find /proc/[0-9]*/ns/net -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
                     awk -v ns="$ns" '$2 == ns { split($1, p, "/"); print p[3] }'); do
            [ "$pid" = "${hostpid[$h]}" ] || kill -9 "$pid" 2>/dev/null
        done
        kill -9 "${hostpid[$h]}" 2>/dev/null    # the last process: its namespaces go with it
    done
    if [ "$rc" -ne 0 ]; then
        echo "---- test-slurm-cluster failed (rc $rc); daemon logs:"
        tail -n 20 "$work"/hosts/*/*.log 2>/dev/null
        [ -z "${GPUCONFORM_SLURM_KEEP:-}" ] || cp -r "$work" "$GPUCONFORM_SLURM_KEEP"
    fi
    rm -rf "$work"
    echo "test-slurm-cluster: took $(( $(date +%s) - started )) s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ctl=gcctl
nodes=(gcn1 gcn2 gcn3)
declare -A addr=([gcctl]=10.213.0.1 [gcn1]=10.213.0.11 [gcn2]=10.213.0.12 [gcn3]=10.213.0.13)
for h in "$ctl" "${nodes[@]}"; do echo "${addr[$h]} $h"; done > "$work/etc-hosts"
echo "127.0.0.1 localhost" >> "$work/etc-hosts"

# A host: a process holding new network, UTS and mount namespaces, with its hostname, /etc/hosts
# and its own folder mounted on $work/local (munge socket, spool, logs, the fault it sees).
start_host() {
    local name=$1
    mkdir -p "$work/hosts/$name"
    unshare --net --uts --mount sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts &&
        mount --bind "$3" "$4" && touch "$4/ready" && exec sleep infinity' \
        sh "$name" "$work/etc-hosts" "$work/hosts/$name" "$work/local" &
    hostpid[$name]=$!
    disown "$!"    # ended by cleanup; no job-control notice
    for _ in $(seq 100); do [ -e "$work/hosts/$name/ready" ] && return 0; sleep 0.05; done
    echo "test-slurm-cluster: host $name did not come up"; return 1
}
on() { local h=$1; shift; nsenter -t "${hostpid[$h]}" -n -u -m -- "$@"; }
# The wire: a bridge inside a hub host, one veth pair per host.
start_host hub
on hub ip link add br0 type bridge
on hub ip link set br0 up
i=0
for h in "$ctl" "${nodes[@]}"; do
    start_host "$h"
    i=$((i + 1))
    on hub ip link add "v$i" type veth peer name eth0 netns "${hostpid[$h]}"
    on hub ip link set "v$i" master br0 up
    on "$h" ip link set lo up
    on "$h" ip addr add "${addr[$h]}/24" dev eth0
    on "$h" ip link set eth0 up
done

dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge.key"
for h in "$ctl" "${nodes[@]}"; do
    on "$h" munged --force --key-file="$work/munge.key" --socket="$work/local/munge.socket" \
        --pid-file="$work/local/munged.pid" --log-file="$work/local/munged.log" --seed-file="$work/local/seed"
    for _ in $(seq 50); do [ -s "$work/hosts/$h/munged.pid" ] && break; sleep 0.1; done
    daemons+=("$(cat "$work/hosts/$h/munged.pid")")
done

# What each node's health check and prolog inject: "GEN FAULT [prolog]" in the node's own folder
# (prolog: only the prolog sees it, a fault that appears between two health checks). Each run
# appends the generation it ran with when it is done.
# The checks each node runs: the Slurm glue is under test here, not the simulated device's speed.
# Three nodes' simulated devices at once on a 2-core machine starve each other, so only checks
# whose verdict rests on order and data, not on timing, run (timing_sensitive = false), among them
# the one the fault trips (async.copy.pinned_returns_early).
only="async.copy.pinned_returns_early,async.copy.source_reuse,async.event.cross_stream_order,async.launch.returns_early"
checks="--layer async --only $only"
# The prolog's list has one check more, which the health checks never measure: it must be skipped
# ("no measured cost"), never guessed.
cat > "$work/healthcheck" <<EOF
#!/bin/sh
read -r gen fault scope < "$work/local/fault"
# A fault that appears between two health checks: none runs while it lasts.
[ "\$scope" = prolog ] && { echo "\$gen" >> "$work/local/runs"; exit 0; }
set -- --backend sim --sim-devices 2
[ -n "\$fault" ] && set -- "\$@" --fault "\$fault"
SLURM_CONF="$work/slurm.conf" SCONTROL=$(command -v scontrol) SINFO=$(command -v sinfo) GPUCONFORM="$gpuconform" \
    GPUCONFORM_HEALTHCHECK_ONLY="$only" "$root/ci/slurm/gpuconform-healthcheck" --report "$work/local/healthcheck.json" \
    --costs "$work/local/healthcheck-costs.json" -- "\$@" \
    >>"$work/local/healthcheck.log" 2>&1
echo "\$gen" >> "$work/local/runs"
EOF
cat > "$work/prolog" <<EOF
#!/bin/sh
read -r gen fault scope < "$work/local/fault"
set -- --backend sim --sim-devices 2
[ -n "\$fault" ] && set -- "\$@" --fault "\$fault"
SLURM_CONF="$work/slurm.conf" SCONTROL=$(command -v scontrol) SINFO=$(command -v sinfo) GPUCONFORM="$gpuconform" \
    GPUCONFORM_HEALTHCHECK_ONLY="$only,async.copy.pageable_behaviour" "$root/ci/slurm/gpuconform-healthcheck" --prolog --budget 20 --report "$work/local/prolog.json" \
    --costs "$work/local/healthcheck-costs.json" \
    -- "\$@" >>"$work/local/prolog.log" 2>&1
rc=\$?
echo "job \$SLURM_JOB_ID gen \$gen exit \$rc" >> "$work/local/prologs"
exit \$rc
EOF
chmod 755 "$work/healthcheck" "$work/prolog"
for h in "${nodes[@]}"; do echo "0 " > "$work/hosts/$h/fault"; done

# cred_expire: a requeued job waits this long before it may start again (slurm.conf(5), AuthInfo;
# default 120 s, step 5's requeue). 30 s still covers a credential's trip to slurmd under load.
# sched_interval: once that wait is over, only the main scheduling loop starts the job (nothing else
# happens to trigger it), which runs every 60 s by default (slurm.conf(5), SchedulerParameters).
cat > "$work/slurm.conf" <<EOF
ClusterName=gpuconformcluster
SlurmctldHost=$ctl(${addr[$ctl]})
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/local/munge.socket,cred_expire=30
CredType=cred/munge
StateSaveLocation=$work/local/state
SlurmdSpoolDir=$work/local/spool
SlurmctldPidFile=$work/local/slurmctld.pid
SlurmdPidFile=$work/local/slurmd.pid
SlurmctldLogFile=$work/local/slurmctld.log
SlurmdLogFile=$work/local/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SchedulerParameters=nohold_on_prolog_fail,sched_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
GresTypes=gpu
HealthCheckProgram=$work/healthcheck
HealthCheckInterval=4
HealthCheckNodeState=ANY
Prolog=$work/prolog
SlurmctldTimeout=60
SlurmdTimeout=60
EOF
# gcn1 weighs least: a job that may go anywhere goes there first (step 5).
for h in "${nodes[@]}"; do
    weight=10; [ "$h" = gcn1 ] && weight=1
    echo "NodeName=$h NodeAddr=${addr[$h]} CPUs=2 RealMemory=300 Gres=gpu:2 Weight=$weight State=UNKNOWN"
done >> "$work/slurm.conf"
echo "PartitionName=gpu Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP" >> "$work/slurm.conf"
# Two GPU entries per node: Slurm 22.05 counts a GPU GRES by its File= lines.
printf 'Name=gpu File=/dev/null\nName=gpu File=/dev/zero\n' > "$work/gres.conf"
export SLURM_CONF="$work/slurm.conf"

mkdir -p "$work/hosts/$ctl/state"
on "$ctl" slurmctld -i -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$work/hosts/$ctl/slurmctld.pid" ] && break; sleep 0.1; done
daemons+=("$(cat "$work/hosts/$ctl/slurmctld.pid")")
for h in "${nodes[@]}"; do
    mkdir -p "$work/hosts/$h/spool"
    on "$h" slurmd -f "$SLURM_CONF"    # no -N: slurmd finds its node by its own hostname
    for _ in $(seq 100); do [ -s "$work/hosts/$h/slurmd.pid" ] && break; sleep 0.1; done
    daemons+=("$(cat "$work/hosts/$h/slurmd.pid")")
done

sc() { on "$ctl" "$@"; }    # the test's own Slurm commands, from the controller host
step_started=$started
states() {
    echo "---- node states ($1; step took $(( $(date +%s) - step_started )) s)"
    sc sinfo -N -h -o '%N %T reason="%E"' 2>/dev/null | sort -u || true
    sc scontrol show nodes | sed -n 's/^NodeName=\([^ ]*\).*/\1/p; s/^ *Comment=\(.*\)/  comment: \1/p' |
        paste -sd' ' | sed 's/ \(gcn[0-9]\)/\n\1/g' | grep comment || true
    step_started=$(date +%s)
}
node_state() { sc scontrol show node "$1" | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }
node_reason() { sc scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[[^]]*\]$/\1/p'; }
node_comment() { sc scontrol show node "$1" | sed -n 's/^ *Comment=\(.*\)$/\1/p'; }
wait_until() {    # wait_until LIMIT_S WHAT COMMAND...
    local limit=$1 what=$2 deadline; shift 2
    deadline=$((SECONDS + limit))    # wall clock: a loaded machine makes each try slow
    while [ "$SECONDS" -lt "$deadline" ]; do "$@" && return 0; sleep 0.2; done
    echo "test-slurm-cluster: not within ${limit}s: $what"; return 1
}
gen=0
set_faults() {    # set_faults [NODE="FAULT [prolog]"]...: a new generation; nodes not named: no fault
    local h spec
    gen=$((gen + 1))
    for h in "${nodes[@]}"; do
        spec=""
        for spec in "$@"; do [ "${spec%%=*}" = "$h" ] && break; spec=""; done
        echo "$gen ${spec#*=}" > "$work/hosts/$h/fault"
    done
}
# Two health checks that started with the current faults have ended on every node: the states
# after them are the steady ones.
two_runs_everywhere() {
    local h
    for h in "${nodes[@]}"; do
        [ "$(grep -cx "$gen" "$work/hosts/$h/runs" 2>/dev/null)" -ge 2 ] || return 1
    done
}
failures=0
expect() {    # expect WHAT CONDITION...
    local what=$1; shift
    if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}
is_idle() { [ "$(node_state "$1")" = IDLE ]; }
is_drained() { [[ "$(node_state "$1")" == *DRAIN* ]]; }
all_idle() { local h; for h in "${nodes[@]}"; do is_idle "$h" || return 1; done; }

wait_until 60 "every node IDLE after start" all_idle
states "started"

echo "==== 1. healthy cluster"
set_faults
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after healthy health checks"
for h in "${nodes[@]}"; do expect "$h stays IDLE" is_idle "$h"; done
expect "each node's health check ran on its own host" python3 -c \
    'import json,sys; sys.exit(not all(json.load(open(f"{sys.argv[1]}/hosts/{h}/healthcheck.json"))["environment"]["hostname"].split(".")[0] == h for h in sys.argv[2:]))' \
    "$work" "${nodes[@]}"

echo "==== 2. a fault on GPU 1 of gcn2"
set_faults gcn2=pinned_copy_blocks@1
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after the fault on gcn2"
expect "gcn2 is drained" is_drained gcn2
reason=$(node_reason gcn2)
echo "gcn2 reason: $reason"
expect "its reason is ours and names the check and GPU" \
    bash -c "[[ '$reason' == 'gpuconform: async.copy.pinned_returns_early sim:1: '* ]]"
expect "gcn1 stays IDLE" is_idle gcn1
expect "gcn3 stays IDLE" is_idle gcn3

echo "==== 3. the fault removed"
set_faults
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after the fault was removed"
expect "gcn2 is resumed" is_idle gcn2
reason=$(node_reason gcn2)
expect "no failure reason of ours stays (22.05: none; 24.11: the resume's)" \
    bash -c "[[ -z '$reason' || '$reason' == 'gpuconform: resumed: '* ]]"

echo "==== 4. nightly: a job on every node, then the roll-up"
sc env GPUCONFORM="$gpuconform" "$root/ci/slurm/gpuconform-nightly" --partition gpu \
    --reports "$work/reports" -- --backend sim --sim-devices 2 $checks
night="$work/reports/$(date -u +%F)"
rollup_done() { [ -s "$night/rollup.log" ] && ! sc squeue -h | grep -q .; }
wait_until 300 "the node jobs and the roll-up" rollup_done || sc squeue || true
states "after the nightly jobs"
cat "$night/rollup.log" 2>/dev/null || true
for h in "${nodes[@]}"; do
    expect "$h's job wrote its report from host $h" python3 -c \
        'import json,sys; sys.exit(json.load(open(sys.argv[1]))["environment"]["hostname"].split(".")[0] != sys.argv[2])' \
        "$night/$h.json" "$h"
    expect "the roll-up's matrix holds $h" grep -q "$h" "$night/matrix.md"
done
expect "the roll-up wrote the HTML matrix" grep -q "<html" "$night/matrix.html"

echo "==== 5. a fault only the prolog sees, on gcn1 (the node a job goes to first)"
set_faults gcn1="pinned_copy_blocks prolog"
job=$(sc sbatch --parsable --gres=gpu:2 --output="$work/reports/prolog-job.out" --wrap 'hostname -s')
ran_elsewhere() { [ -s "$work/reports/prolog-job.out" ] && ! sc squeue -h -j "$job" 2>/dev/null | grep -q .; }
wait_until 240 "job $job to end" ran_elsewhere || true
states "after job $job"
cat "$work/hosts/gcn1/prologs" 2>/dev/null || true
expect "gcn1's prolog failed for job $job" grep -q "^job $job gen $gen exit 1" "$work/hosts/gcn1/prologs"
expect "gcn1 is drained" is_drained gcn1
reason=$(node_reason gcn1)
echo "gcn1 reason: $reason"
expect "with our reason naming the check" bash -c "[[ '$reason' == 'gpuconform: async.copy.pinned_returns_early '* ]]"
expect "the job ran on another node" bash -c "ran=\$(cat '$work/reports/prolog-job.out'); [ -n \"\$ran\" ] && [ \"\$ran\" != gcn1 ]"
expect "the prolog wrote what it skipped" grep -q "skipped async.copy.pageable_behaviour: no measured cost" "$work/hosts/gcn1/prolog.log"
set_faults
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after the prolog's fault was removed"
expect "the health check resumed gcn1 (our reason)" is_idle gcn1

echo "==== 6. faults on every node: the breaker (share 0.5 of 3 nodes: at most 1 drained)"
set_faults gcn1=pinned_copy_blocks@0 gcn2=pinned_copy_blocks@0 gcn3=pinned_copy_blocks@0
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after faults on every node"
drained=0
for h in "${nodes[@]}"; do is_drained "$h" && drained=$((drained + 1)); done
expect "exactly one node drained ($drained)" test "$drained" -eq 1
for h in "${nodes[@]}"; do
    is_drained "$h" && continue
    expect "$h says why it is not drained" bash -c "[[ '$(node_comment "$h")' == 'gpuconform: not drained: breaker'* ]]"
    expect "and logs it" grep -q "not drained: breaker" "$work/hosts/$h/healthcheck.log"
done
set_faults
wait_until 240 "two health checks on every node" two_runs_everywhere
states "after the faults were removed"
for h in "${nodes[@]}"; do
    expect "$h is IDLE again" is_idle "$h"
    expect "and its breaker comment is gone" test -z "$(node_comment "$h")"
done

echo "test-slurm-cluster: $failures step checks failed"
echo "test-slurm-cluster: $((failures == 0 ? 1 : 0)) passed, $((failures != 0 ? 1 : 0)) failed"
[ "$failures" -eq 0 ]
