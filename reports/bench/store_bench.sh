#!/usr/bin/env bash
# Times the results store (probes/store/) on generated nightly histories: ingest into SQLite and
# PostgreSQL (a throw-away cluster, native_tests/store/pg_cluster.sh), the last night's matrix over
# the big night, one node's drift over its history, the baselines over everything, the store's size.
#   reports/bench/store_bench.sh BUILD_DIR [NODES NIGHTS BIG_NIGHT]   (default 1000 90 10000)
# Generates, once under ${BENCH_DIR:-/tmp/gpuconform-store-bench}: NODES nodes' histories of NIGHTS
# nights (every 50th node drifting down 1 % a night), and one night of BIG_NIGHT nodes after them.
# Prints a Markdown table (reports/bench/README.md, "The results store") and leaves the stores there.
set -euo pipefail
build=$(cd "$1" && pwd)
nodes=${2:-1000}
nights=${3:-90}
big=${4:-10000}
here=$(cd "$(dirname "$0")" && pwd)
root=${BENCH_DIR:-/tmp/gpuconform-store-bench}
gc="$build/gpuconform"
gen="$here/../tools/gen_reports.py"
hist="$root/history-$nodes-$nights"
night="$root/night-$big"
mkdir -p "$root"
if [ ! -d "$hist" ]; then
    python3 "$gen" --count "$nodes" --nights "$nights" --drift-every 50 --indent 0 --seed 11 --out "$hist.tmp"
    mv "$hist.tmp" "$hist"
fi
if [ ! -d "$night" ]; then
    # One night of many nodes, the night after the histories end.
    python3 "$gen" --count "$big" --nights 1 --indent 0 --seed 12 --out "$night.tmp"
    python3 - "$night.tmp" "$nights" <<'PY'
import datetime, json, os, sys
folder, nights = sys.argv[1], int(sys.argv[2])
day = (datetime.date(2026, 9, 1) + datetime.timedelta(days=nights)).isoformat()
for dirpath, _, files in os.walk(folder):
    for name in files:
        path = os.path.join(dirpath, name)
        doc = json.load(open(path))
        doc["run"]["id"] = doc["run"]["id"].replace("-n000", "-big")
        doc["run"]["started"] = f"{day}T02:00:00Z"
        doc["run"]["finished"] = f"{day}T02:01:00Z"
        doc["environment"]["hostname"] = "big-" + doc["environment"]["hostname"]
        json.dump(doc, open(path, "w"))
PY
    mv "$night.tmp" "$night"
fi
reports_hist=$(find "$hist" -name '*.json' | wc -l)
reports_big=$(find "$night" -name '*.json' | wc -l)
find "$hist" "$night" -name '*.json' -exec cat {} + >/dev/null  # warm the page cache
# seconds COMMAND...: the wall time of one run, its output discarded; exits on failure except 1
# (a view or judgement that found something).
seconds() {
    local t0 t1 rc=0
    t0=$EPOCHREALTIME
    "$@" >/dev/null 2>"$root/last.err" || rc=$?
    t1=$EPOCHREALTIME
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
        echo "store_bench: $* exited $rc: $(tail -3 "$root/last.err")" >&2
        exit 1
    fi
    awk "BEGIN{printf \"%.2f\", $t1 - $t0}"
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
# One node's drift: a drifting one (every 50th) when the fleet has one, else the first.
host=$( (find "$hist/night-000" -name '*49.json'; find "$hist/night-000" -name '*.json' | sort) | sed -n 1p)
host=$(basename "$host" .json)
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
bench_engine() {  # engine store
    local engine=$1 store=$2 t a b c
    t=$(seconds "$gc" store ingest -q --store "$store" "$hist")
    row "$engine" "ingest $reports_hist reports (history)" "$t s, $(awk "BEGIN{printf \"%.0f\", $reports_hist / $t}") reports/s"
    t=$(seconds "$gc" store ingest -q --store "$store" "$night")
    row "$engine" "ingest $reports_big reports (one night)" "$t s, $(awk "BEGIN{printf \"%.0f\", $reports_big / $t}") reports/s"
    t=$(seconds "$gc" store ingest -q --store "$store" "$night")
    row "$engine" "the same night again (every run already stored)" "$t s"
    a=$(seconds "$gc" matrix --store "$store" --last-night); b=$(seconds "$gc" matrix --store "$store" --last-night)
    c=$(seconds "$gc" matrix --store "$store" --last-night)
    row "$engine" "\`matrix --last-night\` ($big nodes), median of 3" "$(median3 "$a" "$b" "$c") s"
    a=$(seconds "$gc" store drift --store "$store" --host "$host" --nights "$nights")
    b=$(seconds "$gc" store drift --store "$store" --host "$host" --nights "$nights")
    c=$(seconds "$gc" store drift --store "$store" --host "$host" --nights "$nights")
    row "$engine" "\`store drift --host\` (one node, $nights nights), median of 3" "$(median3 "$a" "$b" "$c") s"
    t=$(seconds "$gc" store baselines --store "$store")
    row "$engine" "\`store baselines\` over $((reports_hist + reports_big)) reports" "$t s"
}
echo "| engine | what | measured |"
echo "|---|---|---|"
sqlite="$root/store.sqlite"
rm -f "$sqlite" "$sqlite-wal" "$sqlite-shm"
bench_engine SQLite "$sqlite"
row SQLite "size on disk" "$(du -sh "$sqlite" | cut -f1) ($(du -sh "$hist" "$night" | awk '{s=s $1 " "} END{print s}')of report files)"
# shellcheck source=../../native_tests/store/pg_cluster.sh
. "$here/../../native_tests/store/pg_cluster.sh"
if pg_cluster_start; then
    bench_engine PostgreSQL "$PG_CONNINFO"
    size=$(pg_cluster_as "$PG_BIN/psql" -h "$PG_DIR" -U gpuconform -d postgres -Atc \
        "SELECT pg_size_pretty(pg_database_size('postgres'))" 2>/dev/null || echo "?")
    row PostgreSQL "size on disk (pg_database_size)" "$size"
fi
printf '\n%s nodes x %s nights (%s reports) and one night of %s nodes; %s CPUs, load %s\n' "$nodes" "$nights" \
    "$reports_hist" "$big" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
