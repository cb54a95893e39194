#!/usr/bin/env bash
# The results store end to end with the real executable and a real database: every committed
# sample report ingested, then `matrix` from the store compared with `matrix` from the same
# files (every format, several groupings, time windows), byte for byte and by exit status, and
# `diff` of two windows of the store against the same reports as two folders.
# Also: ingest is idempotent, a bad report is rejected with nothing of it stored, standard input.
# Usage: store_views.sh GPUCONFORM SAMPLES_DIR sqlite|postgresql
set -uo pipefail
bin="$1" samples="$2" engine="$3"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/gpuconform-store.XXXXXX")"
failures=0

if [ "$engine" = postgresql ]; then
    # shellcheck source=pg_cluster.sh
    . "$here/pg_cluster.sh"
    pg_cluster_start "-c fsync=off"
    rc=$?
    [ $rc = 77 ] && { rm -rf "$work"; exit 0; }  # the skip line is printed; ctest matches it
    [ $rc = 0 ] || { rm -rf "$work"; exit 1; }
    trap 'pg_cluster_stop; rm -rf "$work"' EXIT
    store="$PG_CONNINFO"
else
    trap 'rm -rf "$work"' EXIT
    store="$work/store.sqlite"
fi

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
runs_stored() { "$bin" store info --store "$store" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"])'; }

# How many reports the samples folder holds (JSON objects with a run and results), so a new sample
# needs no edit here.
n_samples="$(/usr/bin/python3 - "$samples" <<'PY'
import glob, json, sys
n = 0
for path in glob.glob(sys.argv[1] + "/**/*.json", recursive=True):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        continue
    n += isinstance(d, dict) and isinstance(d.get("results"), list) and "run" in d
print(n)
PY
)"
# Ingest: every sample stored, then again: every one already there, nothing new.
out="$("$bin" store ingest --store "$store" "$samples" 2>"$work/err")"; rc=$?
expect_eq "$rc" 0 "first ingest exit status"; expect_eq "$out" "stored $n_samples, already stored 0, rejected 0" "first ingest"
out="$("$bin" store ingest --store "$store" "$samples" 2>&1)"; rc=$?
expect_eq "$rc" 0 "second ingest exit status"; expect_eq "$out" "stored 0, already stored $n_samples, rejected 0" "second ingest"
expect_eq "$("$bin" store info --store "$store" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["schema_version"])')" 3 "schema version"
if [ "$engine" = postgresql ]; then
    # Migration 3: the reports compressed with lz4 where the server was built with it (Debian's is).
    lz4="$(pg_cluster_as "$PG_BIN/psql" -h "$PG_DIR" -U gpuconform -d postgres -Atc \
        "SELECT attcompression FROM pg_attribute WHERE attrelid = 'runs'::regclass AND attname = 'report'")"
    if ldd "$PG_BIN/postgres" | grep -q liblz4; then
        expect_eq "$lz4" l "the report column's compression (l: lz4)"
    fi
fi

# The same views from the store as from the files: output and exit status.
same_view() {  # $1: what; then the matrix arguments after the input
    local what="$1"; shift
    local from_files from_store rc_files rc_store
    from_files="$("$bin" matrix "${files[@]}" "$@" 2>"$work/files.err")"; rc_files=$?
    from_store="$("$bin" matrix --store "$store" "${window[@]}" "$@" 2>"$work/store.err")"; rc_store=$?
    [ "$rc_files" = "$rc_store" ] || fail "$what $*: exit status $rc_files from files, $rc_store from the store"
    [ "$from_files" = "$from_store" ] ||
        { fail "$what $*: output differs"; diff <(echo "$from_files") <(echo "$from_store") | head -20; }
    [ -n "$from_files" ] || fail "$what $*: empty output"
}
files=("$samples") window=()
for by in distro,gpu host driver,runtime gpu,kernel; do
    for format in terminal markdown csv json junit html; do
        same_view "all" --by "$by" -f "$format"
    done
done
same_view "all" --only-problems -f markdown

