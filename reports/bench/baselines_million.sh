#!/usr/bin/env bash
# Times `store baselines` over a million reports' key figures, on SQLite and PostgreSQL, without
# generating a million report files (15.6 GB): the 100,000 reports store_bench.sh ingested are
# stored ten times over under new run ids (each copy's figures and runs rows, the report text
# left empty: baselines read only the figures), then `store baselines` runs three times on each.
#   reports/bench/baselines_million.sh BUILD_DIR   (after reports/bench/store_bench.sh BUILD_DIR)
# Uses ${BENCH_DIR:-/tmp/gpuconform-store-bench}: its store.sqlite and the report folders.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=${BENCH_DIR:-/tmp/gpuconform-store-bench}
gc="$build/gpuconform"
[ -f "$root/store.sqlite" ] || { echo "baselines_million: run store_bench.sh first ($root/store.sqlite)" >&2; exit 2; }
runs_columns="started, host, distro, kernel, driver, runtime, torch, gpu, interrupted, source, ingested"
figures_columns="host, started, gpu, driver_branch, link, profile, check_id, device, name, unit, direction, value"
copies() {  # SQL that stores every original run and its figures once more per copy 1..9
    local k
    for k in 1 2 3 4 5 6 7 8 9; do
        echo "INSERT INTO runs (run_id, $runs_columns, report) SELECT run_id || '-copy$k', $runs_columns, ''" \
             "FROM $1runs WHERE run_id NOT LIKE '%-copy%';"
        echo "INSERT INTO figures (run_id, $figures_columns) SELECT run_id || '-copy$k', $figures_columns" \
             "FROM $1figures WHERE run_id NOT LIKE '%-copy%';"
    done
}
timed() {  # three runs of `store baselines`: seconds and peak memory of each
    local i
    for i in 1 2 3; do
        /usr/bin/time -f "%e s, %M KB" "$gc" store baselines --store "$1" 2>&1 >/dev/null | tail -1
    done
}

million="$root/million.sqlite"
rm -f "$million" "$million-wal" "$million-shm"
cp "$root/store.sqlite" "$million"
/usr/bin/python3 - "$million" "$(copies "")" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(sys.argv[2])
db.commit()
PY
echo "SQLite, $("$gc" store info --store "$million" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"])') runs:"
timed "$million"
rm -f "$million" "$million-wal" "$million-shm"

# shellcheck source=../../native_tests/store/pg_cluster.sh
. "$here/../../native_tests/store/pg_cluster.sh"
if pg_cluster_start; then
    "$gc" store ingest -q --store "$PG_CONNINFO" "$root"/history-* "$root"/night-* >/dev/null
    pg_cluster_as "$PG_BIN/psql" -q -h "$PG_DIR" -U gpuconform -d postgres -c "$(copies "")" -c "VACUUM ANALYZE"
    echo "PostgreSQL, $("$gc" store info --store "$PG_CONNINFO" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"])') runs:"
    timed "$PG_CONNINFO"
fi
echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
