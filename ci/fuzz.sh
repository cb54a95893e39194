#!/usr/bin/env bash
# Bounded libFuzzer runs over the report reader, the roll-up, the profile and tolerance readers and
# the command line, seeded with the real samples and the committed corpus
# (native_tests/fuzz/README.md). A crash fails the script and leaves its input under
# build-fuzz/crashes/; commit it to native_tests/fuzz/corpus/<harness>/ so ctest replays it forever.
# Usage: ci/fuzz.sh [S, default 30]. The run takes 2*S seconds in all (what it took when there
# were two harnesses of S seconds each), shared evenly by the harnesses, so adding one never
# lengthens CI.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${GPUCONFORM_FUZZ_SECONDS:-30}}
build=${GPUCONFORM_FUZZ_BUILD:-build-fuzz}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not installed" >&2; exit 2; }
launcher=()
if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"  # another clone of the same tree reuses the cache
    # A debug build hashes its working folder (where the debug information says it was built);
    # left out, a clone elsewhere (each CI checkout) reuses the cache too. A crash's stack trace
    # still names each file relative to the source.
    export CCACHE_NOHASHDIR=1
fi
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DGPUCONFORM_FUZZ=ON -DGPUCONFORM_CUDA=OFF -DGPUCONFORM_HIP=OFF >/dev/null
harnesses=(report matrix profile tolerance command_line)
per_harness=$(( seconds * 2 / ${#harnesses[@]} ))
[ "$per_harness" -ge 1 ] || per_harness=1
cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]/#/fuzz_}" >/dev/null
mkdir -p "$build/crashes"
status=0
for harness in "${harnesses[@]}"; do
    seeds=(native_tests/fuzz/corpus/$harness)
    case $harness in
        report | matrix) seeds+=(reports/samples native_tests/data/reports) ;;
        profile) seeds+=(probes/profiles) ;;
    esac
    work="$build/corpus-$harness"
    mkdir -p "$work"
    # libFuzzer takes folders only: the example tolerance file seeds the working corpus.
    [ $harness = tolerance ] && cp reports/examples/tolerances.yaml "$work/example-tolerances.yaml"
    exe="$build/native_tests/fuzz/fuzz_$harness"
    [ -x "$exe" ] || { echo "fuzz: $exe was not built" >&2; exit 2; }
    echo "fuzz_$harness: ${per_harness}s"
    if ! "$exe" -max_total_time="$per_harness" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$harness-" "$work" "${seeds[@]}" >"$build/fuzz-$harness.log" 2>&1; then
        tail -40 "$build/fuzz-$harness.log" >&2
        echo "fuzz_$harness found a crash: $(ls "$build"/crashes/$harness-* 2>/dev/null)" >&2
        status=1
    fi
    grep -E "stat::number_of_executed_units|cov:" "$build/fuzz-$harness.log" | tail -2
done
exit $status