# Windows: the files whose run.started falls in them, chosen here from the reports themselves.
select_files() {  # $1: since, $2: until, $3: last-night (0/1)
    /usr/bin/python3 - "$samples" "$@" <<'PY'
import glob, json, sys, datetime
root, since, until, last = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
runs = []
for p in sorted(glob.glob(root + "/**/*.json", recursive=True)):
    d = json.load(open(p))
    started = d["run"].get("started") or ""
    if started and (not since or started >= since) and (not until or started < until):
        runs.append((started, d["run"]["id"], d["environment"].get("hostname") or "", p))
if last and runs:
    newest = max(r[0] for r in runs)
    t = datetime.datetime.strptime(newest, "%Y-%m-%dT%H:%M:%SZ") - datetime.timedelta(days=1)
    night = [r for r in runs if r[0] >= t.strftime("%Y-%m-%dT%H:%M:%SZ")]
    best = {}
    for r in night:
        if r[2] not in best or r[:2] > best[r[2]][:2]:
            best[r[2]] = r
    runs = list(best.values())
for r in sorted(runs, key=lambda r: r[3]):
    print(r[3])
PY
}
check_window() {  # $1 since, $2 until, $3 last-night
    mapfile -t files < <(select_files "$1" "$2" "$3")
    [ "${#files[@]}" -gt 0 ] || { fail "window '$1'..'$2' last=$3 selects no sample"; return; }
    window=()
    [ -n "$1" ] && window+=(--since "$1")
    [ -n "$2" ] && window+=(--until "$2")
    [ "$3" = 1 ] && window+=(--last-night)
    for by in distro,gpu host; do
        same_view "window ${window[*]} (${#files[@]} reports)" --by "$by" -f json
    done
}
check_window 2026-12-01 "" 0
check_window 2026-11-29 2026-12-01T00:00:00Z 0
check_window "" "" 1
check_window "" 2026-12-01 1
files=("$samples") window=()

# Baselines (a streamed read of every figure): the same from this store as from an SQLite store of
# the same reports, each figure within the text round trip of a double (SQLite renders 15 digits).
"$bin" store ingest -q --store "$work/reference.sqlite" "$samples" >/dev/null 2>&1 || fail "reference ingest"
"$bin" store baselines --store "$store" >"$work/baselines.json" 2>"$work/baselines.err" || fail "store baselines: $(cat "$work/baselines.err")"
"$bin" store baselines --store "$work/reference.sqlite" >"$work/reference.json" 2>&1 || fail "reference baselines"
/usr/bin/python3 - "$work/baselines.json" "$work/reference.json" <<'PY' || fail "baselines differ from the SQLite store's"
import json, math, sys
got, want = (json.load(open(p)) for p in sys.argv[1:3])
assert want and len(got) == len(want), (len(got), len(want))
def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
bad = [(g, w) for g, w in zip(got, want) if not same(g, w)]
assert not bad, bad[:2]
PY

# diff from the store: two windows, each against the same reports as folders of files.
same_diff() {  # $1 base window, $2 new window (FROM..UNTIL)
    local side since until from_files from_store rc_files rc_store
    for side in base new; do
        rm -rf "${work:?}/$side"; mkdir -p "$work/$side"
        [ "$side" = base ] && { since="${1%%..*}"; until="${1#*..}"; } || { since="${2%%..*}"; until="${2#*..}"; }
        mapfile -t picked < <(select_files "$since" "$until" 0)
        [ "${#picked[@]}" -gt 0 ] || { fail "diff window $since..$until selects no sample"; return; }
        for f in "${picked[@]}"; do cp "$f" "$work/$side/$(echo "$f" | md5sum | cut -c1-12).json"; done
    done
    from_files="$("$bin" diff "$work/base" "$work/new" -f json 2>/dev/null)"; rc_files=$?
    from_store="$("$bin" diff --store "$store" "$1" "$2" -f json 2>/dev/null)"; rc_store=$?
    [ "$rc_files" = "$rc_store" ] || fail "diff $1 $2: exit status $rc_files from files, $rc_store from the store"
    [ "$from_files" = "$from_store" ] ||
        { fail "diff $1 $2: output differs"; diff <(echo "$from_files") <(echo "$from_store") | head -20; }
    runs="$(echo "$from_store" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["base_runs"], d["new_runs"])')"
    [ "$runs" != "0 0" ] && [ -n "$runs" ] || fail "diff $1 $2: no run compared ($runs)"
}
same_diff 2026-11-29..2026-12-01 2026-12-01..2026-12-03
same_diff 2026-12-01..2026-12-02 2026-12-02..2026-12-05
out="$("$bin" diff --store "$store" .. 2026-12-01.. 2>&1)"; rc=$?
expect_eq "$rc" 2 "diff --store with an empty window: exit status"
case "$out" in *"needs a start, an end or both"*) ;; *) fail "diff --store with an empty window said: $out" ;; esac

