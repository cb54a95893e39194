#!/usr/bin/env bash
# gpuconform's textfile read the way a site reads it: Debian's prometheus-node-exporter with only
# its textfile collector, pointed at a scratch folder, and Debian's prometheus scraping it on
# localhost with the shipped alert rules loaded (their `for:` shortened to seconds). Both are
# started here on free ports and stopped on every exit path.
#   1. the H200 sample report's textfile: every query of the shipped Grafana dashboard returns
#      series (the dashboard names only metrics the exporter writes)
#   2. a healthy simulated nightly run (packaging/nightly, the service's own script): its series
#      are scraped, no GpuconformCheckFailing alert
#   3. the same with a fault on GPU 1: the alert fires, naming the check and the device
#   4. healthy again: the alert resolves
# usage: ci/monitoring/test-prometheus.sh BUILD_DIR    Exit 0 pass, 1 fail, 77 skip (tools missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
gpuconform="$build/gpuconform"
[ -x "$gpuconform" ] || { echo "test-prometheus: no $gpuconform (build it first)"; exit 1; }
for tool in prometheus prometheus-node-exporter python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "test-prometheus: SKIPPED: $tool not installed (apt-get install prometheus prometheus-node-exporter)"; exit 77; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuconform-prometheus.XXXXXX")
pids=()
cleanup() {
    local rc=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$rc" -ne 0 ]; then
        echo "---- test-prometheus failed (rc $rc); logs:"
        tail -n 20 "$work"/*.log 2>/dev/null || true
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ne_port=$(free_port)
prom_port=$(free_port)
mkdir -p "$work/textfile" "$work/state" "$work/tsdb"

prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$work/textfile" >"$work/node-exporter.log" 2>&1 &
pids+=($!)

# The shipped rules with every `for:` shortened: the test watches them fire and resolve in seconds.
sed -E 's/^( *for: ).*/\13s/' "$root/packaging/monitoring/gpuconform-rules.yml" >"$work/rules.yml"
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ["$work/rules.yml"]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:$ne_port"]}]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)

api="http://127.0.0.1:$prom_port"
# promql EXPR -> the number of series the expression returns now (instant query).
promql() {
    python3 - "$api" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
body = json.load(urllib.request.urlopen(url, timeout=10))
if body["status"] != "success":
    sys.exit(f"query failed: {body}")
print(len(body["data"]["result"]))
PY
}
# wait_for WHAT SECONDS COMMAND...: polls COMMAND until it succeeds (no wall-clock assertion
# beyond a generous limit: the machine may be busy).
wait_for() {
    local what=$1 limit=$2 start=$SECONDS; shift 2
    until "$@" >/dev/null 2>&1; do
        [ "$((SECONDS - start))" -lt "$limit" ] || { echo "FAILED: $what (not within ${limit}s)"; return 1; }
        sleep 0.5
    done
    echo "ok: $what (after $((SECONDS - start))s)"
}
has_series() { [ "$(promql "$1")" -gt 0 ]; }
no_series() { [ "$(promql "$1")" -eq 0 ]; }
wait_for "prometheus is ready" 60 python3 -c "import urllib.request; urllib.request.urlopen('$api/-/ready', timeout=2)"
wait_for "node_exporter is scraped" 60 has_series 'up{job="node"} == 1'

# The node's textfile is replaced whole, as the nightly script does (temporary file and rename).
put_textfile() { cp "$1" "$work/textfile/.gpuconform.prom.tmp" && mv -f "$work/textfile/.gpuconform.prom.tmp" "$work/textfile/gpuconform.prom"; }

echo "==== 1. the H200 sample's textfile and the dashboard's queries"
sample="$root/reports/samples/ubuntu24.04-h200-2026-12-02-health/full.json"
"$gpuconform" render "$sample" --format prometheus --output "$work/h200.prom"
put_textfile "$work/h200.prom"
wait_for "the H200 run's status series are scraped" 60 has_series 'gpuconform_check_status{check="async.copy.bandwidth",device="cuda:0",status="pass"} == 1'
wait_for "the H200 run's bandwidth is one metric with labels" 30 has_series \
    'gpuconform_bandwidth_bytes_per_second{check="async.copy.bandwidth",memory="pinned",direction="h2d",size="256MiB"} > 1e10'
# Every query of the dashboard, with its variables at their "All" value.
python3 - "$root/packaging/monitoring/grafana/gpuconform.json" >"$work/queries.txt" <<'PY'
import json, sys
for panel in json.load(open(sys.argv[1]))["panels"]:
    for target in panel.get("targets", []):
        print(target["expr"].replace("$instance", ".+"))
PY
[ -s "$work/queries.txt" ] || { echo "FAILED: the dashboard has no queries"; exit 1; }
dashboard_failures=0
while IFS= read -r query; do
    if has_series "$query"; then echo "ok: dashboard query answered: $query"; else
        echo "FAILED: dashboard query returned nothing: $query"; dashboard_failures=$((dashboard_failures + 1)); fi
done <"$work/queries.txt"
[ "$dashboard_failures" -eq 0 ]

# A nightly run through the service's own script: report, then textfile by temporary file and rename.
nightly() {
    local fault=$1 options
    options="--backend sim --sim-devices 2 --quick --framework-start late --only host.*,runtime.*,health.*,async.launch.returns_early,async.copy.pinned_returns_early"
    [ -z "$fault" ] || options="$options --fault $fault"
    rm -f "$work/state"/*.json
    local rc=0
    GPUCONFORM="$gpuconform" STATE_DIRECTORY="$work/state" GPUCONFORM_TEXTFILE_DIR="$work/textfile" \
        GPUCONFORM_OPTIONS="$options" sh "$root/packaging/nightly" >"$work/nightly.log" 2>&1 || rc=$?
    echo "nightly run (fault: ${fault:-none}) exit $rc"
    [ -s "$work/textfile/gpuconform.prom" ] || { echo "FAILED: the nightly run wrote no textfile"; cat "$work/nightly.log"; return 1; }
}
firing='ALERTS{alertname="GpuconformCheckFailing",alertstate="firing"}'

echo "==== 2. a healthy simulated run"
nightly ""
wait_for "the simulated run's series are scraped" 60 has_series 'gpuconform_check_status{check="async.copy.pinned_returns_early",device="sim:1",status="pass"} == 1'
wait_for "its launch call time is in seconds with the check as a label" 30 has_series \
    'gpuconform_launch_call_seconds{check="async.launch.returns_early",device="sim:0"} < 1'
sleep 6  # two `for:` periods: a wrongly firing rule would be firing by now
no_series "$firing" && echo "ok: no check-failing alert on a healthy node" || { echo "FAILED: alert on a healthy node"; exit 1; }

echo "==== 3. the fault: pinned copies on GPU 1 block"
nightly pinned_copy_blocks@1
wait_for "GpuconformCheckFailing fires for async.copy.pinned_returns_early on sim:1" 90 has_series \
    "${firing%\}},check=\"async.copy.pinned_returns_early\",device=\"sim:1\"}"
no_series "${firing%\}},device=\"sim:0\"}" && echo "ok: the healthy GPU 0 raises no alert" || {
    echo "FAILED: an alert on GPU 0"; exit 1; }

echo "==== 4. healthy again"
nightly ""
wait_for "the alert resolves" 90 no_series "$firing"
echo "test-prometheus: all steps passed"
