#!/bin/sh
# Times `gpuconform matrix` on N synthetic reports (reports/bench/README.md).
#   reports/bench/run_bench.sh BUILD_DIR [N...]        e.g. reports/bench/run_bench.sh build 10000 100000
# Reports are generated once under ${BENCH_DIR:-/tmp/gpuconform-bench}/N and reused. The view is
# written to a file there: `-o` replaces only a regular file, never /dev/null.
set -eu
build=$1
shift
here=$(dirname "$0")
root=${BENCH_DIR:-/tmp/gpuconform-bench}
for n in "${@:-10000}"; do
    if [ ! -d "$root/$n" ]; then
        python3 "$here/../tools/gen_reports.py" --count "$n" --out "$root/$n"
    fi
    find "$root/$n" -name '*.json' -exec cat {} + > /dev/null  # warm the page cache
    for format in terminal html; do
        for threads in 2 1; do
            printf '%s reports, -f %s, -j %s, %s\n' "$n" "$format" "$threads" "$(cut -d' ' -f1-3 /proc/loadavg)"
            /usr/bin/time -v "$build/gpuconform" matrix "$root/$n" -f "$format" -j "$threads" -o "$root/matrix.out" 2>&1 \
                | grep -E 'Elapsed|Maximum resident|User time|System time' || true
        done
    done
done