# A bad report: rejected with its reason, nothing of it stored; beside a good one, exit 3.
/usr/bin/python3 - "$samples/debian12-sim-2026-11-29-async.json" "$work" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["id"] = "store-test-good"
json.dump(d, open(sys.argv[2] + "/good.json", "w"))
d["run"]["id"] = "store-test-bad"
d["results"][0]["status"] = 7
json.dump(d, open(sys.argv[2] + "/bad.json", "w"))
d = json.load(open(sys.argv[1]))
d["run"]["id"] = "store-test-stdin"
json.dump(d, open(sys.argv[2] + "/stdin.json", "w"))
d["run"]["id"] = "store-test-good"
d["run"]["duration_s"] = 1.5
json.dump(d, open(sys.argv[2] + "/conflict.json", "w"))
PY
out="$("$bin" store ingest --store "$store" "$work/bad.json" 2>"$work/err")"; rc=$?
expect_eq "$rc" 2 "bad report alone: exit status"
grep -q "rejected $work/bad.json: .*status" "$work/err" || fail "bad report: no reason on stderr: $(cat "$work/err")"
expect_eq "$(runs_stored)" "$n_samples" "runs after a rejected report"
out="$("$bin" store ingest --store "$store" "$work/good.json" "$work/bad.json" 2>/dev/null)"; rc=$?
expect_eq "$rc" 3 "good and bad report: exit status"; expect_eq "$out" "stored 1, already stored 0, rejected 1" "good and bad"
out="$("$bin" store ingest --store "$store" "$work/conflict.json" 2>"$work/err")"; rc=$?
expect_eq "$rc" 2 "another report under a stored run id: exit status"
grep -q "already stored with another report" "$work/err" || fail "conflict: no reason: $(cat "$work/err")"
out="$("$bin" store ingest --store "$store" - <"$work/stdin.json")"; rc=$?
expect_eq "$rc" 0 "standard input: exit status"; expect_eq "$out" "stored 1, already stored 0, rejected 0" "standard input"
out="$(echo '{"schema": "x"}' | "$bin" store ingest --store "$store" - 2>"$work/err")"; rc=$?
expect_eq "$rc" 2 "not a report on standard input: exit status"
expect_eq "$(runs_stored)" "$((n_samples + 2))" "runs at the end"

# Bad usage is exit 2: a window bound that is no time, both paths and --store.
"$bin" matrix --store "$store" --since yesterday >/dev/null 2>&1; expect_eq "$?" 2 "--since yesterday"
"$bin" matrix "$samples" --store "$store" >/dev/null 2>&1; expect_eq "$?" 2 "paths and --store"
"$bin" matrix --since 2026-12-01 >/dev/null 2>&1; expect_eq "$?" 2 "--since without --store"

if [ "$engine" = postgresql ]; then
    # Many nodes at once: eight ingests of overlapping sets into a fresh database, all succeed,
    # each run stored exactly once.
    pg_cluster_as "$PG_BIN/createdb" -h "$PG_DIR" -U gpuconform concurrent
    concurrent="pg:host=$PG_DIR user=gpuconform dbname=concurrent"
    pids=()
    for i in 1 2 3 4 5 6 7 8; do
        "$bin" store ingest -q --store "$concurrent" "$samples" "$work/good.json" >"$work/c$i.out" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || fail "concurrent ingest $((i + 1)): exit $? ($(cat "$work/c$((i + 1)).out"))"
    done
    n="$("$bin" store info --store "$concurrent" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"])')"
    expect_eq "$n" "$((n_samples + 1))" "runs after eight concurrent ingests"
fi

if [ "$failures" -gt 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "store ($engine): every view from the store equals the view from the files"
